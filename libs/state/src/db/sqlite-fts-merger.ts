import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../shared/logger.js';

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
 * inside one of its chunks (≈ 100–130 ms of write lock and event loop, measured on a retention
 * pass over 4 000 sessions).
 * A writer that finds the lock taken by a step waits at most one step (the dialect retries on
 * timers). Every process sharing the file runs one; two merge in turns, as two writers would.
 */
const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.driverPath);
const { path, tables, idleMs, busyIntervalMs, stepBudgetMs, pollMs, maxPages } = workerData;
const db = new Database(path, { fileMustExist: true });
db.pragma('busy_timeout = 0');
const dataVersion = db.prepare('pragma data_version').pluck();
const totalChanges = db.prepare('select total_changes()').pluck();
const begin = db.prepare('begin immediate');
const commit = db.prepare('commit');
const rollback = db.prepare('rollback');
const merges = new Map();
let version = dataVersion.get();
let changedAt = Date.now();
let lastStep = 0;
let pending = true;
// Milliseconds per row a merging step wrote (leaf pages and their index entries); 0 until measured.
let perRow = 0;

/** Pages a step may write to take about budgetMs. */
function pagesFor(budgetMs) {
  if (perRow === 0) return 64;
  return Math.round(Math.max(8, Math.min(maxPages * (budgetMs / stepBudgetMs), budgetMs / perRow)));
}

function mergeStatement(table) {
  let statement = merges.get(table);
  if (!statement) {
    statement = db.prepare('insert into ' + table + '(' + table + ", rank) values ('merge', ?)");
    merges.set(table, statement);
  }
  return statement;
}

/** One bounded step over every table: 'merged', 'done' (nothing left), 'busy' or 'failed'. */
function step(budgetMs) {
  const pages = pagesFor(budgetMs);
  const started = performance.now();
  try {
    begin.run();
  } catch {
    return 'busy';
  }
  let merged = false;
  let written = 0;
  try {
    for (const table of tables) {
      const before = totalChanges.get();
      mergeStatement(table).run(pages);
      const changes = totalChanges.get() - before;
      // Fewer than two changes: nothing was left to merge (FTS5's documented signal).
      if (changes >= 2) merged = true;
      written += changes;
    }
    commit.run();
  } catch {
    if (db.inTransaction) rollback.run();
    merges.clear();
    return 'failed';
  }
  if (merged) {
    // Sized by the rows the step really wrote (leaf pages and their index entries): a step that
    // ran out of work early says nothing about the cost of a full one. A step still ends at a
    // term boundary, so one common term's long doclist can take it past the budget.
    // The estimate falls at most by a third per step: one cheap step must not size the next one
    // 1.5× larger onto a moment when the machine is busy.
    const measured = Math.max(performance.now() - started, 0.05) / Math.max(written, 1);
    perRow = perRow === 0 ? measured : Math.max(measured, perRow / 1.5);
  }
  return merged ? 'merged' : 'done';
}

function tick() {
  let delay = pollMs;
  try {
    const now = Date.now();
    const current = dataVersion.get();
    if (current !== version) {
      version = current;
      changedAt = now;
      pending = true;
    }
    const idle = now - changedAt >= idleMs;
    if (pending && (idle || (busyIntervalMs > 0 && now - lastStep >= busyIntervalMs))) {
      const outcome = step(stepBudgetMs);
      if (outcome !== 'busy') lastStep = now;
      // Nothing left, or no index to merge (tables missing or being rebuilt): wait for the next write.
      if (outcome === 'done' || outcome === 'failed') pending = false;
      // While idle, keep going, with a pause a returning writer can take the lock in.
      else if (outcome === 'merged' && idle) delay = 2;
    }
  } catch {
    // A moment of recovery, a table being rebuilt: look again at the next tick.
  }
  setTimeout(tick, delay);
}
setTimeout(tick, pollMs);

// A long chunked write's pause between chunks (jobs/chunks.ts): merge now, quiet file or not, for
// at most budgetMs — the pauses are too short to look idle, and without this the levels its
// chunks fill reach crisismerge and one chunk pays a whole level's merge.
const PAUSE_STEP_MS = 8;
parentPort.on('message', (message) => {
  const started = performance.now();
  let outcome = 'done';
  let steps = 0;
  try {
    do {
      // Larger steps than when idle: the long write waits for this pause anyway; other writers
      // wait one step at most.
      outcome = step(Math.min(message.budgetMs, PAUSE_STEP_MS));
      steps++;
    } while (outcome === 'merged' && performance.now() - started < message.budgetMs);
    if (outcome === 'merged') pending = true;
  } catch {
    outcome = 'failed';
  }
  parentPort.postMessage({ id: message.id, outcome, steps });
});
`;

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

export class SqliteFtsMerger {
  private readonly worker: Worker;

  private closing = false;
  private stopped = false;
  private nextRequest = 0;
  private readonly waiting = new Map<number, () => void>();

  constructor(path: string, options: FtsMergerOptions = {}, logger?: Logger) {
    const driverPath = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        driverPath,
        path,
        tables: FTS_TABLES,
        idleMs: options.idleMs ?? 50,
        busyIntervalMs: options.busyIntervalMs ?? 0,
        stepBudgetMs: options.stepBudgetMs ?? 2,
        pollMs: options.pollMs ?? 10,
        maxPages: 512,
      },
    });
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
    this.worker.on('message', (message: { id: number }) => {
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
      this.worker.postMessage({ id, budgetMs });
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.worker.terminate().catch(() => undefined);
  }
}
