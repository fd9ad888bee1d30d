/** Prometheus text exposition for a handful of counters and histograms — no dependency needed. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

class Histogram {
  readonly counts = new Array<number>(BUCKETS.length).fill(0);
  sum = 0;
  count = 0;
  /** Counts the first bucket that holds the value; `cumulative` adds them up when rendering. */
  observe(seconds: number) {
    this.sum += seconds;
    this.count++;
    for (let i = 0; i < BUCKETS.length; i++) {
      if (seconds <= BUCKETS[i]) {
        this.counts[i]++;
        return;
      }
    }
  }
  cumulative(): number[] {
    let running = 0;
    return this.counts.map((count) => (running += count));
  }
}

const escapeLabel = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const labelText = (labels: Record<string, string>) =>
  `{${Object.entries(labels)
    .map(([key, value]) => `${key}="${escapeLabel(value)}"`)
    .join(',')}}`;

export class MetricsRegistry {
  private readonly requests = new Map<string, { labels: Record<string, string>; value: number }>();
  private readonly requestDurations = new Map<string, { labels: Record<string, string>; histogram: Histogram }>();
  private readonly storeDurations = new Map<string, { labels: Record<string, string>; histogram: Histogram }>();
  private storeErrors = 0;
  private readonly jobPasses = new Map<string, { labels: Record<string, string>; value: number }>();
  private readonly jobDurations = new Map<string, { labels: Record<string, string>; histogram: Histogram }>();
  private readonly writeLocks = new Histogram();
  private writeTransactions = 0;
  private groupedRequests = 0;

  /** A scheduled job's pass in this process: ran, failed, or lost its interval to another process. */
  recordJobPass(job: string, outcome: string, milliseconds: number) {
    const labels = { job, outcome };
    const key = labelText(labels);
    const counter = this.jobPasses.get(key) ?? { labels, value: 0 };
    counter.value++;
    this.jobPasses.set(key, counter);
    const durationKey = labelText({ job });
    const entry = this.jobDurations.get(durationKey) ?? { labels: { job }, histogram: new Histogram() };
    entry.histogram.observe(milliseconds / 1000);
    this.jobDurations.set(durationKey, entry);
  }

  /** SQLite: how long a (shared) transaction of this process held the write lock, and how many requests it committed. */
  recordWriteLock(milliseconds: number, requests = 1) {
    this.writeLocks.observe(milliseconds / 1000);
    this.writeTransactions++;
    this.groupedRequests += requests;
  }

  /**
   * On every request: the series are found by a plain key (method, route and status joined by a
   * character none of them holds), labels are built and escaped only when a series first appears.
   */
  recordRequest(method: string, route: string, status: number, seconds: number) {
    const durationKey = `${method}\u0000${route}`;
    const key = `${durationKey}\u0000${status}`;
    let counter = this.requests.get(key);
    if (!counter) {
      counter = { labels: { method, route, status: String(status) }, value: 0 };
      this.requests.set(key, counter);
    }
    counter.value++;
    let entry = this.requestDurations.get(durationKey);
    if (!entry) {
      entry = { labels: { method, route }, histogram: new Histogram() };
      this.requestDurations.set(durationKey, entry);
    }
    entry.histogram.observe(seconds);
  }

  /** On every query: keyed by the operation alone. */
  recordStoreOperation(kind: string, seconds: number, failed: boolean) {
    let entry = this.storeDurations.get(kind);
    if (!entry) {
      entry = { labels: { operation: kind }, histogram: new Histogram() };
      this.storeDurations.set(kind, entry);
    }
    entry.histogram.observe(seconds);
    if (failed) this.storeErrors++;
  }

  /**
   * `checkpoints`: the SQLite WAL checkpointer of this process (absent on PostgreSQL);
   * `appendWriter`: its append writer's thread (absent when appends run on the event loop only).
   */
  render(
    checkpoints?: { failures: number; busy: number; truncations: number; failing: boolean } | null,
    appendWriter?: { running: boolean; onThread: number; inThread: number; restarts: number } | null,
  ): string {
    const lines: string[] = [];
    lines.push('# HELP statehouse_http_requests_total HTTP requests by route and status.');
    lines.push('# TYPE statehouse_http_requests_total counter');
    for (const { labels, value } of this.requests.values())
      lines.push(`statehouse_http_requests_total${labelText(labels)} ${value}`);
    this.renderHistograms(
      lines,
      'statehouse_http_request_duration_seconds',
      'HTTP request latency.',
      this.requestDurations,
    );
    this.renderHistograms(
      lines,
      'statehouse_store_query_duration_seconds',
      'Store query timings by operation.',
      this.storeDurations,
    );
    lines.push('# HELP statehouse_store_query_errors_total Store queries that failed.');
    lines.push('# TYPE statehouse_store_query_errors_total counter');
    lines.push(`statehouse_store_query_errors_total ${this.storeErrors}`);
    lines.push('# HELP statehouse_job_passes_total Scheduled job passes run by this process, by outcome.');
    lines.push('# TYPE statehouse_job_passes_total counter');
    for (const { labels, value } of this.jobPasses.values())
      lines.push(`statehouse_job_passes_total${labelText(labels)} ${value}`);
    this.renderHistograms(lines, 'statehouse_job_duration_seconds', 'Scheduled job pass durations.', this.jobDurations);
    this.renderHistograms(
      lines,
      'statehouse_store_write_lock_seconds',
      'SQLite: how long each transaction of this process held the write lock.',
      new Map([['', { labels: {}, histogram: this.writeLocks }]]),
    );
    // Their ratio is the mean group size of group commit (docs/architecture.md).
    lines.push('# HELP statehouse_store_write_transactions_total SQLite: write transactions of this process.');
    lines.push('# TYPE statehouse_store_write_transactions_total counter');
    lines.push(`statehouse_store_write_transactions_total ${this.writeTransactions}`);
    lines.push(
      '# HELP statehouse_store_group_commit_requests_total SQLite: requests committed by those transactions (group commit).',
    );
    lines.push('# TYPE statehouse_store_group_commit_requests_total counter');
    lines.push(`statehouse_store_group_commit_requests_total ${this.groupedRequests}`);
    if (checkpoints) {
      lines.push('# HELP statehouse_sqlite_checkpoint_failures_total WAL checkpoints of this process that failed.');
      lines.push('# TYPE statehouse_sqlite_checkpoint_failures_total counter');
      lines.push(`statehouse_sqlite_checkpoint_failures_total ${checkpoints.failures}`);
      lines.push(
        '# HELP statehouse_sqlite_checkpoint_busy_total WAL checkpoint rounds skipped while another connection checkpointed.',
      );
      lines.push('# TYPE statehouse_sqlite_checkpoint_busy_total counter');
      lines.push(`statehouse_sqlite_checkpoint_busy_total ${checkpoints.busy}`);
      lines.push(
        '# HELP statehouse_sqlite_wal_truncations_total WAL files this process emptied after they grew past 64 MiB.',
      );
      lines.push('# TYPE statehouse_sqlite_wal_truncations_total counter');
      lines.push(`statehouse_sqlite_wal_truncations_total ${checkpoints.truncations}`);
      lines.push('# HELP statehouse_sqlite_checkpoint_failing 1 while the latest WAL checkpoint round failed.');
      lines.push('# TYPE statehouse_sqlite_checkpoint_failing gauge');
      lines.push(`statehouse_sqlite_checkpoint_failing ${checkpoints.failing ? 1 : 0}`);
    }
    if (appendWriter) {
      lines.push(
        '# HELP statehouse_sqlite_appends_total SQLite: appends by where they ran (the append writer thread, or the event loop when one at a time).',
      );
      lines.push('# TYPE statehouse_sqlite_appends_total counter');
      lines.push(`statehouse_sqlite_appends_total{thread="append_writer"} ${appendWriter.onThread}`);
      lines.push(`statehouse_sqlite_appends_total{thread="event_loop"} ${appendWriter.inThread}`);
      lines.push(
        '# HELP statehouse_sqlite_append_writer_restarts_total Append writer threads that stopped and were replaced.',
      );
      lines.push('# TYPE statehouse_sqlite_append_writer_restarts_total counter');
      lines.push(`statehouse_sqlite_append_writer_restarts_total ${appendWriter.restarts}`);
      lines.push('# HELP statehouse_sqlite_append_writer_running 1 while the append writer thread runs.');
      lines.push('# TYPE statehouse_sqlite_append_writer_running gauge');
      lines.push(`statehouse_sqlite_append_writer_running ${appendWriter.running ? 1 : 0}`);
    }
    return `${lines.join('\n')}\n`;
  }

  private renderHistograms(
    lines: string[],
    name: string,
    help: string,
    entries: Map<string, { labels: Record<string, string>; histogram: Histogram }>,
  ) {
    lines.push(`# HELP ${name} ${help}`);
    lines.push(`# TYPE ${name} histogram`);
    for (const { labels, histogram } of entries.values()) {
      const counts = histogram.cumulative();
      BUCKETS.forEach((bucket, index) => {
        lines.push(`${name}_bucket${labelText({ ...labels, le: String(bucket) })} ${counts[index]}`);
      });
      lines.push(`${name}_bucket${labelText({ ...labels, le: '+Inf' })} ${histogram.count}`);
      lines.push(`${name}_sum${labelText(labels)} ${histogram.sum}`);
      lines.push(`${name}_count${labelText(labels)} ${histogram.count}`);
    }
  }
}
