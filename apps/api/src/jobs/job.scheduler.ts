import { resolve } from 'node:path';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  DEFERRED_WORK_JOB,
  IDEMPOTENCY_PURGE_JOB,
  INDEX_MAINTENANCE_JOB,
  LIVENESS_SWEEP_JOB,
  RETENTION_JOB,
  type StateStore,
} from '@statehouse/state';
import { PROCESS_HOLDER } from '../common/process-holder.js';
import { API_CONFIG, STATE_STORE } from '../common/tokens.js';
import { type ApiConfig, DEFERRED_WORK_INTERVAL_SECONDS } from '../config.js';
import { MetricsRegistry } from '../metrics/metrics.registry.js';

/**
 * The one scheduling style of every periodic job: this runner only looks, every tick, for jobs
 * whose current interval nobody has served; the state layer's job leases make each interval run
 * in exactly one process across all replicas (SQLite processes on one file, or API replicas on
 * one PostgreSQL database). Jobs are defined by their modules in the state layer; the intervals
 * come from configuration here.
 */
@Injectable()
export class JobScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Jobs');
  private timer: NodeJS.Timeout | undefined;
  private first: NodeJS.Timeout | undefined;
  private startupSweep: Promise<unknown> | undefined;

  constructor(
    @Inject(STATE_STORE) private readonly store: StateStore,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    private readonly metrics: MetricsRegistry,
  ) {}

  onApplicationBootstrap(): void {
    const config = this.config;
    const ms = (seconds: number) => Math.round(seconds * 1000);
    this.store.jobs.configure(RETENTION_JOB, ms(config.retentionIntervalSeconds));
    this.store.jobs.configure(IDEMPOTENCY_PURGE_JOB, ms(config.idempotencyPurgeIntervalSeconds));
    this.store.jobs.configure(INDEX_MAINTENANCE_JOB, ms(config.maintenanceIntervalSeconds));
    this.store.jobs.configure(DEFERRED_WORK_JOB, ms(DEFERRED_WORK_INTERVAL_SECONDS));
    this.store.jobs.configure(LIVENESS_SWEEP_JOB, ms(config.sweepIntervalSeconds));
    if (config.backupIntervalSeconds > 0) {
      this.store.jobs.register(
        this.store.backups.job({
          intervalMs: ms(config.backupIntervalSeconds),
          directory: resolve(config.backupDirectory),
          keep: config.backupKeep,
        }),
      );
    }
    this.store.jobs.observe((report) => this.metrics.recordJobPass(report.job, report.outcome, report.durationMs ?? 0));
    if (!config.runJobs) return;
    if (config.sweepIntervalSeconds > 0) {
      // Each process sweeps once at start-up (docs/domain.md §10.3), even when another process has
      // served the current interval: what a crash left open is ended now, not an interval later.
      this.startupSweep = this.store.gateways
        .sweep(PROCESS_HOLDER)
        .catch((error) => this.logger.warn(`start-up liveness sweep failed: ${String(error)}`));
    }
    // A rebuild a crashed process left half-done continues here if nobody else has taken it.
    void this.store.searchIndex
      .resumeAbandoned(PROCESS_HOLDER)
      .catch((error) => this.logger.warn(`cannot resume a search index rebuild: ${String(error)}`));
    // Looked at often enough that the shortest enabled interval is served near its start.
    const shortest = Math.min(
      ...this.store.jobs
        .definitions()
        .map((job) => job.intervalMs)
        .filter((interval) => interval > 0),
    );
    const tickMs = config.jobTickSeconds !== undefined ? ms(config.jobTickSeconds) : Math.min(15_000, shortest / 2);
    // Replicas started together should not all look at the same instant: a random first delay.
    this.first = setTimeout(() => this.tick(), Math.random() * Math.min(tickMs, 2000));
    this.first.unref();
    this.timer = setInterval(() => this.tick(), tickMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearTimeout(this.first);
    clearInterval(this.timer);
    await this.startupSweep;
    // Running passes stop at their next checkpoint; an unfinished interval is taken over later.
    await this.store.jobs.stop();
  }

  /** Starts the due jobs; a job still running in this process (a long backup) is left alone. */
  private tick(): void {
    void this.store.jobs.tick(PROCESS_HOLDER).catch((error) => this.logger.warn(`job tick failed: ${String(error)}`));
  }
}
