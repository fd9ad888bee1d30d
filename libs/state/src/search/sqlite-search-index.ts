import type { IndexIntegrity } from '@statehouse/contracts';
import { sql } from 'kysely';
import type { Db, Executor } from '../db/database.js';
import type { SearchIndexPort } from './search-index.port.js';

const WORD_ROWS = `display_kind <> 'hidden' and (active = 1 or compacted = 1)`;
const SUBSTRING_ROWS = `substring_indexed = 1 and ${WORD_ROWS}`;

const INDEXES = [
  {
    name: 'word' as const,
    table: 'messages_fts',
    columns: 'content, tool_name, tool_calls',
    tokenize: 'unicode61 remove_diacritics 2',
    rows: WORD_ROWS,
  },
  { name: 'substring' as const, table: 'messages_trgm', columns: 'content', tokenize: 'trigram', rows: SUBSTRING_ROWS },
];

/**
 * FTS5 external-content indexes cannot check themselves against a partial selection of their
 * content table, so the check builds the index the messages call for (a contentless temp table
 * with the same tokenizer) and compares the two term by term through fts5vocab.
 */
export class SqliteSearchIndex implements SearchIndexPort {
  async check(db: Executor): Promise<IndexIntegrity['indexes']> {
    const results: IndexIntegrity['indexes'] = [];
    for (const index of INDEXES) {
      const expected = `sh_expect_${index.name}`;
      await sql.raw(`drop table if exists temp.${expected}`).execute(db);
      await sql.raw(`drop table if exists temp.${expected}_vocab`).execute(db);
      await sql.raw(`drop table if exists temp.${index.table}_vocab`).execute(db);
      await sql
        .raw(
          `create virtual table temp.${expected} using fts5(${index.columns}, content='', tokenize='${index.tokenize}')`,
        )
        .execute(db);
      await sql
        .raw(
          `insert into temp.${expected}(rowid, ${index.columns}) select id, ${index.columns} from main.messages where ${index.rows}`,
        )
        .execute(db);
      await sql.raw(`create virtual table temp.${expected}_vocab using fts5vocab(temp, ${expected}, row)`).execute(db);
      await sql
        .raw(`create virtual table temp.${index.table}_vocab using fts5vocab(main, ${index.table}, row)`)
        .execute(db);
      const { rows } = await sql<{ mismatched: number; expected_rows: number }>`
        select
          (select count(*) from (
            select term, doc, cnt from ${sql.raw(`temp.${index.table}_vocab`)}
            except select term, doc, cnt from ${sql.raw(`temp.${expected}_vocab`)})) +
          (select count(*) from (
            select term, doc, cnt from ${sql.raw(`temp.${expected}_vocab`)}
            except select term, doc, cnt from ${sql.raw(`temp.${index.table}_vocab`)})) as mismatched,
          (select count(*) from main.messages where ${sql.raw(index.rows)}) as expected_rows`.execute(db);
      for (const table of [`${index.table}_vocab`, `${expected}_vocab`, expected]) {
        await sql.raw(`drop table if exists temp.${table}`).execute(db);
      }
      const mismatchedTerms = Number(rows[0].mismatched);
      results.push({
        name: index.name,
        ok: mismatchedTerms === 0,
        expectedRows: Number(rows[0].expected_rows),
        mismatchedTerms,
      });
    }
    return results;
  }

  /** Drops and recreates both tables (this also recovers a missing or corrupt one), then refills them. */
  async rebuild(db: Db): Promise<void> {
    await db.transaction().execute(async (trx) => {
      for (const index of INDEXES) {
        await sql.raw(`drop table if exists ${index.table}`).execute(trx);
        await sql
          .raw(
            `create virtual table ${index.table} using fts5(${index.columns}, content='messages', content_rowid='id', tokenize='${index.tokenize}')`,
          )
          .execute(trx);
        await sql
          .raw(
            `insert into ${index.table}(rowid, ${index.columns}) select id, ${index.columns} from messages where ${index.rows}`,
          )
          .execute(trx);
      }
    });
  }

  async usable(db: Executor): Promise<boolean> {
    try {
      await sql`select rowid from messages_fts where messages_fts match 'statehouseprobe' limit 1`.execute(db);
      return true;
    } catch {
      return false;
    }
  }
}
