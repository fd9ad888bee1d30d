import type { JobRun } from '@statehouse/contracts';
import type { BetweenChunks } from '../db/chunks.js';
import type { Db } from '../db/database.js';
import type { UnitOfWork } from '../db/unit-of-work.js';
import { JobRunRepository } from '../repositories/job-run.repository.js';
import { assertAdmin } from '../shared/access.js';
import { type Clock, toIso, toIsoOrNull } from '../shared/clock.js';
import type { OperationContext } from '../shared/context.js';
import { DomainError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { toDomainError } from '../shared/store-errors.js';

/** What a job's pass reports (kept as the interval's summary). */
export type JobSummary = Record<string, unknown>;

export interface JobContext {
  /** The interval this pass serves: [start, end) in epoch ms. */
  readonly interval: { start: number; end: number };
  readonly holder: string;
  readonly attempt: number;
  /** Aborted when the process shuts down or the lease is lost. */
  readonly signal: AbortSignal;
  /**
   * Call between chunks: renews the lease when due, throws if the interval was taken over (this
   * process stalled past its lease) or the process is stopping, and yields to the event loop.
   */
  checkpoint(lastChunkMs?: number): Promise<void>;
}

export interface JobDefinition {
  name: string;
  /** Length of an interval in ms; the job runs once per interval across all processes. 0 disables it. */
  intervalMs: number;
  /** How long a claim lasts without renewal; a crashed holder's interval is free again after it. */
  leaseMs?: number;
  run(context: JobContext): Promise<JobSummary | undefined>;
}

export type JobOutcome = 'ran' | 'failed' | 'served' | 'busy' | 'lost';

export interface JobPassReport {
  job: string;
  intervalStart: number;
  outcome: JobOutcome;
  attempt?: number;
  durationMs?: number;
  summary?: JobSummary;
  error?: string;
}

export const DEFAULT_JOB_LEASE_MS = 2 * 60 * 1000;
/** Job records are kept this long (and at least 20 intervals), then purged by the job itself. */
const RUN_HISTORY_MS = 7 * 24 * 60 * 60 * 1000;

export class JobLeaseLostError extends DomainError {
  constructor(job: string) {
    super('conflict', `job ${job}: the interval's lease was lost`);
  }
}

/**
 * One scheduler for every periodic job (retention, sweeps, index maintenance, purges, backups):
 * time is cut into intervals aligned to the epoch, and each (job, interval) is claimed by exactly
 * one process through a row in `job_runs`. A process that wakes in an interval already served
 * does nothing; one that crashed mid-pass leaves a lease that expires, after which any process
 * finishes the interval. The host (the API) only calls `tick` on a timer.
 */
export class JobService {
  private readonly runs = new JobRunRepository();
  private readonly jobs = new Map<string, JobDefinition>();
  private readonly running = new Map<string, Promise<JobPassReport>>();
  private readonly stopping = new AbortController();
  private observer: ((report: JobPassReport) => void) | undefined;

  constructor(
    private readonly db: Db,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** The pause a pass takes at each checkpoint (between its chunks). */
    private readonly between: BetweenChunks,
  ) {}

  /** Adds (or replaces, by name) a job. Modules register theirs; the host sets the intervals. */
  register(definition: JobDefinition): void {
    this.jobs.set(definition.name, definition);
  }

  /** Sets a registered job's interval (0 disables it). */
  configure(name: string, intervalMs: number, leaseMs?: number): void {
    const job = this.jobs.get(name);
    if (!job) throw new Error(`unknown job ${name}`);
    this.jobs.set(name, { ...job, intervalMs, leaseMs: leaseMs ?? job.leaseMs });
  }

  definitions(): JobDefinition[] {
    return [...this.jobs.values()];
  }

  /** Hears every pass's outcome (metrics). */
  observe(observer: (report: JobPassReport) => void): void {
    this.observer = observer;
  }

  /**
   * Starts every enabled job whose current interval is unserved (a job already running in this
   * process is left alone) and resolves when the passes started here have finished.
   */
  async tick(holder: string): Promise<JobPassReport[]> {
    const started: Promise<JobPassReport>[] = [];
    for (const job of this.jobs.values()) {
      if (job.intervalMs <= 0 || this.running.has(job.name) || this.stopping.signal.aborted) continue;
      const pass = this.runIfDue(job, holder).finally(() => this.running.delete(job.name));
      this.running.set(job.name, pass);
      started.push(pass);
    }
    return Promise.all(started);
  }

  /** Runs one job's current interval if nobody has served it (tests, the CLI). */
  async runNow(name: string, holder: string): Promise<JobPassReport> {
    const job = this.jobs.get(name);
    if (!job) throw new Error(`unknown job ${name}`);
    return this.runIfDue(job, holder);
  }

  async recent(ctx: OperationContext, limit = 50, job?: string): Promise<JobRun[]> {
    assertAdmin(ctx.principal);
    try {
      const rows = await this.runs.recent(this.db, limit, job);
      return rows.map((row) => ({
        job: row.job,
        intervalStart: toIso(row.intervalStart),
        intervalEnd: toIso(row.intervalEnd),
        status: row.status,
        holder: row.holder,
        attempts: row.attempts,
        startedAt: toIso(row.startedAt),
        finishedAt: toIsoOrNull(row.finishedAt),
        leaseExpiresAt: toIso(row.leaseExpiresAt),
        summary: row.summary,
        error: row.error,
      }));
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /** Stops starting passes, asks running ones to stop at their next checkpoint, and waits for them. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await Promise.allSettled([...this.running.values()]);
  }

  private async runIfDue(job: JobDefinition, holder: string): Promise<JobPassReport> {
    const now = this.clock.now();
    const intervalStart = Math.floor(now / job.intervalMs) * job.intervalMs;
    const intervalEnd = intervalStart + job.intervalMs;
    const leaseMs = job.leaseMs ?? DEFAULT_JOB_LEASE_MS;
    const report = (outcome: JobOutcome, extra: Partial<JobPassReport> = {}): JobPassReport => {
      const result = { job: job.name, intervalStart, outcome, ...extra };
      if (outcome === 'ran' || outcome === 'failed' || outcome === 'lost') this.observer?.(result);
      return result;
    };
    // A read first: replicas waking in a served interval never take the write lock.
    const existing = await this.runs.find(this.db, job.name, intervalStart);
    if (existing?.status === 'done') return report('served');
    if (existing && existing.leaseExpiresAt > now) return report('busy');
    if (await this.runs.earlierRunning(this.db, job.name, intervalStart, now)) return report('busy');
    const attempt = await this.uow.run(null, (tx) =>
      this.runs.claim(tx.db, { job: job.name, intervalStart, intervalEnd, holder, now, leaseMs }),
    );
    if (attempt === null) return report('busy');

    const lease = new AbortController();
    const abortOnStop = () => lease.abort();
    this.stopping.signal.addEventListener('abort', abortOnStop, { once: true });
    let lastRenew = now;
    let lost = false;
    const renew = async (): Promise<void> => {
      const at = this.clock.now();
      const kept = await this.uow.run(null, (tx) =>
        this.runs.renew(tx.db, job.name, intervalStart, holder, at + leaseMs),
      );
      lastRenew = at;
      if (!kept) {
        lost = true;
        lease.abort();
      }
    };
    // Renewed on a timer too, so a pass awaiting one long step (a backup) keeps its interval.
    const timer = setInterval(() => void renew().catch(() => undefined), Math.max(1000, leaseMs / 3));
    timer.unref();
    const context: JobContext = {
      interval: { start: intervalStart, end: intervalEnd },
      holder,
      attempt,
      signal: lease.signal,
      checkpoint: async (lastChunkMs?: number) => {
        if (this.clock.now() - lastRenew >= leaseMs / 3) await renew();
        if (lost) throw new JobLeaseLostError(job.name);
        if (lease.signal.aborted) throw new JobLeaseLostError(job.name);
        await this.between(lastChunkMs);
      },
    };
    const started = performance.now();
    try {
      const summary = (await job.run(context)) ?? {};
      const finishedAt = this.clock.now();
      const kept = await this.uow.run(null, async (tx) => {
        const finished = await this.runs.finish(tx.db, job.name, intervalStart, holder, finishedAt, summary);
        if (finished) {
          await this.runs.purgeBefore(tx.db, job.name, finishedAt - Math.max(RUN_HISTORY_MS, 20 * job.intervalMs));
        }
        return finished;
      });
      const durationMs = performance.now() - started;
      if (!kept) return report('lost', { attempt, durationMs });
      return report('ran', { attempt, durationMs, summary });
    } catch (error) {
      const durationMs = performance.now() - started;
      if (lost || error instanceof JobLeaseLostError) {
        this.logger.warn(`job ${job.name}: stopped, its interval's lease was lost or the process is stopping`);
        return report('lost', { attempt, durationMs });
      }
      const message = String((error as Error)?.message ?? error);
      // The driver's own error behind a `store_unavailable` (SQLITE_BUSY after the lock timeout, an
      // I/O error, a lost connection) is what an operator needs to act on: log it with the message.
      const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
      this.logger.error(`job ${job.name} failed`, {
        error: message,
        ...(cause ? { cause: `${cause.code ?? ''} ${String(cause.message ?? cause)}`.trim() } : {}),
        interval: toIso(intervalStart),
      });
      // Retried within the same interval, by any process, after a pause.
      const failedAt = this.clock.now();
      const retryAt = failedAt + Math.min(Math.max(job.intervalMs / 10, 5000), 5 * 60 * 1000);
      await this.uow
        .run(null, (tx) => this.runs.fail(tx.db, job.name, intervalStart, holder, failedAt, retryAt, message))
        .catch(() => undefined);
      return report('failed', { attempt, durationMs, error: message });
    } finally {
      clearInterval(timer);
      this.stopping.signal.removeEventListener('abort', abortOnStop);
    }
  }
}
