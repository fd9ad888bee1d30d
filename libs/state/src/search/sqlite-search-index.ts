import type { IndexIntegrity } from '@statehouse/contracts';
import { CompiledQuery, sql } from 'kysely';
import { ChunkSizer, reportChunk, STEP_BUDGET_MS, timeBoxed } from '../db/chunks.js';
import type { Db, Executor } from '../db/database.js';
import { SEARCH_PENDING_FLUSH, SEARCH_PENDING_TABLE } from '../db/sqlite-search-pending.js';
import {
  type BatchStatement,
  type BatchWriter,
  MainThreadBatchWriter,
  SqliteWriteWorker,
} from '../db/sqlite-write-worker.js';
import { StoreMetaRepository } from '../repositories/store-meta.repository.js';
import type { RebuildChunks, SearchIndexPort } from './search-index.port.js';

const META_REBUILD = 'search_rebuild';
const META_WATERMARK = 'search_rebuild_watermark';
const WATERMARK = `(select cast(value as integer) from store_meta where key = '${META_WATERMARK}')`;

interface RebuildState {
  /** The original search triggers, verbatim, put back when the rebuild ends. */
  triggers: string[];
  /** Each index's FTS5 settings before the rebuild (automerge, crisismerge, …), put back at the end. */
  settings?: Record<string, [string, string][]>;
}

/**
 * The store's merge settings (migration 2026-11-30T06.30, docs/search.md): restored at the end of
 * a rebuild unless the table had settings of its own, so a rebuild of a missing or corrupt table
 * does not bring FTS5's defaults (merges inside appends) back.
 */
const STORE_MERGE_SETTINGS: [string, string][] = [
  ['automerge', '0'],
  ['usermerge', '4'],
  ['crisismerge', '64'],
];
/** FTS5's default automerge: while a rebuild fills the tables (see below). */
const DEFAULT_AUTOMERGE = '4';
/** Segments allowed on one level while a rebuild fills the tables (the merge steps follow). */
const REBUILD_CRISISMERGE = 2000;

/** An FTS5 table's settings as `INSERT INTO t(t, rank)` commands. */
function configureStatements(table: string, settings: [string, string][]): string[] {
  return settings.map(([key, value]) => {
    const literal = Number.isFinite(Number(value)) ? String(Number(value)) : `'${value.replaceAll("'", "''")}'`;
    return `insert into ${table}(${table}, rank) values ('${key.replaceAll("'", "''")}', ${literal})`;
  });
}

const metaStatement = (key: string, value: string) =>
  `insert into store_meta(key, value) values ('${key}', '${value.replaceAll("'", "''")}') on conflict(key) do update set value = excluded.value`;

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

/**
 * The search triggers: those writing either index, and the insert trigger that leaves new rows to
 * their transaction's flush (migration 2026-12-01T06.00) — gated like the others during a rebuild,
 * so a row above the watermark is left to its chunk instead of being indexed twice.
 */
const SEARCH_TRIGGERS = `select name, sql from sqlite_master
  where type = 'trigger' and tbl_name = 'messages'
    and (sql like '%messages_fts%' or sql like '%messages_trgm%' or sql like '%${SEARCH_PENDING_TABLE}%')
  order by name`;

/** The watermark now (0 before the first chunk), as the first statement of a batch. */
const WATERMARK_NOW: BatchStatement = {
  sql: `select coalesce(${WATERMARK}, 0) as from_id`,
  rows: true,
};

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
 * One step of a rebuild chunk as a batch: the next `limit` messages above the watermark are
 * indexed in both tables and the watermark is raised to the last of them (statement 1 answers
 * `upto` — null when nothing is left — and `n`).
 */
function rebuildStep(limit: number): BatchStatement[] {
  const from = { ref: [0, 'from_id'] as [number, string] };
  const upto = { ref: [1, 'upto'] as [number, string] };
  return [
    WATERMARK_NOW,
    {
      sql: 'select max(id) as upto, count(*) as n from (select id from messages where id > ? order by id limit ?)',
      parameters: [from, limit],
      rows: true,
    },
    ...INDEXES.map((index) => ({
      sql: `insert into ${index.table}(rowid, ${index.columns}) select id, ${index.columns} from messages where id > ? and id <= ? and ${index.rows}`,
      parameters: [from, upto],
    })),
    {
      sql: `insert into store_meta(key, value) select ?, cast(? as text) where ? is not null on conflict(key) do update set value = excluded.value`,
      parameters: [META_WATERMARK, upto, upto],
    },
  ];
}

/**
 * FTS5 external-content indexes cannot check themselves against a partial selection of their
 * content table, so the check builds the index the messages call for (a contentless temp table
 * with the same tokenizer) and compares the two term by term through fts5vocab.
 */
export class SqliteSearchIndex implements SearchIndexPort {
  private readonly meta = new StoreMetaRepository();

  /**
   * `path`: the store's file, whose rebuild transactions run on a worker's connection (null: on
   * the store's own writer — `:memory:`, and tests that watch that writer).
   */
  constructor(
    private readonly path: string | null = null,
    private readonly lockTimeoutMs = 5000,
  ) {}

  async check(db: Executor): Promise<IndexIntegrity['indexes']> {
    const results: IndexIntegrity['indexes'] = [];
    // Messages may still be pending — earlier requests of an open group, commits within the
    // search-index lag (docs/search.md): index them here, so the check compares what a flush would
    // leave. The check runs in a rehearsal, rolled back; a later flush indexes them for real.
    if (await this.hasPendingTable(db)) {
      for (const statement of SEARCH_PENDING_FLUSH) await sql.raw(statement).execute(db);
    }
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
    // Every write transaction of the rebuild runs on one worker thread with its own connection
    // (a `:memory:` store, which a worker cannot open, runs them on its own writer): this
    // process's event loop only sends each step and keeps answering meanwhile.
    const writer: BatchWriter = this.path
      ? new SqliteWriteWorker(this.path, this.lockTimeoutMs)
      : new MainThreadBatchWriter(db);
    try {
      await this.rebuildWith(db, writer, chunks);
    } finally {
      await writer.close();
    }
  }

  private async rebuildWith(db: Db, writer: BatchWriter, chunks: RebuildChunks): Promise<void> {
    let state = await this.loadState(db);
    if (!state) {
      const triggers = await this.searchTriggers(db);
      const settings: Record<string, [string, string][]> = {};
      for (const index of INDEXES) settings[index.table] = await this.settingsOf(db, index.table);
      state = { triggers: triggers.map((trigger) => trigger.sql), settings };
      const statements = [
        ...triggers.map((trigger) => `drop trigger if exists ${trigger.name}`),
        ...INDEXES.flatMap((index) => [
          `drop table if exists ${index.table}`,
          `create virtual table ${index.table} using fts5(${index.columns}, content='messages', content_rowid='id', tokenize='${index.tokenize}')`,
          // While it fills, automatic merges stay on (their work is proportional to what a chunk
          // writes, so the chunk sizer accounts for it) but no crisis merge of a whole level runs
          // inside a chunk; what is left is merged in bounded steps afterwards, and the table's
          // own settings come back.
          ...configureStatements(index.table, [
            ['automerge', DEFAULT_AUTOMERGE],
            ['crisismerge', String(REBUILD_CRISISMERGE)],
          ]),
        ]),
        // Every message is indexed again by the chunks below: nothing may stay pending for a flush
        // to index a second time (the table exists from migration 2026-12-01T06.00 on).
        ...((await this.hasPendingTable(db)) ? [`delete from ${SEARCH_PENDING_TABLE}`] : []),
        metaStatement(META_REBUILD, JSON.stringify(state)),
        metaStatement(META_WATERMARK, '0'),
        ...state.triggers.map(gated),
      ];
      // Dropping the old tables frees every page of them in one statement (≈ 0.25 s per 10⁶
      // messages): one transaction, not split.
      await writer.transaction((batch) => batch(statements.map((statement) => ({ sql: statement }))));
    }
    // Each chunk is one transaction of time-boxed steps: a step indexes the next messages above
    // the watermark and raises it (one batch: its statements read what the earlier ones found);
    // no step starts once the box is spent.
    const sizer = new ChunkSizer(200, 50, 50_000, STEP_BUDGET_MS);
    for (;;) {
      const started = performance.now();
      const box = await writer.transaction((batch) =>
        timeBoxed(
          sizer,
          async (limit) => {
            const [, range] = await batch(rebuildStep(limit));
            return Number(range.rows[0]?.n ?? 0);
          },
          chunks.stopMs === undefined ? {} : { stopMs: chunks.stopMs },
        ),
      );
      const elapsed = performance.now() - started;
      if (box.rows > 0) reportChunk({ operation: 'search-rebuild', heldMs: elapsed, ...box });
      if (box.done) break;
      await chunks.between(elapsed);
    }
    await this.mergeInSteps(writer, chunks);
    const final = state;
    await writer.transaction(async (batch) => {
      // Rows appended since the last chunk are indexed by the gated triggers only up to the
      // watermark: raise it past everything in the same transaction that ungates the triggers.
      const results = await batch([
        WATERMARK_NOW,
        ...INDEXES.map((index) => ({
          sql: `insert into ${index.table}(rowid, ${index.columns}) select id, ${index.columns} from messages where id > ? and ${index.rows}`,
          parameters: [{ ref: [0, 'from_id'] as [number, string] }],
        })),
        { sql: SEARCH_TRIGGERS, rows: true },
      ]);
      const triggers = results[results.length - 1].rows;
      await batch([
        ...triggers.map((trigger) => ({ sql: `drop trigger if exists ${String(trigger.name)}` })),
        ...final.triggers.map((original) => ({ sql: original })),
        ...INDEXES.flatMap((index) =>
          configureStatements(index.table, [...STORE_MERGE_SETTINGS, ...(final.settings?.[index.table] ?? [])]).map(
            (statement) => ({ sql: statement }),
          ),
        ),
        { sql: `delete from store_meta where key in (?, ?)`, parameters: [META_REBUILD, META_WATERMARK] },
      ]);
    });
  }

  /** Merges the segments a rebuild left, a bounded number of pages per transaction. */
  private async mergeInSteps(writer: BatchWriter, chunks: RebuildChunks): Promise<void> {
    for (const index of INDEXES) {
      const sizer = new ChunkSizer(16, 4, 4096, STEP_BUDGET_MS);
      for (;;) {
        const started = performance.now();
        const box = await writer.transaction((batch) =>
          timeBoxed(sizer, async (pages) => {
            const [before, , after] = await batch([
              { sql: 'select total_changes() as n', rows: true },
              { sql: `insert into ${index.table}(${index.table}, rank) values ('merge', ?)`, parameters: [pages] },
              { sql: 'select total_changes() as n', rows: true },
            ]);
            // Fewer than two changes: nothing was left to merge (FTS5's documented signal).
            return Number(after.rows[0].n) - Number(before.rows[0].n) < 2 ? 0 : pages;
          }),
        );
        const elapsed = performance.now() - started;
        if (box.rows > 0) reportChunk({ operation: 'search-merge', heldMs: elapsed, ...box });
        if (box.done) break;
        await chunks.between(elapsed);
      }
    }
  }

  /** An FTS5 table's persistent settings (its `_config` rows, but the format version). */
  private async settingsOf(db: Executor, table: string): Promise<[string, string][]> {
    try {
      const { rows } = await sql<{
        k: string;
        v: unknown;
      }>`select k, v from ${sql.table(`${table}_config`)} where k <> 'version'`.execute(db);
      return rows.map((row) => [row.k, String(row.v)]);
    } catch {
      // A missing or corrupt table has no settings worth keeping.
      return [];
    }
  }

  private async hasPendingTable(db: Executor): Promise<boolean> {
    const { rows } = await sql<{
      n: number;
    }>`select count(*) as n from sqlite_master where type = 'table' and name = ${SEARCH_PENDING_TABLE}`.execute(db);
    return Number(rows[0]?.n ?? 0) > 0;
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
    const { rows } = await db.executeQuery<{ name: string; sql: string }>(CompiledQuery.raw(SEARCH_TRIGGERS));
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
