import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Frozen. SQLite only: FTS5 segment merging leaves the appending transaction (docs/search.md,
 * "Index segments and merging"). By default FTS5 merges inside whichever write crosses its work
 * counter (every 64 leaf pages: 64 × the number of levels pages at once) and merges a whole level
 * when it holds 16 segments — the tens-of-milliseconds appends that grow with the index. Here:
 * - automerge = 0: no merge work inside an ordinary write;
 * - usermerge = 4: a level is merged (by the store's background merger, a `merge` command run on
 *   its own connection between writes) once it holds 4 segments — FTS5's own default fan-in;
 * - crisismerge = 64: the safety net when no merger runs (a `:memory:` store, a process without
 *   workers) or it falls behind: a write that finds 64 segments on a level merges them itself.
 * The values are kept in the tables' own `_config` rows, so every process opening the file uses
 * them and a search-index rebuild puts them back.
 */
export function ftsMergeOffRequestPathMigration(dialect: Dialect) {
  const set = async (db: Kysely<any>, values: [string, number][]) => {
    for (const table of ['messages_fts', 'messages_trgm']) {
      for (const [key, value] of values) {
        await sql.raw(`insert into ${table}(${table}, rank) values ('${key}', ${value})`).execute(db);
      }
    }
  };
  return {
    async up(db: Kysely<any>) {
      if (dialect !== 'sqlite') return;
      await set(db, [
        ['automerge', 0],
        ['usermerge', 4],
        ['crisismerge', 64],
      ]);
    },
    async down(db: Kysely<any>) {
      if (dialect !== 'sqlite') return;
      // FTS5's defaults.
      await set(db, [
        ['automerge', 4],
        ['usermerge', 4],
        ['crisismerge', 16],
      ]);
    },
  };
}
