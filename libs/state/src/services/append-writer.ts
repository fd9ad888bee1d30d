import { Worker } from 'node:worker_threads';
import type { AppendMessagesCommand, AppendMessagesResponse } from '@statehouse/contracts';
import type { GroupCommitLimits } from '../db/sqlite-group-commit.js';
import type { SessionReopenedEvent } from '../domain/hook-registry.js';
import type { Clock } from '../shared/clock.js';
import type { OperationContext, Preconditions } from '../shared/context.js';
import { receiveError, type TransferredError } from '../shared/error-transfer.js';
import { StoreUnavailableError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';

/** One append, as it crosses to the writer's thread. */
export interface AppendJob {
  id: number;
  ctx: OperationContext;
  sessionId: string;
  command: AppendMessagesCommand;
  preconditions: Preconditions;
}

export type AppendReply =
  | { id: number; value: AppendMessagesResponse; recorded: boolean }
  | { id: number; error: TransferredError };

/** What the event loop sends the writer's thread (as JSON text, as every message between the two). */
export type ToAppendWorker =
  /** `now`: the store's clock when it is not the system clock (tests), read when the batch was sent. */
  { jobs: AppendJob[]; now?: number } | { close: true };

/** What the writer's thread sends back. */
export type FromAppendWorker =
  | { ready: true }
  | { closed: true }
  | {
      replies: AppendReply[];
      /** Its transactions since the last message: [held ms, requests] pairs (onWriteLock). */
      locks: number[];
      /** Its statements since the last message: [operation, ms, failed] triples (onQuery). */
      queries: (string | number | boolean)[];
    }
  | { log: { level: 'info' | 'warn' | 'error'; message: string; context?: Record<string, unknown> } }
  /** An append revived its session (committed): lifecycle observers live on the event loop. */
  | { reopened: SessionReopenedEvent };

export interface AppendWorkerData {
  path: string;
  lockTimeoutMs: number;
  groupCommit?: Partial<GroupCommitLimits>;
  /** Whether the store's clock is the system clock (else every batch carries `now`). */
  systemClock: boolean;
  observeQueries: boolean;
  observeLocks: boolean;
}

export interface AppendWriterOptions {
  path: string;
  lockTimeoutMs: number;
  groupCommit?: Partial<GroupCommitLimits>;
  /** The store's clock; null for the system clock (the thread reads its own). */
  clock: Clock | null;
  logger: Logger;
  onQuery?: (operation: string, durationMs: number, failed: boolean) => void;
  onWriteLock?: (heldMs: number, requests: number) => void;
  /** Every append on the thread, lone ones too (tests of the thread's path). */
  always?: boolean;
  /** An append on the thread revived its session, after its commit (the store's lifecycle observers). */
  onReopened?: (event: SessionReopenedEvent) => void;
}

/** What /metrics reports of the append writer. */
export interface AppendWriterStatus {
  /** Whether its thread is running now (false while a stopped thread is being replaced). */
  running: boolean;
  /** Appends answered by the thread, and by the event loop's own writer (one at a time). */
  onThread: number;
  inThread: number;
  /** Threads that stopped unexpectedly and were replaced. */
  restarts: number;
}

interface Pending {
  ctx: OperationContext;
  resolve(value: AppendMessagesResponse): void;
  reject(error: unknown): void;
}

/**
 * Most appends one message to the thread carries. Under load the event loop sends what arrived in
 * one turn, in slices of this size, so the thread commits a slice while the loop reads the next
 * requests; one batch of everything would make the two wait for each other in turn (measured in
 * docs/architecture.md, "The append writer").
 */
const MAX_BATCH = 8;
/**
 * Appends run here again once none has met another in flight for this long: a steady stream of
 * concurrent appenders keeps the thread busy even at the moments its answers have drained.
 */
const QUIET_MS = 50;
/** A thread that fails this soon after it started is not restarted at once (no restart loop). */
const RESTART_BACKOFF_MS = 1000;
const CLOSE_TIMEOUT_MS = 10_000;

/** The worker program: its compiled sibling, or under tsx when the store runs from its TypeScript source (tests). */
function workerProgram(): { source: string | URL; eval: boolean } {
  const fromSource = import.meta.url.endsWith('.ts');
  const url = new URL(`./append-writer.worker.${fromSource ? 'ts' : 'js'}`, import.meta.url);
  if (!fromSource) return { source: url, eval: false };
  return {
    source: `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(url.href)}); })`,
    eval: true,
  };
}

/**
 * Appends run on a thread of their own with its own write connection (SQLite files): the event
 * loop parses, authenticates and validates the request and answers it, the thread runs the unit
 * of work — the dedupe lookup, the counters' UPDATE, the INSERT, the idempotency record, the
 * group's search-index flush and COMMIT — on the other core (docs/architecture.md, "The append
 * writer"). The thread runs the same MessageService code as the event loop would, with group commit
 * on its connection, so each request keeps its own outcome; every answer is sent after its group's
 * COMMIT. Errors come back as the same domain errors. A thread that stops fails the appends it
 * held with `store_unavailable` (none was answered; some may have committed just before, as in a
 * crash) and is replaced.
 */
export class AppendWriter {
  readonly #options: AppendWriterOptions;
  readonly #pending = new Map<number, Pending>();
  #worker: Worker | null = null;
  #ready: Promise<void> = Promise.resolve();
  #startedAt = 0;
  #nextId = 1;
  /** Appends waiting for the end of this event-loop turn to be sent. */
  #queue: AppendJob[] = [];
  #sendScheduled = false;
  #closed = false;
  #closing: Promise<void> | null = null;
  /** Appends running on the event loop's own writer now. */
  #local = 0;
  #counts = { onThread: 0, inThread: 0, restarts: 0 };
  /** When an append last arrived while another was in flight (performance.now()). */
  #concurrentAt = Number.NEGATIVE_INFINITY;
  readonly #always: boolean;

  constructor(options: AppendWriterOptions) {
    this.#options = options;
    this.#always = options.always ?? false;
  }

  /** Starts the thread; resolves when it has opened its connection. */
  start(): Promise<void> {
    this.#spawn();
    return this.#ready;
  }

  /**
   * Where an append runs: here (`inThread`, the event loop's own writer) while appends come one
   * at a time — a lone request pays no hop to the thread and back (measured in
   * docs/decisions/0007-append-writer-thread.md) — and on the thread once they overlap, which is when the event loop has
   * requests of its own to read. Also here while the thread is being replaced.
   */
  append(
    ctx: OperationContext,
    sessionId: string,
    command: AppendMessagesCommand,
    preconditions: Preconditions,
    inThread: () => Promise<AppendMessagesResponse>,
  ): Promise<AppendMessagesResponse> {
    const now = performance.now();
    if (this.#pending.size > 0 || this.#local > 0) this.#concurrentAt = now;
    if (this.#closed || !this.#worker || (!this.#always && now - this.#concurrentAt > QUIET_MS)) {
      this.#local++;
      this.#counts.inThread++;
      return inThread().finally(() => {
        this.#local--;
      });
    }
    return this.#send(ctx, sessionId, command, preconditions);
  }

  #send(
    ctx: OperationContext,
    sessionId: string,
    command: AppendMessagesCommand,
    preconditions: Preconditions,
  ): Promise<AppendMessagesResponse> {
    return new Promise<AppendMessagesResponse>((resolve, reject) => {
      const id = this.#nextId++;
      const idle = this.#pending.size === 0;
      this.#pending.set(id, { ctx, resolve, reject });
      const job: AppendJob = {
        id,
        // Only what the unit of work reads; the caller's object keeps its own fields.
        ctx: { principal: ctx.principal, channel: ctx.channel, idempotency: ctx.idempotency, requestId: ctx.requestId },
        sessionId,
        command,
        preconditions,
      };
      // A lone request goes at once: it never waits for company.
      if (idle) return this.#post([job]);
      this.#queue.push(job);
      if (this.#queue.length >= MAX_BATCH) this.#flushQueue();
      else if (!this.#sendScheduled) {
        this.#sendScheduled = true;
        setImmediate(() => {
          this.#sendScheduled = false;
          this.#flushQueue();
        });
      }
    });
  }

  status(): AppendWriterStatus {
    return { running: this.#worker !== null, ...this.#counts };
  }

  /**
   * Stops the thread at once, as a crash would (tests): the appends it holds fail with
   * `store_unavailable`, and a new thread takes over.
   */
  async stopThread(): Promise<void> {
    const worker = this.#worker;
    if (!worker) return;
    const restarted = new Promise<void>((resolve) => {
      const check = () => (this.#worker && this.#worker !== worker ? resolve() : setTimeout(check, 5));
      worker.once('exit', check);
    });
    await worker.terminate();
    await restarted;
    await this.#ready;
  }

  /** Waits for the appends in flight, then stops the thread (its connection closes cleanly). */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    this.#closed = true;
    this.#flushQueue();
    const worker = this.#worker;
    if (!worker) return;
    const deadline = Date.now() + CLOSE_TIMEOUT_MS;
    while (this.#pending.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage(JSON.stringify({ close: true } satisfies ToAppendWorker));
    const timer = setTimeout(() => void worker.terminate(), CLOSE_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
    this.#fail(new StoreUnavailableError('the store is closed'));
  }

  #flushQueue(): void {
    if (this.#queue.length === 0) return;
    const jobs = this.#queue;
    this.#queue = [];
    this.#post(jobs);
  }

  #post(jobs: AppendJob[]): void {
    const worker = this.#worker;
    if (!worker) {
      for (const job of jobs) this.#settle(job.id, new StoreUnavailableError('the append writer stopped; retry later'));
      return;
    }
    worker.ref();
    const message: ToAppendWorker = this.#options.clock ? { jobs, now: this.#options.clock.now() } : { jobs };
    // As JSON text: a string crosses as a copy of its bytes, an object graph by V8's structured
    // clone, which cost several times as much for these small objects
    // (docs/decisions/0007-append-writer-thread.md).
    worker.postMessage(JSON.stringify(message));
  }

  #spawn(): void {
    const program = workerProgram();
    const { path, lockTimeoutMs, groupCommit, clock, onQuery, onWriteLock } = this.#options;
    const workerData: AppendWorkerData = {
      path,
      lockTimeoutMs,
      groupCommit,
      systemClock: clock === null,
      observeQueries: onQuery !== undefined,
      observeLocks: onWriteLock !== undefined,
    };
    const worker = new Worker(program.source, { eval: program.eval, workerData });
    this.#worker = worker;
    this.#startedAt = Date.now();
    worker.unref();
    let markReady!: () => void;
    let failStart!: (error: unknown) => void;
    this.#ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      failStart = reject;
    });
    // start() awaits it; a later restart's failure is reported through the appends it fails.
    this.#ready.catch(() => undefined);
    worker.on('message', (text: string) => {
      const message = JSON.parse(text) as FromAppendWorker;
      if ('replies' in message) this.#receive(message);
      else if ('ready' in message) markReady();
      else if ('log' in message) this.#options.logger[message.log.level](message.log.message, message.log.context);
      else if ('reopened' in message) this.#options.onReopened?.(message.reopened);
    });
    worker.on('error', (error) => {
      failStart(error);
      this.#options.logger.error('the append writer thread failed', { error: String(error) });
    });
    worker.on('exit', (code) => {
      if (this.#worker !== worker) return;
      this.#worker = null;
      failStart(new StoreUnavailableError(`the append writer thread stopped (exit code ${code})`));
      // Whatever it held was not acknowledged: those appends fail (a retry with the same
      // Idempotency-Key or platformMessageId is safe, as after a crash).
      this.#fail(new StoreUnavailableError('the append writer stopped; retry later'));
      if (this.#closed) return;
      this.#counts.restarts++;
      const wait = Math.max(0, RESTART_BACKOFF_MS - (Date.now() - this.#startedAt));
      if (wait === 0) this.#spawn();
      else setTimeout(() => !this.#closed && !this.#worker && this.#spawn(), wait).unref();
    });
  }

  #receive(message: Extract<FromAppendWorker, { replies: AppendReply[] }>): void {
    const { onQuery, onWriteLock } = this.#options;
    if (onWriteLock)
      for (let i = 0; i < message.locks.length; i += 2) onWriteLock(message.locks[i], message.locks[i + 1]);
    if (onQuery) {
      const q = message.queries;
      for (let i = 0; i < q.length; i += 3) onQuery(q[i] as string, q[i + 1] as number, q[i + 2] as boolean);
    }
    for (const reply of message.replies) {
      const pending = this.#pending.get(reply.id);
      if (!pending) continue;
      this.#pending.delete(reply.id);
      this.#counts.onThread++;
      if ('error' in reply) pending.reject(receiveError(reply.error));
      else {
        // The record was written in the append's transaction: the caller's claim is spent.
        if (reply.recorded && pending.ctx.idempotency) pending.ctx.idempotency.recorded = true;
        pending.resolve(reply.value);
      }
    }
    if (this.#pending.size === 0) this.#worker?.unref();
  }

  #settle(id: number, error: unknown): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    pending.reject(error);
  }

  #fail(error: unknown): void {
    this.#queue = [];
    for (const id of [...this.#pending.keys()]) this.#settle(id, error);
  }
}
