import type { Dialect } from '../db/database.js';

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
 * Between two chunks: let this process's event loop run (requests, health checks) and, on SQLite,
 * leave the write lock free long enough for a writer in another process (which retries every few
 * milliseconds) to take it.
 */
export async function yieldBetweenChunks(dialect: Dialect, lastChunkMs = 0): Promise<void> {
  if (dialect === 'sqlite') await sleep(Math.max(8, Math.min(25, lastChunkMs / 4)));
  else await new Promise<void>((resolve) => setImmediate(resolve));
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
