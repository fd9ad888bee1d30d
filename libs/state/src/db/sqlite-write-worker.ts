import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { CompiledQuery } from 'kysely';
import { WAL_SIZE_LIMIT_BYTES } from './connect.js';
import type { Db } from './database.js';
import { MAX_LOCK_RETRY_MS } from './sqlite-dialect.js';
import { SEARCH_PENDING_ANY, SEARCH_PENDING_FLUSH, SEARCH_PENDING_TABLE } from './sqlite-search-pending.js';

/**
 * One statement of a batch. `rows`: a query whose rows are wanted (otherwise it is run for its
 * effect). A parameter `{ ref: [i, column] }` stands for `column` of the first row of statement
 * `i` of the same batch, so a step whose statements depend on each other is one round trip.
 */
export interface BatchStatement {
  sql: string;
  parameters?: readonly (unknown | { ref: [number, string] })[];
  rows?: boolean;
}
export interface BatchResult {
  rows: Record<string, unknown>[];
}
/** Runs a batch inside the caller's write transaction. */
export type Batch = (statements: BatchStatement[]) => Promise<BatchResult[]>;

/** Write transactions of statement batches: on a worker's connection, or on the store's own. */
export interface BatchWriter {
  transaction<T>(work: (batch: Batch) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * The worker's program (plain JavaScript evaluated by `new Worker(…, {eval: true})`, so it runs the
 * same from the TypeScript sources and from dist, like the read pool, the checkpointer and the FTS
 * merger). Its connection waits for the write lock the way the store's writer does: busy_timeout 0
 * and a BUSY `BEGIN IMMEDIATE` retried on timers until the lock timeout — so it never sits inside
 * SQLite's busy handler, and another writer that finds the lock free takes it between two tries.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driverPath);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('busy_timeout = 0');
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');
// Checkpoints belong to the checkpointer's worker, as for the store's own writer.
db.pragma('wal_autocheckpoint = 0');
// As the store's writer (db/connect.ts): a WAL this worker restarts is cut back to the limit.
db.pragma('journal_size_limit = ' + workerData.walSizeLimit);
const statements = new Map();
function prepare(sql) {
  let statement = statements.get(sql);
  if (!statement) {
    statement = db.prepare(sql);
    if (statements.size >= 100) statements.delete(statements.keys().next().value);
    statements.set(sql, statement);
  }
  return statement;
}
// Messages this transaction inserted are indexed before its COMMIT, as on the store's writer
// (db/sqlite-search-pending.ts; nothing to do before migration 2026-12-01T06.00).
function flushSearchPending() {
  try {
    if (prepare(workerData.pendingAny).get() === undefined) return;
  } catch (error) {
    if (new RegExp(workerData.pendingMissing).test(String(error && error.message))) return;
    throw error;
  }
  for (const sql of workerData.pendingFlush) prepare(sql).run();
}
const isBusy = (error) => String(error && error.code).startsWith('SQLITE_BUSY');
function reply(id, result) { parentPort.postMessage({ id, result }); }
function fail(id, error) {
  parentPort.postMessage({ id, error: { message: String(error && error.message), code: error && error.code } });
}
function begin(id) {
  const deadline = performance.now() + workerData.lockTimeoutMs;
  let round = 0;
  const attempt = () => {
    try {
      db.prepare('begin immediate').run();
      reply(id, null);
    } catch (error) {
      if (!isBusy(error) || performance.now() >= deadline) return fail(id, error);
      setTimeout(attempt, Math.min(workerData.maxRetryMs, 1 + (round++ >> 1)));
    }
  };
  attempt();
}
function batch(id, list) {
  try {
    const results = [];
    for (const item of list) {
      const parameters = (item.parameters || []).map((p) =>
        p !== null && typeof p === 'object' && Array.isArray(p.ref) ? (results[p.ref[0]].rows[0] || {})[p.ref[1]] ?? null : p);
      const statement = prepare(item.sql);
      if (item.rows) results.push({ rows: statement.all(parameters) });
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
parentPort.on('message', (job) => {
  if (job.op === 'begin') return begin(job.id);
  if (job.op === 'batch') return batch(job.id, job.statements);
  try {
    if (job.op === 'commit') {
      flushSearchPending();
      db.prepare('commit').run();
    }
    else if (job.op === 'rollback') { if (db.inTransaction) db.prepare('rollback').run(); }
    else if (job.op === 'close') { db.close(); }
    reply(job.id, null);
  } catch (error) {
    fail(job.id, error);
  }
});
`;

function resolveRefs(statement: BatchStatement, results: BatchResult[]): unknown[] {
  return (statement.parameters ?? []).map((parameter) => {
    const ref = (parameter as { ref?: [number, string] } | null)?.ref;
    return parameter !== null && typeof parameter === 'object' && Array.isArray(ref)
      ? (results[ref[0]].rows[0]?.[ref[1]] ?? null)
      : parameter;
  });
}

/**
 * A long-lived worker thread with its own write connection to the store's file, for long
 * operations made of many short write transactions (the search-index rebuild, docs/search.md):
 * every statement of theirs runs on the worker, so this process's event loop only sends batches
 * and receives results — it never executes their SQL nor waits in a syscall of their writes (WAL
 * writes slowed by the kernel's dirty-page writeback held the event loop for hundreds of ms when
 * these chunks ran on it, docs/operations.md). The worker takes the write lock like any other
 * writer (the store's own writes in this process wait for it on their timers, as for another
 * process's transaction). One transaction at a time.
 */
export class SqliteWriteWorker implements BatchWriter {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: unknown): void }>();
  private nextId = 1;
  private failure: Error | null = null;

  constructor(path: string, lockTimeoutMs: number) {
    const driverPath = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        driverPath,
        path,
        lockTimeoutMs,
        maxRetryMs: MAX_LOCK_RETRY_MS,
        walSizeLimit: WAL_SIZE_LIMIT_BYTES,
        pendingAny: SEARCH_PENDING_ANY,
        pendingFlush: SEARCH_PENDING_FLUSH,
        pendingMissing: `no such table: (main\\.)?${SEARCH_PENDING_TABLE}\\b`,
      },
    });
    this.worker.on(
      'message',
      (message: { id: number; result?: unknown; error?: { message: string; code?: string } }) => {
        const call = this.pending.get(message.id);
        if (!call) return;
        this.pending.delete(message.id);
        if (message.error) call.reject(Object.assign(new Error(message.error.message), { code: message.error.code }));
        else call.resolve(message.result);
      },
    );
    // 'error' is followed by 'exit': every call still waiting fails with the first reason.
    const stopped = (error: Error) => {
      this.failure ??= error;
      for (const call of this.pending.values()) call.reject(this.failure);
      this.pending.clear();
    };
    this.worker.on('error', stopped);
    this.worker.on('exit', (code) => stopped(new Error(`the write worker exited with code ${code}`)));
  }

  private call<T>(message: Record<string, unknown>): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ ...message, id });
    });
  }

  async transaction<T>(work: (batch: Batch) => Promise<T>): Promise<T> {
    await this.call({ op: 'begin' });
    let result: T;
    try {
      result = await work((statements) => this.call<BatchResult[]>({ op: 'batch', statements }));
    } catch (error) {
      await this.call({ op: 'rollback' }).catch(() => undefined);
      throw error;
    }
    try {
      await this.call({ op: 'commit' });
    } catch (error) {
      await this.call({ op: 'rollback' }).catch(() => undefined);
      throw error;
    }
    return result;
  }

  async close(): Promise<void> {
    await this.call({ op: 'close' }).catch(() => undefined);
    await this.worker.terminate().catch(() => undefined);
  }
}

/**
 * The same batches on the store's own write connection: for `:memory:` (a worker cannot open it)
 * and the tests that watch the store's writer.
 */
export class MainThreadBatchWriter implements BatchWriter {
  constructor(private readonly db: Db) {}

  transaction<T>(work: (batch: Batch) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) =>
      work(async (statements) => {
        const results: BatchResult[] = [];
        for (const statement of statements) {
          const { rows } = await trx.executeQuery(
            CompiledQuery.raw(statement.sql, resolveRefs(statement, results) as unknown[]),
          );
          results.push({ rows: statement.rows ? (rows as Record<string, unknown>[]) : [] });
        }
        return results;
      }),
    );
  }

  async close(): Promise<void> {}
}
