import { MessageChannel, type MessagePort, receiveMessageOnPort, type Worker } from 'node:worker_threads';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { DeadlineExceededError, StoreUnavailableError } from '../shared/errors.js';
import { startWorker } from '../shared/worker-program.js';
import type { ReadJob, ReadReply, ReadWorkerData } from './sqlite-read-pool.worker.js';

export interface ReadPoolOptions {
  path: string;
  /** Worker threads (each with its own connection). */
  size: number;
  /** Default deadline of a read, in ms. */
  deadlineMs: number;
  busyTimeoutMs?: number;
}

interface Job {
  id: number;
  sql: string;
  parameters: readonly unknown[];
  deadlineMs: number;
  deadlineAt: number;
  resolve(rows: unknown[]): void;
  reject(error: unknown): void;
  timer?: NodeJS.Timeout;
  slot?: Slot;
}

interface Slot {
  worker: Worker;
  /** The worker's answers. */
  replies: MessagePort;
  job: Job | null;
}

type Reply = ReadReply;

/** Grace after the deadline for the worker to stop by itself before it is abandoned. */
const ABANDON_GRACE_MS = 25;

/**
 * Heavy reads (lists, search, export, lineage) on worker threads, each with its own read-only
 * SQLite connection, so a slow query never holds the API's event loop and every read has a
 * deadline that is kept: at the deadline the caller gets `deadline_exceeded` and, if the worker
 * has not stopped by itself, it is terminated and replaced. better-sqlite3 cannot interrupt a
 * statement from outside, so a terminated worker's thread may finish its statement in the
 * background; at most `2 × size` such threads are tolerated before reads fail fast.
 */
export class SqliteReadPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private abandoned = 0;
  private closed = false;

  constructor(private readonly options: ReadPoolOptions) {}

  get deadlineMs(): number {
    return this.options.deadlineMs;
  }

  /** Threads given up on at their deadline that have not exited yet (diagnostics, tests). */
  get abandonedThreads(): number {
    return this.abandoned;
  }

  run(sql: string, parameters: readonly unknown[], deadlineMs = this.options.deadlineMs): Promise<unknown[]> {
    if (this.closed) return Promise.reject(new StoreUnavailableError('the store is closed'));
    if (this.abandoned >= this.options.size * 2) {
      return Promise.reject(
        new DeadlineExceededError(deadlineMs, 'earlier reads are still running past their deadline'),
      );
    }
    return new Promise((resolve, reject) => {
      const job: Job = {
        id: this.nextId++,
        sql,
        parameters,
        deadlineMs,
        deadlineAt: Date.now() + deadlineMs,
        resolve,
        reject,
      };
      // Left referenced: a read in flight keeps the process alive (as a socket would) until it is
      // settled; the worker and its reply port are unreferenced, so an idle pool does not.
      job.timer = setTimeout(() => this.expire(job), deadlineMs + ABANDON_GRACE_MS);
      this.queue.push(job);
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) this.settle(job, new StoreUnavailableError('the store is closed'));
    const slots = this.slots.splice(0);
    for (const slot of slots) if (slot.job) this.settle(slot.job, new StoreUnavailableError('the store is closed'));
    for (const slot of slots) slot.replies.close();
    await Promise.all(slots.map((slot) => slot.worker.terminate().catch(() => undefined)));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((candidate) => candidate.job === null);
      if (!slot && this.slots.length < this.options.size) slot = this.spawn();
      if (!slot) return;
      const job = this.queue.shift()!;
      slot.job = job;
      job.slot = slot;
      const read: ReadJob = { id: job.id, sql: job.sql, parameters: job.parameters, deadlineAt: job.deadlineAt };
      slot.worker.postMessage(read);
    }
  }

  private spawn(): Slot {
    const { port1: replies, port2 } = new MessageChannel();
    const workerData: ReadWorkerData = {
      path: this.options.path,
      busyTimeoutMs: this.options.busyTimeoutMs ?? 5000,
      replies: port2,
    };
    const worker = startWorker(import.meta.url, 'sqlite-read-pool.worker', { workerData, transferList: [port2] });
    worker.unref();
    const slot: Slot = { worker, replies, job: null };
    replies.on('message', (reply: Reply) => this.answer(slot, reply));
    replies.unref();
    worker.on('error', (error) => {
      // The worker could not open the database (or crashed): its job fails, a new one replaces it.
      const job = slot.job;
      this.remove(slot);
      if (job) this.settle(job, error);
      this.dispatch();
    });
    this.slots.push(slot);
    return slot;
  }

  private answer(slot: Slot, reply: Reply): void {
    const job = slot.job;
    if (reply.id === undefined || !job || job.id !== reply.id) return;
    slot.job = null;
    job.slot = undefined;
    if (reply.error) {
      const error =
        reply.error.code === 'STATEHOUSE_DEADLINE'
          ? new DeadlineExceededError(job.deadlineMs)
          : Object.assign(new Error(reply.error.message), { code: reply.error.code });
      this.settle(job, error);
    } else this.settle(job, null, reply.rows ?? []);
    this.dispatch();
  }

  private remove(slot: Slot): void {
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
    slot.replies.close();
  }

  private expire(job: Job): void {
    const queued = this.queue.indexOf(job);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      this.settle(job, new DeadlineExceededError(job.deadlineMs));
      return;
    }
    const slot = job.slot;
    if (!slot) return;
    // The worker may have answered already — stopped by itself at the deadline, or just finished —
    // with the answer still queued: a main thread busy past the grace runs due timers before it
    // reads messages. Read what is there first; a thread that answered is not abandoned.
    for (let queued = receiveMessageOnPort(slot.replies); queued; queued = receiveMessageOnPort(slot.replies)) {
      this.answer(slot, queued.message as Reply);
    }
    if (job.slot !== slot) return;
    // Still inside SQLite past the deadline: give up on the thread and start a fresh one.
    this.remove(slot);
    slot.job = null;
    this.abandoned++;
    slot.worker.once('exit', () => {
      this.abandoned--;
    });
    void slot.worker.terminate().catch(() => undefined);
    this.settle(job, new DeadlineExceededError(job.deadlineMs));
    // Start the replacement now: a thread's start-up would otherwise count against the next read.
    if (!this.closed && this.slots.length < this.options.size) this.spawn();
    this.dispatch();
  }

  private settle(job: Job, error: unknown, rows?: unknown[]): void {
    clearTimeout(job.timer);
    if (error) job.reject(error);
    else job.resolve(rows ?? []);
  }
}

/** A Kysely dialect over the read pool: read-only statements, no transactions. */
export class SqliteReadPoolDialect implements Dialect {
  constructor(private readonly pool: SqliteReadPool) {}
  createDriver(): Driver {
    return new ReadPoolDriver(this.pool);
  }
  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }
  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}

class ReadPoolDriver implements Driver {
  private readonly connection: DatabaseConnection;
  constructor(pool: SqliteReadPool) {
    this.connection = {
      async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
        return { rows: (await pool.run(compiledQuery.sql, compiledQuery.parameters)) as R[] };
      },
      // biome-ignore lint/correctness/useYield: streaming is not used; fail loudly if someone tries.
      async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
        throw new Error('streaming is not supported by the read pool');
      },
    };
  }
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return this.connection;
  }
  async beginTransaction(): Promise<void> {
    throw new Error('the read pool does not run transactions');
  }
  async commitTransaction(): Promise<void> {}
  async rollbackTransaction(): Promise<void> {}
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {}
}
