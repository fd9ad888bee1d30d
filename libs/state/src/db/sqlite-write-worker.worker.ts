import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { BatchResult, BatchStatement } from './sqlite-write-worker.js';

/** What the write worker gives its thread (db/sqlite-write-worker.ts). */
export interface WriteWorkerData {
  path: string;
  lockTimeoutMs: number;
  /** Longest pause between two attempts at the write lock (MAX_LOCK_RETRY_MS). */
  maxRetryMs: number;
  walSizeLimit: number;
  /** The search index's pending-rows statements (db/sqlite-search-pending.ts). */
  pendingAny: string;
  pendingFlush: readonly string[];
  /** A pattern of the error that says the pending table is not there yet. */
  pendingMissing: string;
}

/** One request to the thread. */
export type ToWriteWorker =
  | { id: number; op: 'begin' | 'commit' | 'rollback' | 'close' }
  | { id: number; op: 'batch'; statements: BatchStatement[] };

export type FromWriteWorker =
  | { id: number; result: unknown }
  | { id: number; error: { message: string; code?: string } };

/**
 * The write worker's thread (db/sqlite-write-worker.ts). Its connection waits for the write lock
 * the way the store's writer does: busy_timeout 0 and a BUSY `BEGIN IMMEDIATE` retried on timers
 * until the lock timeout — so it never sits inside SQLite's busy handler, and another writer that
 * finds the lock free takes it between two tries.
 */
const data = workerData as WriteWorkerData;
const port = parentPort!;
const db = new Database(data.path, { fileMustExist: true });
db.pragma('busy_timeout = 0');
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');
// Checkpoints belong to the checkpointer's worker, as for the store's own writer.
db.pragma('wal_autocheckpoint = 0');
// As the store's writer (db/connect.ts): a WAL this worker restarts is cut back to the limit.
db.pragma(`journal_size_limit = ${data.walSizeLimit}`);
const statements = new Map<string, Database.Statement>();
function prepare(sql: string): Database.Statement {
  let statement = statements.get(sql);
  if (!statement) {
    statement = db.prepare(sql);
    if (statements.size >= 100) statements.delete(statements.keys().next().value!);
    statements.set(sql, statement);
  }
  return statement;
}
type Failure = { message?: unknown; code?: string } | null;
// Messages this transaction inserted are indexed before its COMMIT, as on the store's writer
// (db/sqlite-search-pending.ts; nothing to do before migration 2026-12-01T06.00).
function flushSearchPending(): void {
  try {
    if (prepare(data.pendingAny).get() === undefined) return;
  } catch (error) {
    if (new RegExp(data.pendingMissing).test(String((error as Failure)?.message))) return;
    throw error;
  }
  for (const sql of data.pendingFlush) prepare(sql).run();
}
const isBusy = (error: unknown) => String((error as Failure)?.code).startsWith('SQLITE_BUSY');
function reply(id: number, result: unknown): void {
  port.postMessage({ id, result } satisfies FromWriteWorker);
}
function fail(id: number, error: unknown): void {
  const failure = error as Failure;
  port.postMessage({ id, error: { message: String(failure?.message), code: failure?.code } } satisfies FromWriteWorker);
}
function begin(id: number): void {
  const deadline = performance.now() + data.lockTimeoutMs;
  let round = 0;
  const attempt = () => {
    try {
      db.prepare('begin immediate').run();
      reply(id, null);
    } catch (error) {
      if (!isBusy(error) || performance.now() >= deadline) return fail(id, error);
      setTimeout(attempt, Math.min(data.maxRetryMs, 1 + (round++ >> 1)));
    }
  };
  attempt();
}
function batch(id: number, list: BatchStatement[]): void {
  try {
    const results: BatchResult[] = [];
    for (const item of list) {
      const parameters = (item.parameters ?? []).map((p) => {
        const ref = (p as { ref?: unknown } | null)?.ref;
        return p !== null && typeof p === 'object' && Array.isArray(ref)
          ? (results[ref[0]].rows[0]?.[ref[1]] ?? null)
          : p;
      });
      const statement = prepare(item.sql);
      if (item.rows) results.push({ rows: statement.all(parameters) as Record<string, unknown>[] });
      else {
        statement.run(parameters);
        results.push({ rows: [] });
      }
    }
    reply(id, results);
  } catch (error) {
    fail(id, error);
  }
}
port.on('message', (job: ToWriteWorker) => {
  if (job.op === 'begin') return begin(job.id);
  if (job.op === 'batch') return batch(job.id, job.statements);
  try {
    if (job.op === 'commit') {
      flushSearchPending();
      db.prepare('commit').run();
    } else if (job.op === 'rollback') {
      if (db.inTransaction) db.prepare('rollback').run();
    } else if (job.op === 'close') {
      db.close();
    }
    reply(job.id, null);
  } catch (error) {
    fail(job.id, error);
  }
});
