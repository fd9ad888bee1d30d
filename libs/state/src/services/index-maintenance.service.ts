import type { SearchOptimizeRequest, SearchOptimizeResult } from '@statehouse/contracts';
import { sql } from 'kysely';
import { ChunkSizer, reportChunk, STEP_BUDGET_MS, timeBoxed } from '../db/chunks.js';
import type { Db, Dialect, Executor } from '../db/database.js';
import { type BatchWriter, MainThreadBatchWriter } from '../db/sqlite-write-worker.js';
import { DAY_MS, UsageRollupRepository } from '../repositories/usage-rollup.repository.js';
import { ftsMergeInProgress } from '../search/fts-structure.js';
import { assertAdmin } from '../shared/access.js';
import type { OperationContext } from '../shared/context.js';
import { toDomainError } from '../shared/store-errors.js';
import type { JobContext, JobDefinition, JobSummary } from './job.service.js';
import type { SearchIndexService } from './search-index.service.js';

export const INDEX_MAINTENANCE_JOB = 'index-maintenance';
const FTS_TABLES = ['messages_fts', 'messages_trgm'];
const PG_GIN_INDEXES = ['messages_search_vector_idx', 'messages_content_trgm_idx'];
/** Bounds one maintenance pass (each step itself is a bounded chunk). */
const MAX_STEPS = 2000;
/** Stripe rows of `usage_daily` folded per transaction (a few ms each). */
const FOLD_CHUNK = 2000;

/**
 * Scheduled upkeep of indexes and the file, each step a bounded chunk:
 * - SQLite: resume a search rebuild a crashed process left half-done; optimize the FTS5 indexes
 *   (every segment merged into one, for the fastest queries) a few hundred pages at a time, each
 *   step its own short transaction — the merges between writes are the FTS merger's (a worker,
 *   see db/sqlite-fts-merger.ts), this pass only tidies up what the day left behind;
 *   return free pages to the file system with `incremental_vacuum` (new files are created with
 *   `auto_vacuum = INCREMENTAL`; a full VACUUM is never run online); `PRAGMA optimize`.
 * - PostgreSQL: flush the GIN indexes' pending lists (entries written since the last vacuum that
 *   every search scans in full); fold the `usage_daily` stripes of days before yesterday back into
 *   one row per key (concurrent appends spread a key over up to 16 rows, see migration
 *   2026-12-01T03.10; past days are rarely written, so the stats reads there stay one row per key);
 *   refresh planner statistics.
 */
/** Rows ANALYZE reads per index (SQLite's own suggestion is 100–1000): statistics good enough to plan by. */
const ANALYSIS_LIMIT = 1000;
/** `sqlite_stat1`/`sqlite_stat4` rows of the search indexes' FTS5 shadow tables (see optimizePlanner). */
export const FTS_SHADOW_STATS = `tbl like 'messages\\_fts\\_%' escape '\\' or tbl like 'messages\\_trgm\\_%' escape '\\'`;

export class IndexMaintenanceService {
  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
    private readonly searchIndex: SearchIndexService,
    /**
     * Where the SQLite steps' transactions run: a worker's connection for a file (one per pass),
     * so this process's event loop never executes them nor waits on their writes; the store's
     * own writer for `:memory:`.
     */
    private readonly writers: () => BatchWriter = () => new MainThreadBatchWriter(db),
  ) {}

  private readonly usage = new UsageRollupRepository();

  job(intervalMs: number): JobDefinition {
    return { name: INDEX_MAINTENANCE_JOB, intervalMs, run: (context) => this.run(context) };
  }

  async run(context: JobContext): Promise<JobSummary> {
    const between = (ms: number) => context.checkpoint(ms);
    if (this.dialect === 'postgres') {
      for (const index of PG_GIN_INDEXES) {
        await sql`select gin_clean_pending_list(${sql.lit(index)}::regclass)`.execute(this.db);
        await between(0);
      }
      const usageStripesFolded = await this.foldUsageStripes(context.interval.start, between);
      await sql`analyze sessions`.execute(this.db);
      await sql`analyze messages`.execute(this.db);
      return { ginPendingListsFlushed: PG_GIN_INDEXES.length, usageStripesFolded, analyzed: true };
    }
    const resumedRebuild = await this.searchIndex.resumeAbandoned(context.holder);
    const writer = this.writers();
    try {
      const mergeSteps =
        resumedRebuild || (await this.searchIndex.rebuilding()) ? 0 : await this.mergeFts(between, writer);
      const vacuum = await this.incrementalVacuum(between, writer);
      await this.optimizePlanner(writer);
      return { resumedRebuild, mergeSteps, ...vacuum };
    } finally {
      await writer.close();
    }
  }

  /** An administrator's `POST /v1/maintenance/search-optimize`. */
  async optimizeNow(ctx: OperationContext, request: SearchOptimizeRequest): Promise<SearchOptimizeResult> {
    assertAdmin(ctx.principal);
    try {
      return await this.optimizeSearchIndexes({ vacuum: request.vacuum });
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /**
   * Optimizes both search indexes now, on request (an administrator's, docs/api.md): SQLite merges
   * every FTS5 segment into one per index in bounded steps and, with `vacuum`, returns free pages
   * to the file system; PostgreSQL flushes the GIN indexes' pending lists. Layout only: search
   * results and snippets are the same before and after. Answers how many indexes it optimized.
   */
  async optimizeSearchIndexes(options: {
    vacuum: boolean;
    between?: (lastChunkMs: number) => Promise<void>;
  }): Promise<{ indexes: number; mergeSteps: number; pagesFreed: number }> {
    const between = options.between ?? (() => new Promise<void>((resolve) => setImmediate(resolve)));
    if (this.dialect === 'postgres') {
      for (const index of PG_GIN_INDEXES) {
        await sql`select gin_clean_pending_list(${sql.lit(index)}::regclass)`.execute(this.db);
      }
      return { indexes: PG_GIN_INDEXES.length, mergeSteps: 0, pagesFreed: 0 };
    }
    if (await this.searchIndex.rebuilding()) return { indexes: 0, mergeSteps: 0, pagesFreed: 0 };
    const writer = this.writers();
    try {
      const mergeSteps = await this.mergeFts(between, writer);
      const pagesFreed = options.vacuum ? (await this.incrementalVacuum(between, writer)).pagesFreed : 0;
      return { indexes: FTS_TABLES.length, mergeSteps, pagesFreed };
    } finally {
      await writer.close();
    }
  }

  /**
   * PostgreSQL: folds the `usage_daily` stripes of days before yesterday (UTC, relative to `now`)
   * into stripe 0, a chunk per transaction; returns the stripe rows folded. Today's and
   * yesterday's rows are where appends land (late messages included), so they keep their stripes.
   */
  async foldUsageStripes(now: number, between: (lastChunkMs: number) => Promise<void>): Promise<number> {
    const beforeDay = Math.floor(now / DAY_MS) * DAY_MS - DAY_MS;
    let folded = 0;
    for (let step = 0; step < MAX_STEPS; step++) {
      const started = performance.now();
      const rows = await this.usage.foldStripes(this.db, beforeDay, FOLD_CHUNK);
      folded += rows;
      if (rows < FOLD_CHUNK) break;
      await between(performance.now() - started);
    }
    return folded;
  }

  /**
   * FTS5's `optimize` in bounded steps: a first `merge` with a negative page budget puts every
   * segment into one level and starts merging them; steps with a positive budget continue that
   * merge to one segment per index (a plain `optimize` would do it in one transaction, seconds at
   * 10⁶ messages). `tuning` (tests): smaller steps and transactions.
   */
  async mergeFts(
    between: (lastChunkMs: number) => Promise<void>,
    writer?: BatchWriter,
    tuning: { maxStepPages?: number; stopMs?: number } = {},
  ): Promise<number> {
    return this.withWriter(writer, (own) => this.mergeFtsWith(between, own, tuning));
  }

  private async mergeFtsWith(
    between: (lastChunkMs: number) => Promise<void>,
    writer: BatchWriter,
    tuning: { maxStepPages?: number; stopMs?: number },
  ): Promise<number> {
    // Chunks (transactions) that merged something; a chunk that finishes an index counts too.
    let steps = 0;
    let chunks = 0;
    for (const table of FTS_TABLES) {
      const maxPages = tuning.maxStepPages ?? 4000;
      const sizer = new ChunkSizer(Math.min(8, maxPages), Math.min(2, maxPages), maxPages, STEP_BUDGET_MS);
      // Only the first step is an optimize step (negative budget): it puts every segment there is
      // into one level and starts merging them. Every later step continues that merge with a
      // positive budget. A negative step pulls every segment written since into the merge again,
      // so under steady writes (a retention pass, a gateway's appends) the merge's inputs grew
      // faster than it consumed them, up to FTS5's limit of 2 000 segments per index — where every
      // write to the index fails with SQLITE_FULL (docs/decisions/0005-fts-merges-off-the-write-path.md;
      // search/fts-merge.test.ts replays it).
      let optimizing = true;
      for (; chunks < MAX_STEPS; chunks++) {
        const started = performance.now();
        const box = await writer.transaction((batch) =>
          timeBoxed(
            sizer,
            async (pages) => {
              const first = optimizing;
              const budget = first ? -pages : pages;
              optimizing = false;
              const [before, , after, structure] = await batch([
                { sql: 'select total_changes() as n', rows: true },
                { sql: `insert into ${table}(${table}, rank) values ('merge', ?)`, parameters: [budget] },
                { sql: 'select total_changes() as n', rows: true },
                { sql: `select block from ${table}_data where id = 10`, rows: true },
              ]);
              // Fewer than two changes: there was nothing left to merge (FTS5's documented signal).
              if (Number(after.rows[0].n) - Number(before.rows[0].n) < 2) return 0;
              // The optimize is done once no merge is in progress: the segments written since it began
              // are the merger's (a positive step would go on merging them as long as writes go on).
              const block = (structure.rows[0] as { block?: Uint8Array } | undefined)?.block;
              return first || ftsMergeInProgress(block) ? pages : 0;
            },
            tuning.stopMs === undefined ? {} : { stopMs: tuning.stopMs },
          ),
        );
        const elapsed = performance.now() - started;
        if (box.rows > 0) {
          steps++;
          reportChunk({ operation: 'fts-merge', heldMs: elapsed, ...box });
        }
        if (box.done) break;
        await between(elapsed);
      }
    }
    return steps;
  }

  /** Frees the file's unused pages a chunk at a time (files created with auto_vacuum = INCREMENTAL). */
  async incrementalVacuum(
    between: (lastChunkMs: number) => Promise<void>,
    writer?: BatchWriter,
  ): Promise<{ vacuum: 'incremental' | 'unavailable'; pagesFreed: number }> {
    return this.withWriter(writer, (own) => this.incrementalVacuumWith(between, own));
  }

  /** `writer`, or one of this service's own for the call. */
  /**
   * SQLite: planner statistics (`PRAGMA optimize`) on the maintenance writer's connection (a
   * worker's, on a file), each index's ANALYZE bounded by `analysis_limit`. Run on the store's
   * writer, an unbounded ANALYZE of 10⁶ messages held the event loop 96–122 ms (the health bench's
   * longest gap during maintenance). `0x10002`: check every table — a worker's fresh connection
   * has queried none, and plain `optimize` only looks at tables its connection used.
   * The search indexes' FTS5 shadow tables keep no statistics: only FTS5's own statements read them,
   * by key, and a count taken while an index was small planned its per-segment `DELETE … WHERE id
   * BETWEEN` as a full scan — every merge then read the whole table once per input segment
   * (migration 2026-12-01T12.00; docs/operations.md, "Planner statistics and the search indexes").
   */
  async optimizePlanner(writer?: BatchWriter): Promise<void> {
    await this.withWriter(writer, (own) =>
      own.transaction(async (batch) => {
        const [, , stats] = await batch([
          { sql: `pragma analysis_limit = ${ANALYSIS_LIMIT}`, rows: true },
          { sql: 'pragma optimize = 0x10002', rows: true },
          { sql: `select name from sqlite_master where name in ('sqlite_stat1', 'sqlite_stat4')`, rows: true },
        ]);
        const tables = stats.rows.map((row) => String((row as { name: string }).name));
        if (tables.length > 0)
          await batch(tables.map((table) => ({ sql: `delete from ${table} where ${FTS_SHADOW_STATS}` })));
      }),
    );
  }

  private async withWriter<T>(writer: BatchWriter | undefined, work: (writer: BatchWriter) => Promise<T>): Promise<T> {
    if (writer) return work(writer);
    const own = this.writers();
    try {
      return await work(own);
    } finally {
      await own.close();
    }
  }

  private async incrementalVacuumWith(
    between: (lastChunkMs: number) => Promise<void>,
    writer: BatchWriter,
  ): Promise<{ vacuum: 'incremental' | 'unavailable'; pagesFreed: number }> {
    const mode = Number((await sql<{ auto_vacuum: number }>`pragma auto_vacuum`.execute(this.db)).rows[0]?.auto_vacuum);
    if (mode !== 2) return { vacuum: 'unavailable', pagesFreed: 0 };
    const sizer = new ChunkSizer(100, 10, 20_000, STEP_BUDGET_MS);
    let freed = 0;
    for (let step = 0; step < MAX_STEPS; step++) {
      if ((await this.freePages()) === 0) break;
      const started = performance.now();
      const box = await writer.transaction((batch) =>
        timeBoxed(sizer, async (pages) => {
          // `pages` ≥ 10: never 0, which would free the whole list at once. Asking for more pages
          // than are free frees those there are.
          const [before, , after] = await batch([
            { sql: 'pragma freelist_count', rows: true },
            { sql: `pragma incremental_vacuum(${Math.max(1, Math.trunc(pages))})` },
            { sql: 'pragma freelist_count', rows: true },
          ]);
          const free = Number(before.rows[0]?.freelist_count);
          if (free === 0) return 0;
          const left = Number(after.rows[0]?.freelist_count);
          freed += free - left;
          // A step may free fewer pages than asked while more are left: it ends the box only once
          // none are left (or it made no progress).
          if (left === free) return 0;
          return left === 0 ? Math.min(free - left, pages - 1) : pages;
        }),
      );
      const elapsed = performance.now() - started;
      if (box.rows > 0) reportChunk({ operation: 'vacuum', heldMs: elapsed, ...box });
      if (box.done) break;
      await between(elapsed);
    }
    return { vacuum: 'incremental', pagesFreed: freed };
  }

  private async freePages(db: Executor = this.db): Promise<number> {
    return Number((await sql<{ freelist_count: number }>`pragma freelist_count`.execute(db)).rows[0]?.freelist_count);
  }
}
