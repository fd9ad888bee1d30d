import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/** What the merger gives its thread (db/sqlite-fts-merger.ts). */
export interface FtsMergerWorkerData {
  path: string;
  tables: readonly string[];
  idleMs: number;
  busyIntervalMs: number;
  stepBudgetMs: number;
  pollMs: number;
  maxPages: number;
}

/** A long chunked write's pause: merge steps now, for at most `budgetMs`. */
export interface MergeRequest {
  id: number;
  budgetMs: number;
}

/** One bounded step over every table: 'merged', 'done' (nothing left), 'busy' or 'failed'. */
type MergeOutcome = 'merged' | 'done' | 'busy' | 'failed';

export interface MergeAnswer {
  id: number;
  outcome: MergeOutcome;
  steps: number;
}

/** The FTS5 merger's thread (db/sqlite-fts-merger.ts). */
const { path, tables, idleMs, busyIntervalMs, stepBudgetMs, pollMs, maxPages } = workerData as FtsMergerWorkerData;
const port = parentPort!;
const db = new Database(path, { fileMustExist: true });
db.pragma('busy_timeout = 0');
const dataVersion = db.prepare<[], number>('pragma data_version').pluck();
const totalChanges = db.prepare<[], number>('select total_changes()').pluck();
const begin = db.prepare('begin immediate');
const commit = db.prepare('commit');
const rollback = db.prepare('rollback');
const merges = new Map<string, Database.Statement<[number]>>();
let version = dataVersion.get();
let changedAt = Date.now();
let lastStep = 0;
let pending = true;
// Milliseconds per row a merging step wrote (leaf pages and their index entries); 0 until measured.
let perRow = 0;

/** Pages a step may write to take about budgetMs. */
function pagesFor(budgetMs: number): number {
  if (perRow === 0) return 64;
  return Math.round(Math.max(8, Math.min(maxPages * (budgetMs / stepBudgetMs), budgetMs / perRow)));
}

function mergeStatement(table: string): Database.Statement<[number]> {
  let statement = merges.get(table);
  if (!statement) {
    statement = db.prepare<[number]>(`insert into ${table}(${table}, rank) values ('merge', ?)`);
    merges.set(table, statement);
  }
  return statement;
}

/** One bounded step over every table: 'merged', 'done' (nothing left), 'busy' or 'failed'. */
function step(budgetMs: number): MergeOutcome {
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
      const changes = totalChanges.get()! - before!;
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

function tick(): void {
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

// A long chunked write's pause between chunks (db/chunks.ts): merge now, quiet file or not, for
// at most budgetMs — the pauses are too short to look idle, and without this the levels its
// chunks fill reach crisismerge and one chunk pays a whole level's merge.
const PAUSE_STEP_MS = 8;
port.on('message', (message: MergeRequest) => {
  const started = performance.now();
  let outcome: MergeOutcome = 'done';
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
  port.postMessage({ id: message.id, outcome, steps } satisfies MergeAnswer);
});
