import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The SQLite WAL checkpointer of this process (absent on PostgreSQL). */
export interface CheckpointFigures {
  failures: number;
  busy: number;
  truncations: number;
  failing: boolean;
}

/** The append writer's thread (absent when appends run on the event loop only). */
export interface AppendWriterFigures {
  running: boolean;
  onThread: number;
  inThread: number;
  restarts: number;
}

/** What a scrape reads from the store at that moment, beside this process's own counters. */
export interface ScrapeSources {
  checkpoints?: CheckpointFigures | null;
  appendWriter?: AppendWriterFigures | null;
  /**
   * Due wake-ups no gateway may fire (docs/domain.md §13.3), per profile: the state now, across
   * every process. Null when the store could not answer (the gauge is then left empty).
   */
  unroutableDue?: readonly { profile: string; count: number }[] | null;
}

/**
 * The API's Prometheus metrics (prom-client), with Node's process metrics (`process_*`,
 * `nodejs_*`). Series are this process's own except the figures a scrape reads from the store.
 */
export class MetricsRegistry {
  readonly registry = new Registry();
  private sources: ScrapeSources = {};

  private readonly requests = new Counter({
    name: 'statehouse_http_requests_total',
    help: 'HTTP requests by route and status.',
    labelNames: ['method', 'route', 'status'],
    registers: [this.registry],
  });
  private readonly requestDurations = new Histogram({
    name: 'statehouse_http_request_duration_seconds',
    help: 'HTTP request latency.',
    labelNames: ['method', 'route'],
    buckets: BUCKETS,
    registers: [this.registry],
  });
  private readonly storeDurations = new Histogram({
    name: 'statehouse_store_query_duration_seconds',
    help: 'Store query timings by operation.',
    labelNames: ['operation'],
    buckets: BUCKETS,
    registers: [this.registry],
  });
  private readonly storeErrors = new Counter({
    name: 'statehouse_store_query_errors_total',
    help: 'Store queries that failed.',
    registers: [this.registry],
  });
  private readonly jobPasses = new Counter({
    name: 'statehouse_job_passes_total',
    help: 'Scheduled job passes run by this process, by outcome.',
    labelNames: ['job', 'outcome'],
    registers: [this.registry],
  });
  private readonly jobDurations = new Histogram({
    name: 'statehouse_job_duration_seconds',
    help: 'Scheduled job pass durations.',
    labelNames: ['job'],
    buckets: BUCKETS,
    registers: [this.registry],
  });
  private readonly writeLocks = new Histogram({
    name: 'statehouse_store_write_lock_seconds',
    help: 'SQLite: how long each transaction of this process held the write lock.',
    buckets: BUCKETS,
    registers: [this.registry],
  });
  // Their ratio is the mean group size of group commit (docs/architecture.md).
  private readonly writeTransactions = new Counter({
    name: 'statehouse_store_write_transactions_total',
    help: 'SQLite: write transactions of this process.',
    registers: [this.registry],
  });
  private readonly groupedRequests = new Counter({
    name: 'statehouse_store_group_commit_requests_total',
    help: 'SQLite: requests committed by those transactions (group commit).',
    registers: [this.registry],
  });

  /**
   * The labelled series of the hot paths (every request, every query), found by a plain key:
   * prom-client would otherwise hash the label object on each call.
   */
  private readonly requestSeries = new Map<string, { count: Counter.Internal; duration: Histogram.Internal<string> }>();
  private readonly storeSeries = new Map<string, Histogram.Internal<string>>();

  /** Registered on the first scrape that has them: a PostgreSQL store has no checkpointer, for one. */
  // Counters there are totals the source keeps: each scrape sets them (reset, then add the total).
  private checkpointMetricsRegistered = false;
  private appendWriterMetricsRegistered = false;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    const sources = () => this.sources;
    new Gauge({
      name: 'statehouse_schedules_unroutable_due',
      help: 'Due, active scheduled wake-ups whose session no route points at (never fired; counted up to 10000 per profile).',
      labelNames: ['profile'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const { profile, count } of sources().unroutableDue ?? []) this.set({ profile }, count);
      },
    });
  }

  /** A scheduled job's pass in this process: ran, failed, or lost its interval to another process. */
  recordJobPass(job: string, outcome: string, milliseconds: number) {
    this.jobPasses.inc({ job, outcome });
    this.jobDurations.observe({ job }, milliseconds / 1000);
  }

  /** SQLite: how long a (shared) transaction of this process held the write lock, and how many requests it committed. */
  recordWriteLock(milliseconds: number, requests = 1) {
    this.writeLocks.observe(milliseconds / 1000);
    this.writeTransactions.inc();
    this.groupedRequests.inc(requests);
  }

  /** On every request: method, route and status joined by a character none of them holds. */
  recordRequest(method: string, route: string, status: number, seconds: number) {
    const key = `${method}\u0000${route}\u0000${status}`;
    let series = this.requestSeries.get(key);
    if (!series) {
      series = {
        count: this.requests.labels(method, route, String(status)),
        duration: this.requestDurations.labels(method, route),
      };
      this.requestSeries.set(key, series);
    }
    series.count.inc();
    series.duration.observe(seconds);
  }

  /** On every query: keyed by the operation alone. */
  recordStoreOperation(kind: string, seconds: number, failed: boolean) {
    let series = this.storeSeries.get(kind);
    if (!series) {
      series = this.storeDurations.labels(kind);
      this.storeSeries.set(kind, series);
    }
    series.observe(seconds);
    if (failed) this.storeErrors.inc();
  }

  /** The Prometheus text exposition of every metric, with the figures read from `sources` now. */
  async render(sources: ScrapeSources = {}): Promise<string> {
    this.sources = sources;
    if (sources.checkpoints && !this.checkpointMetricsRegistered) this.registerCheckpointMetrics();
    if (sources.appendWriter && !this.appendWriterMetricsRegistered) this.registerAppendWriterMetrics();
    return this.registry.metrics();
  }

  private registerCheckpointMetrics() {
    this.checkpointMetricsRegistered = true;
    const figures = () => this.sources.checkpoints;
    const total = (name: string, help: string, read: (checkpoints: CheckpointFigures) => number) =>
      new Counter({
        name,
        help,
        registers: [this.registry],
        collect() {
          const checkpoints = figures();
          this.reset();
          if (checkpoints) this.inc(read(checkpoints));
        },
      });
    total(
      'statehouse_sqlite_checkpoint_failures_total',
      'WAL checkpoints of this process that failed.',
      (c) => c.failures,
    );
    total(
      'statehouse_sqlite_checkpoint_busy_total',
      'WAL checkpoint rounds skipped while another connection checkpointed.',
      (c) => c.busy,
    );
    total(
      'statehouse_sqlite_wal_truncations_total',
      'WAL files this process emptied after they grew past 64 MiB.',
      (c) => c.truncations,
    );
    new Gauge({
      name: 'statehouse_sqlite_checkpoint_failing',
      help: '1 while the latest WAL checkpoint round failed.',
      registers: [this.registry],
      collect() {
        this.set(figures()?.failing ? 1 : 0);
      },
    });
  }

  private registerAppendWriterMetrics() {
    this.appendWriterMetricsRegistered = true;
    const figures = () => this.sources.appendWriter;
    new Counter({
      name: 'statehouse_sqlite_appends_total',
      help: 'SQLite: appends by where they ran (the append writer thread, or the event loop when one at a time).',
      labelNames: ['thread'],
      registers: [this.registry],
      collect() {
        const writer = figures();
        this.reset();
        if (!writer) return;
        this.inc({ thread: 'append_writer' }, writer.onThread);
        this.inc({ thread: 'event_loop' }, writer.inThread);
      },
    });
    new Counter({
      name: 'statehouse_sqlite_append_writer_restarts_total',
      help: 'Append writer threads that stopped and were replaced.',
      registers: [this.registry],
      collect() {
        const writer = figures();
        this.reset();
        if (writer) this.inc(writer.restarts);
      },
    });
    new Gauge({
      name: 'statehouse_sqlite_append_writer_running',
      help: '1 while the append writer thread runs.',
      registers: [this.registry],
      collect() {
        this.set(figures()?.running ? 1 : 0);
      },
    });
  }
}
