import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/** The FTS5 shadow tables of both search indexes (`messages_fts_data`, `messages_trgm_idx`, …). */
const SHADOW = `tbl like 'messages!_fts!_%' escape '!' or tbl like 'messages!_trgm!_%' escape '!'`;

/**
 * Frozen. SQLite only: planner statistics of the search indexes' FTS5 shadow tables are removed
 * (docs/operations.md, "Planner statistics and the search indexes").
 *
 * The maintenance job's `PRAGMA optimize` analyzed every table, the shadow tables too, often while
 * the indexes were nearly empty: `sqlite_stat1` then said `messages_trgm_data` holds 2 rows, and
 * FTS5's own `DELETE FROM messages_trgm_data WHERE id >= ? AND id <= ?` — run once per input
 * segment by every merge — was planned as a full scan. A crisis merge of 63 first-level segments
 * read the whole table 63 times inside a group's COMMIT (0.5–1.5 s of event loop at a few 10⁴
 * messages, growing with the index). Without statistics the planner uses the rowid range.
 *
 * A connection keeps the row counts it loaded even when their rows are gone, so: a schema change
 * (a table created and dropped) makes every other connection load the schema again at its next
 * statement, and `writable_schema = RESET` does it for this one (the store's writer, where group
 * commits run their merges).
 */
export function ftsShadowStatsMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      if (dialect !== 'sqlite') return;
      let removed = 0;
      for (const table of ['sqlite_stat1', 'sqlite_stat4']) {
        const { rows } = await sql<{
          n: number;
        }>`select count(*) as n from sqlite_master where name = ${table}`.execute(db);
        if (Number(rows[0]?.n ?? 0) === 0) continue;
        const result = await sql.raw(`delete from ${table} where ${SHADOW}`).execute(db);
        removed += Number(result.numAffectedRows ?? 0);
      }
      if (removed === 0) return;
      await sql`create table statehouse_reload_schema (x)`.execute(db);
      await sql`drop table statehouse_reload_schema`.execute(db);
      await sql`pragma writable_schema = reset`.execute(db);
    },
    async down() {
      // Statistics are not restored: the next PRAGMA optimize writes what it measures.
    },
  };
}
