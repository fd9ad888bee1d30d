import type { Worker } from 'node:worker_threads';
import type { Logger } from '../shared/logger.js';
import { startWorker } from '../shared/worker-program.js';
import type { FtsMergerWorkerData, MergeAnswer, MergeRequest } from './sqlite-fts-merger.worker.js';

export interface FtsMergerOptions {
  /** The file has been quiet (no commit by another connection) this long: merge freely. */
  idleMs?: number;
  /** Under writes that never pause, one step this often (0, the default: only when idle). */
  busyIntervalMs?: number;
  /** What one step (one transaction) aims to take. */
  stepBudgetMs?: number;
  /** How often the worker looks at the file's data_version. */
  pollMs?: number;
}

export const FTS_TABLES = ['messages_fts', 'messages_trgm'] as const;

/**
 * FTS5 segment merges on a worker thread, between writes (docs/search.md, "Index segments and
 * merging"). Since migration 2026-11-30T06.30 the search tables have `automerge = 0`: an append
 * writes its own small segment and never merges; only a write that finds `crisismerge` (64)
 * segments on one level merges that level itself. This worker, on its own connection, does the
 * rest with FTS5's `merge` command (a level is merged once it holds `usermerge` = 4 segments):
 * when the file has been quiet for `idleMs` (no other connection committed), it merges in steps
 * of about `stepBudgetMs`, each its own short transaction, until nothing is left. Under writes that
 * never pause it leaves the levels to the writes' own crisis merges (64 segments of the first
 * level: about a millisecond) — by default: `busyIntervalMs` > 0 makes it take a step that often
 * anyway, which measured worse (a step ends only at a term boundary, so a step on a large level
 * holds the lock for as long as one common term's doclist takes to write, and appends wait for it;
 * docs/search.md). `busy_timeout = 0`: it never waits for the write lock — a writer holding it
 * means "not idle". A long chunked write (a retention pass, a bulk delete, a compaction's rest)
 * never leaves the file quiet that long, so it asks for steps in its pauses (`mergeNow`): the
 * levels its chunks fill are merged a few segments at a time instead of by a crisis merge of 64
 * inside one of its chunks (≈ 100–130 ms of write lock and event loop in a retention pass over
 * 4 000 sessions; docs/decisions/0005-fts-merges-off-the-write-path.md).
 * A writer that finds the lock taken by a step waits at most one step (the dialect retries on
 * timers). Every process sharing the file runs one; two merge in turns, as two writers would.
 * The thread's program is db/sqlite-fts-merger.worker.ts.
 */
export class SqliteFtsMerger {
  private readonly worker: Worker;

  private closing = false;
  private stopped = false;
  private nextRequest = 0;
  private readonly waiting = new Map<number, () => void>();

  constructor(path: string, options: FtsMergerOptions = {}, logger?: Logger) {
    const workerData: FtsMergerWorkerData = {
      path,
      tables: FTS_TABLES,
      idleMs: options.idleMs ?? 50,
      busyIntervalMs: options.busyIntervalMs ?? 0,
      stepBudgetMs: options.stepBudgetMs ?? 2,
      pollMs: options.pollMs ?? 10,
      maxPages: 512,
    };
    this.worker = startWorker(import.meta.url, 'sqlite-fts-merger.worker', { workerData });
    this.worker.unref();
    // A worker that cannot open the file leaves merges to the maintenance job and crisis merges:
    // search keeps working, only slower as segments pile up — so say so once, never silently.
    // 'error' is followed by 'exit' (code 1): one stop, said once.
    let said = false;
    const stopped = (reason: string) => {
      if (said) return;
      said = true;
      logger?.warn('search-index merger stopped: segments are merged by writes and the maintenance job only', {
        path,
        reason,
      });
    };
    this.worker.on('error', (error) => stopped(error.message));
    this.worker.on('exit', (code) => {
      this.stopped = true;
      for (const answer of this.waiting.values()) answer();
      this.waiting.clear();
      if (!this.closing && code !== 0) stopped(`worker exited with code ${code}`);
    });
    this.worker.on('message', (message: MergeAnswer) => {
      this.waiting.get(message.id)?.();
      this.waiting.delete(message.id);
    });
  }

  /**
   * Merge steps now for up to `budgetMs` (each step its own short transaction on the worker's
   * connection), whether or not the file is quiet: what a long chunked write runs in its pauses.
   * Resolves when the worker has answered — or soon after the budget if it does not (a stopped
   * worker never holds a long operation up).
   */
  mergeNow(budgetMs: number): Promise<void> {
    if (this.closing || this.stopped) return Promise.resolve();
    const id = ++this.nextRequest;
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        resolve();
      }, budgetMs + 250);
      this.waiting.set(id, () => {
        clearTimeout(timer);
        resolve();
      });
      this.worker.postMessage({ id, budgetMs } satisfies MergeRequest);
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.worker.terminate().catch(() => undefined);
  }
}
