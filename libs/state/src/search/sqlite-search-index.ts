import type { IndexIntegrity } from '@statehouse/contracts';
import { sql } from 'kysely';
import type { Db, Executor } from '../db/database.js';
import { ChunkSizer } from '../jobs/chunks.js';
import { StoreMetaRepository } from '../receipts/store-meta.repository.js';
import type { RebuildChunks, SearchIndexPort } from './search-index.port.js';

const META_REBUILD = 'search_rebuild';
const META_WATERMARK = 'search_rebuild_watermark';
const WATERMARK = `(select cast(value as integer) from store_meta where key = '${META_WATERMARK}')`;

interface RebuildState {
  /** The original search triggers, verbatim, put back when the rebuild ends. */
  triggers: string[];
}

/**
 * A search trigger's gated copy: the same body, firing only for messages at or below the rebuild's
 * watermark (for an insert the new row's id, otherwise the old row's).
 */
export function gated(triggerSql: string): string {
  const match =
    /^(\s*create\s+trigger\s+\S+\s+([\s\S]*?)\s+on\s+messages)\s+(?:when\s+([\s\S]*?)\s+)?begin\b([\s\S]*)$/i.exec(
      triggerSql,
    );
  if (!match) throw new Error(`cannot gate search trigger: ${triggerSql.slice(0, 80)}`);
  const [, head, timing, condition, body] = match;
  const row = /\binsert\b/i.test(timing) ? 'new' : 'old';
  const gate = `${row}.id <= ${WATERMARK}`;
  return `${head} when ${gate}${condition ? ` and (${condition})` : ''} begin${body}`;
}

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
  private readonly meta = new StoreMetaRepository();

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

  /**
   * Chunked, resumable rebuild. One short transaction drops both tables (this also recovers a
   * missing or corrupt one), creates them empty and swaps the search triggers for gated copies
   * that keep postings only for messages at or below a watermark; then chunks of messages above
   * the watermark are indexed, each chunk raising the watermark in its own short transaction (the
   * gate makes later edits of indexed rows land in the new tables, and leaves unindexed rows to
   * their chunk). A last transaction puts the original triggers back. A crash leaves the state in
   * `store_meta`; the next rebuild continues from the watermark.
   */
  async rebuild(db: Db, chunks: RebuildChunks): Promise<void> {
    let state = await this.loadState(db);
    if (!state) {
      state = await db.transaction().execute(async (trx) => {
        const triggers = await this.searchTriggers(trx);
        for (const trigger of triggers) await sql.raw(`drop trigger if exists ${trigger.name}`).execute(trx);
        for (const index of INDEXES) {
          await sql.raw(`drop table if exists ${index.table}`).execute(trx);
          await sql
            .raw(
              `create virtual table ${index.table} using fts5(${index.columns}, content='messages', content_rowid='id', tokenize='${index.tokenize}')`,
            )
            .execute(trx);
        }
        const saved: RebuildState = { triggers: triggers.map((trigger) => trigger.sql) };
        await this.meta.set(trx, META_REBUILD, JSON.stringify(saved));
        await this.meta.set(trx, META_WATERMARK, '0');
        for (const original of saved.triggers) await sql.raw(gated(original)).execute(trx);
        return saved;
      });
    }
    const sizer = new ChunkSizer(2000, 200, 200_000);
    for (;;) {
      const started = performance.now();
      const indexed = await db.transaction().execute(async (trx) => {
        const from = Number((await this.meta.get(trx, META_WATERMARK)) ?? 0);
        const { rows } = await sql<{ upto: number | null; n: number }>`
          select max(id) as upto, count(*) as n from (
            select id from messages where id > ${from} order by id limit ${sizer.size})`.execute(trx);
        const upto = rows[0]?.upto;
        if (upto === null || upto === undefined) return 0;
        for (const index of INDEXES) {
          await sql
            .raw(
              `insert into ${index.table}(rowid, ${index.columns}) select id, ${index.columns} from messages where id > ${Number(from)} and id <= ${Number(upto)} and ${index.rows}`,
            )
            .execute(trx);
        }
        await this.meta.set(trx, META_WATERMARK, String(upto));
        return Number(rows[0].n);
      });
      const elapsed = performance.now() - started;
      if (indexed === 0) break;
      sizer.record(elapsed, indexed);
      await chunks.between(elapsed);
    }
    await db.transaction().execute(async (trx) => {
      // Rows appended since the last chunk are indexed by the gated triggers only up to the
      // watermark: raise it past everything in the same transaction that ungates the triggers.
      const from = Number((await this.meta.get(trx, META_WATERMARK)) ?? 0);
      for (const index of INDEXES) {
        await sql
          .raw(
            `insert into ${index.table}(rowid, ${index.columns}) select id, ${index.columns} from messages where id > ${from} and ${index.rows}`,
          )
          .execute(trx);
      }
      for (const trigger of await this.searchTriggers(trx)) {
        await sql.raw(`drop trigger if exists ${trigger.name}`).execute(trx);
      }
      for (const original of state.triggers) await sql.raw(original).execute(trx);
      await trx.deleteFrom('store_meta').where('key', 'in', [META_REBUILD, META_WATERMARK]).execute();
    });
  }

  async inProgress(db: Executor): Promise<boolean> {
    return (await this.meta.get(db, META_REBUILD)) !== undefined;
  }

  private async loadState(db: Executor): Promise<RebuildState | null> {
    const text = await this.meta.get(db, META_REBUILD);
    return text ? (JSON.parse(text) as RebuildState) : null;
  }

  /** The triggers on `messages` that write either index (whatever migrations made them). */
  private async searchTriggers(db: Executor): Promise<{ name: string; sql: string }[]> {
    const { rows } = await sql<{ name: string; sql: string }>`
      select name, sql from sqlite_master
      where type = 'trigger' and tbl_name = 'messages' and (sql like '%messages_fts%' or sql like '%messages_trgm%')
      order by name`.execute(db);
    return rows;
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
