import type { Dialect } from './database.js';

/**
 * How long one chunk of a long operation aims to hold SQLite's write lock (chunks are sized to
 * 80 % of it from the last one's time). Every process sharing the file waits about this long at
 * most for its own writes, and this process's event loop is busy at most this long at a time;
 * it leaves room under the ~50 ms budget for a chunk that runs slower than the last (a merge of
 * index segments, a machine busy with other work).
 */
export const CHUNK_BUDGET_MS = 25;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The least time a pause leaves the write lock free before the next chunk: two retries of a writer
 * waiting in another process (the driver retries every MAX_LOCK_RETRY_MS = 4 ms at most).
 */
export const LOCK_FREE_WINDOW_MS = 8;

/** What a long operation awaits between two of its chunks (`lastChunkMs`: how long the last one took). */
export type BetweenChunks = (lastChunkMs?: number) => Promise<void>;

/**
 * Between two chunks: let this process's event loop run (requests, health checks) and, on SQLite,
 * leave the write lock free long enough for a writer in another process (which retries every few
 * milliseconds) to take it. With `mergeIndex` (the file's search-index merger), up to half of the
 * pause goes to merging index segments on the merger's own connection: the chunks' writes add a
 * segment per index each, and a long operation never pauses long enough for the merger to find the
 * file quiet — unmerged, they pile up to a crisis merge inside one chunk (db/sqlite-fts-merger.ts).
 */
export function chunkPause(dialect: Dialect, mergeIndex?: (budgetMs: number) => Promise<void>): BetweenChunks {
  if (dialect !== 'sqlite') return () => new Promise<void>((resolve) => setImmediate(resolve));
  return async (lastChunkMs = 0) => {
    const pause = Math.max(LOCK_FREE_WINDOW_MS, Math.min(25, lastChunkMs / 4));
    const started = performance.now();
    // Up to half a chunk's time for merging keeps pace with what the chunks add (without it the
    // trigram index's first level reaches its crisis merge every ~60 chunks of a retention pass:
    // docs/decisions/0005-fts-merges-off-the-write-path.md); the merging holds the write lock a step (≈ 8 ms) at a time,
    // back to back, and never this process's event loop.
    if (mergeIndex) await mergeIndex(Math.max(pause / 2, lastChunkMs / 2));
    // Then the lock stays free for a while before the next chunk: a pause that ended with the
    // merging handed the lock from the last merge step straight to the next chunk, and another
    // process's writer (retrying every MAX_LOCK_RETRY_MS at most) could miss hand-over after
    // hand-over (db/chunk-pause.test.ts).
    await sleep(Math.max(pause - (performance.now() - started), LOCK_FREE_WINDOW_MS));
  };
}

/** The pause without index merging (a rebuild merges its own segments; see SqliteSearchIndex). */
export function yieldBetweenChunks(dialect: Dialect, lastChunkMs = 0): Promise<void> {
  return chunkPause(dialect)(lastChunkMs);
}

/**
 * Sizes the next chunk from measured time, so a chunk stays near the budget whatever the row width,
 * the index size or the machine. It sizes by the slowest per-row cost of the last few chunks (one
 * quick chunk on a moment of idle CPU must not double the next one onto a busy moment), grows at
 * most ×1.5 per step and shrinks at once.
 */
export class ChunkSizer {
  private current: number;
  private readonly recent: number[] = [];

  constructor(
    initial: number,
    private readonly min: number,
    private readonly max: number,
    private readonly budgetMs = CHUNK_BUDGET_MS,
  ) {
    this.current = initial;
  }

  get size(): number {
    return this.current;
  }

  record(elapsedMs: number, rows: number): void {
    if (rows <= 0) return;
    this.recent.push(Math.max(elapsedMs, 0) / rows);
    if (this.recent.length > 8) this.recent.shift();
    const worst = Math.max(...this.recent);
    const ideal = worst <= 0 ? this.current * 1.5 : (this.budgetMs * 0.8) / worst;
    this.current = Math.round(Math.max(this.min, Math.min(this.max, ideal, this.current * 1.5)));
  }
}

/** One committed chunk of a long operation, as the chunk observers see it. */
export interface ChunkEvent {
  /** Which operation: `search-rebuild`, `search-merge`, `compaction`, `vacuum`, `fts-merge`, `deletion`, `import`, `branch`, `rewind`. */
  operation: string;
  /** From the start of the transaction to the end of its commit (the write lock on SQLite). */
  heldMs: number;
  /** Rows (or pages) the chunk handled. */
  rows: number;
  /** Time-boxed steps inside the chunk's transaction (1 for an operation sized up front). */
  steps: number;
  /**
   * Time spent in the transaction when its last step was started (the box's decision to start it):
   * a time-boxed chunk never starts a step once the box is spent, so this stays under its stop
   * threshold (`CHUNK_STOP_MS`).
   */
  lastStepStartMs: number;
}

const chunkObservers = new Set<(event: ChunkEvent) => void>();

/**
 * Observes every chunk a long operation commits in this process (metrics, tests proving the
 * chunking). Returns the function that stops observing.
 */
export function observeChunks(observer: (event: ChunkEvent) => void): () => void {
  chunkObservers.add(observer);
  return () => chunkObservers.delete(observer);
}

export function reportChunk(event: ChunkEvent): void {
  for (const observer of chunkObservers) {
    try {
      observer(event);
    } catch {
      // An observer never breaks the operation it watches.
    }
  }
}

/**
 * A time-boxed chunk stops starting steps once this much of its transaction has passed; with each
 * step sized to ≈ a quarter of the budget, the chunk ends near the budget even when a step runs
 * slower than the last (a merge inside FTS5, a busy machine) — bounded by elapsed time, not only
 * by a row count predicted from earlier chunks.
 */
export const CHUNK_STOP_MS = CHUNK_BUDGET_MS * 0.6;

export interface TimeBoxedResult {
  rows: number;
  steps: number;
  /** True when a step handled fewer rows than asked: nothing is left. */
  done: boolean;
  lastStepStartMs: number;
}

/**
 * Runs `step` repeatedly inside the caller's transaction, each step sized by `sizer` (aimed at a
 * fraction of the budget), until a step reports it ran out of work or `stopMs` has passed since
 * the box started. `step(limit)` does up to `limit` rows and returns how many it did.
 */
export async function timeBoxed(
  sizer: ChunkSizer,
  step: (limit: number) => Promise<number>,
  options: { stopMs?: number; now?: () => number } = {},
): Promise<TimeBoxedResult> {
  const now = options.now ?? (() => performance.now());
  const stopMs = options.stopMs ?? CHUNK_STOP_MS;
  const started = now();
  let rows = 0;
  let steps = 0;
  let lastStepStartMs = 0;
  // When the box last decided to start a step (0: the first). Reported rather than the step's own
  // start, which a process descheduled right after the decision (a busy machine) can push past the
  // box without the box having overrun anything.
  let decidedMs = 0;
  for (;;) {
    const limit = sizer.size;
    const stepStarted = now();
    lastStepStartMs = decidedMs;
    const did = await step(limit);
    sizer.record(now() - stepStarted, did);
    rows += did;
    steps++;
    if (did < limit) return { rows, steps, done: true, lastStepStartMs };
    decidedMs = now() - started;
    if (decidedMs >= stopMs) return { rows, steps, done: false, lastStepStartMs };
  }
}

/** Step sizes of a time-boxed chunk aim at this (a few steps per chunk). */
export const STEP_BUDGET_MS = CHUNK_BUDGET_MS / 4;
