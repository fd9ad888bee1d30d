import type { Worker } from 'node:worker_threads';
import { CompiledQuery } from 'kysely';
import { startWorker } from '../shared/worker-program.js';
import { WAL_SIZE_LIMIT_BYTES } from './connect.js';
import type { Db } from './database.js';
import { MAX_LOCK_RETRY_MS } from './sqlite-driver.js';
import { SEARCH_PENDING_ANY, SEARCH_PENDING_FLUSH, SEARCH_PENDING_TABLE } from './sqlite-search-pending.js';
import type { FromWriteWorker, ToWriteWorker, WriteWorkerData } from './sqlite-write-worker.worker.js';

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

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

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
 * these chunks ran on it, docs/decisions/0010-write-worker-for-long-background-writes.md). The worker takes the write lock like any other
 * writer (the store's own writes in this process wait for it on their timers, as for another
 * process's transaction). One transaction at a time. Its program is
 * db/sqlite-write-worker.worker.ts.
 */
export class SqliteWriteWorker implements BatchWriter {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: unknown): void }>();
  private nextId = 1;
  private failure: Error | null = null;

  constructor(path: string, lockTimeoutMs: number) {
    const workerData: WriteWorkerData = {
      path,
      lockTimeoutMs,
      maxRetryMs: MAX_LOCK_RETRY_MS,
      walSizeLimit: WAL_SIZE_LIMIT_BYTES,
      pendingAny: SEARCH_PENDING_ANY,
      pendingFlush: SEARCH_PENDING_FLUSH,
      pendingMissing: `no such table: (main\\.)?${SEARCH_PENDING_TABLE}\\b`,
    };
    this.worker = startWorker(import.meta.url, 'sqlite-write-worker.worker', { workerData });
    this.worker.on('message', (message: FromWriteWorker) => {
      const call = this.pending.get(message.id);
      if (!call) return;
      this.pending.delete(message.id);
      if ('error' in message)
        call.reject(Object.assign(new Error(message.error.message), { code: message.error.code }));
      else call.resolve(message.result);
    });
    // 'error' is followed by 'exit': every call still waiting fails with the first reason.
    const stopped = (error: Error) => {
      this.failure ??= error;
      for (const call of this.pending.values()) call.reject(this.failure);
      this.pending.clear();
    };
    this.worker.on('error', stopped);
    this.worker.on('exit', (code) => stopped(new Error(`the write worker exited with code ${code}`)));
  }

  private call<T>(message: DistributiveOmit<ToWriteWorker, 'id'>): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ ...message, id } as ToWriteWorker);
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
