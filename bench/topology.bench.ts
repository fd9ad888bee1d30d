import {
  copyFileSync,
  createReadStream,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { BULK_DELETE_MAX } from '@statehouse/contracts';
import { HermesFixture, SCENARIO_T0, syntheticSqliteStore } from '@statehouse/state/testing';
import Database from 'better-sqlite3';
import type { BenchConfig } from './lib/config.js';
import { describeLevels, FTS_INDEXES, ftsLevels } from './lib/fts-structure.js';
import { type ApiServer, buildApi, createToken, startApi } from './lib/http.js';
import { fmtCount, fmtMs, log, type Report } from './lib/report.js';
import { createPgDatabase, openRawSqlite, scratchDir } from './lib/stores.js';
import { percentile } from './lib/timing.js';

/**
 * Several API processes on one database (figures 13–15): how fast a deletion committed by one
 * replica reaches a receipt watcher on another, whether /healthz stalls while one process runs a
 * long background job on a SQLite file, and appends/s through several replicas.
 */

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const p = (values: number[], q: number) => percentile(sorted(values), q);
const max = (values: number[]) => values.reduce((a, b) => Math.max(a, b), 0);

interface Call {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies of several shapes.
  body: any;
}

function caller(token: string) {
  // A stream (an uploaded file) goes as it is, with the content-type `headers` give: a Buffer body
  // held this process's event loop 0.4–0.5 s for 30 MiB (undici), which every probe timed here shows.
  return async (base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const stream = body instanceof ReadableStream;
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : stream ? body : JSON.stringify(body),
      ...(stream ? { duplex: 'half' as const } : {}),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined } as Call;
  };
}

const urlOf = (server: ApiServer) => `http://127.0.0.1:${server.port}`;

async function startReplicas(
  root: string,
  databaseUrl: string,
  count: number,
  env: Record<string, string> | ((index: number) => Record<string, string>) = {},
  nodeArgs: string[] = [],
) {
  const envOf = (index: number) => (typeof env === 'function' ? env(index) : env);
  const first = await startApi(root, databaseUrl, nodeArgs, envOf(0));
  const rest = await Promise.all(
    Array.from({ length: count - 1 }, (_, i) => startApi(root, databaseUrl, nodeArgs, envOf(i + 1))),
  );
  return [first, ...rest];
}

const LOOP_PROBE = fileURLToPath(new URL('./lib/loop-probe.mjs', import.meta.url));

/** The longest event-loop gap a process's probe saw in [from, to] (epoch ms), and its time on a CPU. */
/**
 * The longest event-loop gap of a process during the job, with its time on a CPU and waiting for
 * one (the rest of a gap: the main thread asleep in a system call — I/O, a lock).
 */
function loopStalls(
  file: string,
  from: number,
  to: number,
): { gap: number; onCpu: number; waiting: number; worstOnCpu: number } {
  if (!existsSync(file)) return { gap: 0, onCpu: 0, waiting: 0, worstOnCpu: 0 };
  let gap = 0;
  let onCpu = 0;
  let waiting = 0;
  let worstOnCpu = 0;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const [end, ms, cpu, wait] = line.split(' ').map(Number);
    if (!Number.isFinite(end) || !Number.isFinite(cpu) || end - ms < from || end > to) continue;
    if (ms > gap) {
      gap = ms;
      onCpu = cpu;
      waiting = Number.isFinite(wait) ? wait : 0;
    }
    worstOnCpu = Math.max(worstOnCpu, cpu);
  }
  return { gap, onCpu, waiting, worstOnCpu };
}

/** Server-sent events with their arrival time (performance.now() and the wall clock). */
async function* sse(response: Response): AsyncGenerator<{ event: string; data: string; at: number; wall: number }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    const at = performance.now();
    const wall = Date.now();
    buffer += decoder.decode(value, { stream: true });
    let index = buffer.indexOf('\n\n');
    while (index >= 0) {
      const block = buffer.slice(0, index);
      buffer = buffer.slice(index + 2);
      yield {
        event: /^event: (.*)$/m.exec(block)?.[1] ?? '',
        data: /^data: (.*)$/m.exec(block)?.[1] ?? '',
        at,
        wall,
      };
      index = buffer.indexOf('\n\n');
    }
  }
}

/** Figure 11: a replica deletes; watchers on the others time each receipt's arrival. */
async function watchDelayOn(
  dialect: string,
  root: string,
  databaseUrl: string,
  replicas: number,
  deletes: number,
): Promise<{ fromWrite: number[]; fromRequest: number[]; fromAnswer: number[] }> {
  const servers = await startReplicas(root, databaseUrl, replicas);
  const token = createToken(root, databaseUrl);
  const call = caller(token);
  const [writer, ...watched] = servers.map(urlOf);
  try {
    const start = (await call(writer, 'GET', '/v1/deletion-receipts?after=0&limit=1')).body.highWater as number;
    const watchers = watched.map((base) => {
      const abort = new AbortController();
      const arrivals = new Map<string, number>();
      const sinceWrite = new Map<string, number>();
      let ready: () => void = () => undefined;
      const bookmarked = new Promise<void>((resolve) => {
        ready = resolve;
      });
      const done = (async () => {
        const response = await fetch(`${base}/v1/deletion-receipts/watch?after=${start}`, {
          headers: { authorization: `Bearer ${token}` },
          signal: abort.signal,
        });
        try {
          for await (const { event, data, at, wall } of sse(response)) {
            if (event === 'bookmark') ready();
            if (event === 'receipt') {
              const receipt = JSON.parse(data) as { operationId: string; createdAt: string };
              arrivals.set(receipt.operationId, at);
              // Same machine, same clock: from the moment the receipt was written (just before commit).
              sinceWrite.set(receipt.operationId, wall - Date.parse(receipt.createdAt));
            }
          }
        } catch {
          // aborted
        }
      })();
      return { abort, arrivals, sinceWrite, bookmarked, done };
    });
    await Promise.all(watchers.map((watcher) => watcher.bookmarked));
    const requested = new Map<string, number>();
    const answered = new Map<string, number>();
    for (let i = 0; i < deletes; i++) {
      const id = `watched-${dialect.replace(/[^A-Za-z0-9]+/g, '-')}-${i}`;
      const created = await call(writer, 'POST', '/v1/sessions', {
        id,
        profile: 'bench',
        source: 'cli',
        messages: [{ role: 'user', content: id }],
      });
      const sent = performance.now();
      const deleted = await call(writer, 'DELETE', `/v1/sessions/${id}`, undefined, {
        'If-Match': `"${created.body.revision}"`,
        'X-Expected-Generation': String(created.body.generation),
      });
      if (deleted.status !== 200) {
        throw new Error(
          `delete answered ${deleted.status}: ${JSON.stringify(deleted.body)} (create: ${created.status})`,
        );
      }
      requested.set(deleted.body.receipt.operationId, sent);
      answered.set(deleted.body.receipt.operationId, performance.now());
      await new Promise((resolve) => setTimeout(resolve, 20 + ((i * 37) % 60)));
    }
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && watchers.some((watcher) => watcher.arrivals.size < deletes)) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (const watcher of watchers) watcher.abort.abort();
    await Promise.all(watchers.map((watcher) => watcher.done));
    const fromWrite: number[] = [];
    const fromRequest: number[] = [];
    const fromAnswer: number[] = [];
    for (const watcher of watchers) {
      fromWrite.push(...watcher.sinceWrite.values());
      if (watcher.arrivals.size < deletes)
        throw new Error(`a watcher saw ${watcher.arrivals.size} of ${deletes} receipts`);
      for (const [operationId, at] of watcher.arrivals) {
        fromRequest.push(at - requested.get(operationId)!);
        fromAnswer.push(Math.max(0, at - answered.get(operationId)!));
      }
    }
    return { fromWrite, fromRequest, fromAnswer };
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}

export async function watchDelay(report: Report, config: BenchConfig, root: string): Promise<void> {
  report.section(
    'Cross-replica receipt watch',
    'One API process deletes sessions one at a time (20–80 ms apart); SSE receipt watchers on the other processes time each receipt. “From the write” counts from the receipt’s `createdAt` (stamped inside the deleting transaction, just before its commit; one machine, one clock) to the event’s arrival — the delay the target is about. “From the request” counts from when the DELETE was sent (an upper bound including that request’s own latency); “from the answer” from when its response arrived.',
  );
  buildApi(root);
  const row = report.table('Delay until a watcher on another process sees a committed deletion', [
    'topology',
    'wake-up mechanism',
    'receipts watched',
    'from the write p50',
    'p99',
    'max',
    'from the request p50',
    'p99',
    'from the answer p50',
    'p99',
  ]);
  const runs: {
    label: string;
    mechanism: string;
    url: () => Promise<{ url: string; drop(): Promise<void> }>;
    n: number;
  }[] = [
    {
      label: '2 processes, one SQLite file',
      mechanism: '`PRAGMA data_version` probe every 10 ms',
      url: async () => ({ url: `file:${join(scratchDir(), 'watch.db')}`, drop: async () => undefined }),
      n: 2,
    },
  ];
  if (config.pgUrl) {
    runs.push({
      label: '3 replicas, one PostgreSQL database',
      mechanism: 'LISTEN/NOTIFY',
      url: async () => {
        const database = await createPgDatabase(config.pgUrl!, 'watch');
        return { url: database.url, drop: () => database.drop() };
      },
      n: 3,
    });
  }
  for (const run of runs) {
    const database = await run.url();
    try {
      const { fromWrite, fromRequest, fromAnswer } = await watchDelayOn(
        run.label,
        root,
        database.url,
        run.n,
        config.topology.watchedDeletes,
      );
      row([
        run.label,
        run.mechanism,
        fmtCount(fromWrite.length),
        fmtMs(p(fromWrite, 50)),
        fmtMs(p(fromWrite, 99)),
        fmtMs(max(fromWrite)),
        fmtMs(p(fromRequest, 50)),
        fmtMs(p(fromRequest, 99)),
        fmtMs(p(fromAnswer, 50)),
        fmtMs(p(fromAnswer, 99)),
      ]);
      const p99 = p(fromWrite, 99);
      report.target({
        figure: `13. cross-replica watch delay (committed receipt → watcher on another process), ${run.label}`,
        ours: `${fmtMs(p(fromWrite, 50))} p50, ${fmtMs(p99)} p99`,
        ceiling: '—',
        ratio: '—',
        target: '≤ 100 ms p99',
        met: p99 <= 100,
      });
    } finally {
      await database.drop();
    }
  }
}

/** The longest gap of this process's own event loop (a 5 ms timer) until `stop()`. */
function clientLoop() {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(longest, performance.now() - last);
    },
  };
}

/** Back-to-back GETs (10 ms apart) with their latencies, until stopped. */
function probe(base: string, path: string) {
  const latencies: number[] = [];
  let failures = 0;
  let running = true;
  const done = (async () => {
    while (running) {
      const started = performance.now();
      try {
        const response = await fetch(`${base}${path}`);
        await response.arrayBuffer();
        if (response.status !== 200) failures++;
      } catch {
        failures++;
      }
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  return {
    latencies,
    failures: () => failures,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

/**
 * Prepares a job's file, or copies one prepared earlier from BENCH_PREPARED_DIR (repeated runs
 * while tuning skip the minutes of writing 10⁶ messages; the copy is identical).
 */
async function prepared(path: string, job: BackgroundJob): Promise<void> {
  const dir = process.env.BENCH_PREPARED_DIR;
  if (!dir) return job.prepare(path);
  const template = join(dir, `${(job.template ?? job.label).replace(/[^A-Za-z0-9]+/g, '-')}.db`);
  if (!existsSync(template)) {
    mkdirSync(dir, { recursive: true });
    await job.prepare(`${template}.tmp`);
    renameSync(`${template}.tmp`, template);
  }
  copyFileSync(template, path);
}

/** The holder of the row that holds a scheduled job back (see `holdScheduledJob`). */
const HOLD_HOLDER = 'bench:hold';

/**
 * Holds a scheduled job back until `releaseScheduledJob`: a pass of the epoch's interval, running
 * with a live lease, written into the file before the processes start. The job service never
 * starts a later interval while an earlier one runs (job-run.repository.ts, `earlierRunning`), and
 * every process would otherwise run the job's current interval at its first tick, before the
 * probes start. Released, the job's current interval runs at the next tick like any due pass
 * (attempt 1, in whichever process claims it).
 */
function holdScheduledJob(path: string, job: string): void {
  const db = openRawSqlite(path);
  try {
    const now = Date.now();
    db.prepare(
      `insert into job_runs (job, interval_start, interval_end, status, holder, lease_expires_at, attempts, started_at)
       values (?, 0, 1, 'running', ?, ?, 1, ?)`,
    ).run(job, HOLD_HOLDER, now + 86_400_000, now);
  } finally {
    db.close();
  }
}

/**
 * Ends the hold: the epoch's interval becomes served. A tiny write through this process's own
 * connection: its busy wait blocks this event loop, so it runs before the probes start.
 */
function releaseScheduledJob(path: string, job: string): void {
  const db = openRawSqlite(path);
  try {
    const now = Date.now();
    db.prepare(
      `update job_runs set status = 'done', finished_at = ?, lease_expires_at = ?
       where job = ? and interval_start = 0 and holder = ?`,
    ).run(now, now, job, HOLD_HOLDER);
  } finally {
    db.close();
  }
}

interface JobRunBody {
  intervalStart: string;
  status: string;
  attempts: number;
  holder: string;
  startedAt: string;
  finishedAt: string | null;
  summary: Record<string, unknown> | null;
  error: string | null;
}

/**
 * Polls `GET /v1/ops/jobs?job=…` until the scheduled job's first pass after the hold has finished
 * (done, attempt 1); a failed or retried pass throws.
 */
async function scheduledPass(
  call: ReturnType<typeof caller>,
  base: string,
  job: string,
  timeoutMs = 1_800_000,
): Promise<JobRunBody & { ms: number; runnerPid: number }> {
  const started = performance.now();
  for (;;) {
    await sleep(250);
    const runs = ((await call(base, 'GET', `/v1/ops/jobs?job=${job}&limit=20`)).body.items as JobRunBody[]).filter(
      (run) => run.holder !== HOLD_HOLDER,
    );
    const failed = runs.filter((run) => run.status === 'failed' || run.attempts !== 1);
    if (failed.length > 0) throw new Error(`${job} pass failed or retried: ${JSON.stringify(failed)}`);
    const pass = runs.find((run) => run.status === 'done');
    if (pass) {
      return {
        ...pass,
        ms: Date.parse(pass.finishedAt!) - Date.parse(pass.startedAt),
        // The holder is `host:pid:random` (apps/api/src/common/process-holder.ts).
        runnerPid: Number(pass.holder.split(':')[1]),
      };
    }
    if (performance.now() - started > timeoutMs) throw new Error(`no ${job} pass within ${timeoutMs / 60_000} min`);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The tokens a destructive route needs, from a session as the API answers it. */
const preconditionsOf = (session: { revision: number; generation: number }) => ({
  'If-Match': `"${session.revision}"`,
  'X-Expected-Generation': String(session.generation),
});

/** `<prefix>-000042`: the session ids syntheticSqliteStore writes. */
const syntheticId = (profile: string, index: number) => `${profile}-${String(index).padStart(6, '0')}`;

/** Segments per level of the two FTS5 indexes, read on a read-only connection (it never writes). */
function ftsSegments(path: string): string {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return FTS_INDEXES.map((table) => {
      const levels = ftsLevels(db, table);
      const segments = levels.reduce((sum, level) => sum + level.pages.length, 0);
      return `${table} ${segments} segment${segments === 1 ? '' : 's'} (${describeLevels(levels)})`;
    }).join('; ');
  } finally {
    db.close();
  }
}

interface BackgroundJob {
  /** Its name in BENCH_HEALTH_JOBS. */
  name: string;
  label: string;
  /** The file's name in BENCH_PREPARED_DIR (default: from the label): jobs on the same data share it. */
  template?: string;
  /** Prepares the file (before the processes start). */
  prepare(path: string): Promise<void>;
  /** The processes' environment (given the scenario's own directory). */
  env: Record<string, string> | ((dir: string) => Record<string, string>);
  /** A scheduled job held back from the processes' start until just before the probes start. */
  held?: string;
  /**
   * After the processes have started and before the probes do (not measured): what the job needs
   * (its sessions' tokens, a source file), in the file's directory.
   */
  setUp?(call: ReturnType<typeof caller>, first: string, second: string, path: string): Promise<void>;
  /**
   * Starts the job in the first process; resolves when it has finished, with how long it took and,
   * for a scheduled job (whichever process wins the interval's lease runs it), the runner's pid.
   */
  run(call: ReturnType<typeof caller>, first: string, second: string): Promise<{ took: string; runnerPid?: number }>;
}

/** Figure 14: /healthz and /readyz of both processes on a SQLite file while one runs a long job. */
export async function healthDuringJobs(report: Report, config: BenchConfig, root: string): Promise<void> {
  const {
    rebuildMessages,
    retentionSessions,
    retentionMessagesPerSession,
    compressMessages,
    rewindMessages,
    bulkDeleteSessions,
    bulkDeleteMessagesPerSession,
    importMessages,
    backupMessages,
    maintenanceMessages,
  } = config.topology;
  report.section(
    'Health of processes sharing a SQLite file during long background work',
    'Two API processes on one SQLite file. One runs a long job — a search index rebuild; a scheduled retention pass; a compress of a huge session (until the rest of its transcript, archived in deferred chunks after the answer, is done); a rewind of a huge session to its first message; bulk deletes of many sessions; a Hermes import over HTTP; the scheduled online backup; the scheduled index maintenance (FTS5 optimize in steps, `incremental_vacuum`, `PRAGMA optimize`) — a scheduled one runs in whichever process wins its interval’s lease (the table says which; the backup and the maintenance are held back until the probes start). Both processes answer `GET /healthz` and `GET /readyz` back to back (10 ms apart) the whole time while the second process appends a message every 20 ms. The chunked jobs (rebuild, retention, the archiving a compression defers past its answer, rewind, bulk delete, the maintenance’s steps) run in time-boxed chunks (no step starts once 15 ms of a transaction have passed, steps sized to ≈ 6 ms) with a pause between chunks (docs/operations.md); the import writes in units of work sized to ≈ 40 ms of write lock; the backup copies every page on a worker thread in one read transaction. A probe preloaded into each API process notes every event-loop gap over 20 ms with the main thread’s time on a CPU inside it (Linux schedstat): the CPU time is the process’s own blocking, the rest of a gap is waiting for one of the 2 shared cores. In the scenarios after the retention pass the hourly index maintenance is off (it would run at start-up on every fresh file) unless it is the job; the load average is the machine’s 1-minute figure at the job’s start and end, and the last column the bench process’s own longest event-loop gap (the probes are timed there: a stall of it shows in both processes’ figures).',
  );
  buildApi(root);
  const synthetic = (messages: number) => `synthetic store of ${messages} messages`;
  // The jobs besides the first two: the hourly index maintenance stays off (0 disables a job).
  const maintenanceOff = { STATEHOUSE_MAINTENANCE_INTERVAL_SECONDS: '0' };
  // Bulk deletes: each call's items with the tokens the preview answered (set up before the probes).
  let bulkItems: { id: string; revision: number; generation: number }[] = [];
  let hermesFile = '';
  const compressed = syntheticId('huge', 0);
  let compressTokens: Record<string, string> = {};
  let rewindTarget = { tokens: {} as Record<string, string>, firstId: 0 };
  let segmentsBefore = '';
  const allJobs: BackgroundJob[] = [
    {
      name: 'rebuild',
      label: `search index rebuild of ${fmtCount(rebuildMessages)} messages`,
      prepare: (path) => syntheticSqliteStore(path, rebuildMessages),
      env: {},
      async run(call, first, second) {
        const started = performance.now();
        await call(first, 'POST', '/v1/search/index/rebuild');
        for (;;) {
          await sleep(200);
          const status = (await call(second, 'GET', '/v1/search/index')).body;
          if (status.status !== 'rebuilding') {
            if (status.status !== 'ready') throw new Error(`rebuild ended ${status.status}`);
            return {
              took: `${fmtMs(performance.now() - started)} (${fmtCount(Math.round(rebuildMessages / ((performance.now() - started) / 1000)))} messages/s)`,
            };
          }
        }
      },
    },
    {
      name: 'retention',
      label: `scheduled retention pass over ${fmtCount(retentionSessions)} expired sessions (${fmtCount(retentionSessions * retentionMessagesPerSession)} messages)`,
      prepare: async (path) => {
        await syntheticSqliteStore(path, retentionSessions * retentionMessagesPerSession, retentionMessagesPerSession, {
          profile: 'aging',
          endedAt: Date.UTC(2025, 0, 1),
        });
      },
      env: { STATEHOUSE_JOB_TICK_SECONDS: '0.25' },
      async run(call, first) {
        const started = performance.now();
        await call(first, 'PUT', '/v1/retention/policies/aging', { retentionDays: 30 });
        // The policy applies at the next interval (the processes' retention interval is 3 s here).
        for (;;) {
          await sleep(250);
          const runs = (await call(first, 'GET', '/v1/ops/jobs?job=retention&limit=50')).body.items as JobRunBody[];
          const failed = runs.filter((run) => run.status === 'failed' || run.attempts !== 1);
          if (failed.length > 0) throw new Error(`retention pass failed or retried: ${JSON.stringify(failed)}`);
          const pass = runs.find((run) => run.status === 'done' && Number(run.summary?.deleted ?? 0) > 0);
          if (pass) {
            const ms = Date.parse(pass.finishedAt!) - Date.parse(pass.startedAt);
            // The holder is `host:pid:random` (apps/api/src/common/process-holder.ts).
            return {
              took: `${fmtMs(ms)} for ${fmtCount(Number(pass.summary!.deleted))} sessions`,
              runnerPid: Number(pass.holder.split(':')[1]),
            };
          }
          if (performance.now() - started > 600_000) throw new Error('no retention pass within 10 minutes');
        }
      },
    },
    {
      name: 'compress',
      label: `compress of a session of ${fmtCount(compressMessages)} messages, with the archiving deferred after its answer`,
      template: `one session of ${compressMessages} messages`,
      prepare: (path) => syntheticSqliteStore(path, compressMessages, compressMessages, { profile: 'huge' }),
      env: maintenanceOff,
      async setUp(call, first) {
        compressTokens = preconditionsOf((await call(first, 'GET', `/v1/sessions/${compressed}`)).body);
      },
      async run(call, first, second) {
        const started = performance.now();
        const answer = await call(
          first,
          'POST',
          `/v1/sessions/${compressed}/compress`,
          { summary: 'The conversation so far, summarised.', keepLastMessages: 20 },
          compressTokens,
        );
        if (answer.status !== 201)
          throw new Error(`compress answered ${answer.status}: ${JSON.stringify(answer.body)}`);
        const answered = performance.now() - started;
        // The rest of the transcript is archived oldest first, a chunk per transaction, by the first
        // process after its answer: done once the parent's newest message is compacted too. (One row
        // by the index; asking for the uncompacted ones instead read the whole archived transcript
        // once none was left: 133 ms of the polled process's event loop at 10⁵ messages.)
        for (;;) {
          await sleep(200);
          const newest = await call(second, 'GET', `/v1/sessions/${compressed}/messages?order=latest&limit=1`);
          if (newest.status !== 200) throw new Error(`messages answered ${newest.status}`);
          if (newest.body.items[0]?.compacted === true) break;
          if (performance.now() - started > 1_800_000) throw new Error('the compaction did not finish in 30 minutes');
        }
        return {
          took: `${fmtMs(performance.now() - started)} (answered after ${fmtMs(answered)}; then until the parent's newest message was compacted, the last the archiving marks: \`GET …/messages?order=latest&limit=1\` polled every 200 ms)`,
        };
      },
    },
    {
      name: 'rewind',
      label: `rewind of a session of ${fmtCount(rewindMessages)} messages to its first message`,
      template: `one session of ${rewindMessages} messages`,
      prepare: (path) => syntheticSqliteStore(path, rewindMessages, rewindMessages, { profile: 'huge' }),
      env: maintenanceOff,
      async setUp(call, first) {
        const id = syntheticId('huge', 0);
        const tokens = preconditionsOf((await call(first, 'GET', `/v1/sessions/${id}`)).body);
        const firstId = (await call(first, 'GET', `/v1/sessions/${id}/messages?limit=1`)).body.items[0].id as number;
        rewindTarget = { tokens, firstId };
      },
      async run(call, first) {
        const id = syntheticId('huge', 0);
        const started = performance.now();
        const answer = await call(
          first,
          'POST',
          `/v1/sessions/${id}/rewind`,
          { toMessageId: rewindTarget.firstId },
          rewindTarget.tokens,
        );
        if (answer.status !== 200) throw new Error(`rewind answered ${answer.status}: ${JSON.stringify(answer.body)}`);
        if (answer.body.rewoundIds.length !== rewindMessages) {
          throw new Error(`rewind marked ${answer.body.rewoundIds.length} of ${rewindMessages} messages inactive`);
        }
        return {
          took: `${fmtMs(performance.now() - started)} for ${fmtCount(rewindMessages)} messages (until its answer: every chunk is done before it)`,
        };
      },
    },
    {
      name: 'bulk-delete',
      label: `bulk delete of ${fmtCount(bulkDeleteSessions)} sessions (${fmtCount(bulkDeleteSessions * bulkDeleteMessagesPerSession)} messages) over HTTP, ${BULK_DELETE_MAX} per call`,
      prepare: (path) =>
        syntheticSqliteStore(path, bulkDeleteSessions * bulkDeleteMessagesPerSession, bulkDeleteMessagesPerSession, {
          profile: 'doomed',
        }),
      env: maintenanceOff,
      async setUp(call, first) {
        bulkItems = [];
        for (let from = 0; from < bulkDeleteSessions; from += BULK_DELETE_MAX) {
          const ids = Array.from({ length: Math.min(BULK_DELETE_MAX, bulkDeleteSessions - from) }, (_, i) =>
            syntheticId('doomed', from + i),
          );
          const preview = await call(first, 'POST', '/v1/sessions/delete-preview', { ids });
          if (preview.status !== 200) throw new Error(`delete-preview answered ${preview.status}`);
          const wanted = new Set(ids);
          for (const session of preview.body.sessions as { id: string; revision: number; generation: number }[]) {
            if (wanted.has(session.id)) {
              bulkItems.push({ id: session.id, revision: session.revision, generation: session.generation });
            }
          }
        }
        if (bulkItems.length !== bulkDeleteSessions) throw new Error(`previewed ${bulkItems.length} sessions`);
      },
      async run(call, first) {
        const started = performance.now();
        let deleted = 0;
        let calls = 0;
        let longest = 0;
        for (let from = 0; from < bulkItems.length; from += BULK_DELETE_MAX) {
          const sent = performance.now();
          const answer = await call(first, 'POST', '/v1/sessions/bulk-delete', {
            items: bulkItems.slice(from, from + BULK_DELETE_MAX),
          });
          longest = Math.max(longest, performance.now() - sent);
          calls++;
          if (answer.status !== 200) throw new Error(`bulk-delete answered ${answer.status}`);
          deleted += answer.body.deletedIds.length;
        }
        if (deleted !== bulkDeleteSessions) throw new Error(`bulk delete removed ${deleted} of ${bulkDeleteSessions}`);
        return {
          took: `${fmtMs(performance.now() - started)} for ${fmtCount(deleted)} sessions (${calls} call${calls === 1 ? '' : 's'} one after another, the longest ${fmtMs(longest)})`,
        };
      },
    },
    {
      name: 'import',
      label: `Hermes import over HTTP of a session of ${fmtCount(importMessages)} messages`,
      template: 'empty store',
      prepare: (path) => syntheticSqliteStore(path, 0),
      env: maintenanceOff,
      async setUp(_call, _first, _second, path) {
        // The source: one Hermes session (as bench/probes/import-loop.probe.ts builds it).
        hermesFile = join(dirname(path), 'hermes-state.db');
        const fixture = new HermesFixture(hermesFile, 30);
        fixture.transaction(() => {
          fixture.session({
            id: 'huge',
            source: 'cli',
            profile_name: 'imported',
            title: 'Huge',
            started_at: SCENARIO_T0,
          });
          for (let i = 0; i < importMessages; i++) {
            fixture.message('huge', {
              role: i % 2 ? 'assistant' : 'user',
              content: `line ${i} of a long conversation about deploys`,
              timestamp: SCENARIO_T0 + i,
            });
          }
        });
        fixture.close();
      },
      async run(call, first, second) {
        const started = performance.now();
        const bytes = statSync(hermesFile).size;
        const file = Readable.toWeb(createReadStream(hermesFile));
        const answer = await call(first, 'POST', '/v1/imports?fileName=state.db', file, {
          'content-type': 'application/octet-stream',
        });
        if (answer.status !== 202) throw new Error(`import answered ${answer.status}: ${JSON.stringify(answer.body)}`);
        const uploaded = performance.now() - started;
        for (;;) {
          await sleep(200);
          const job = (await call(second, 'GET', `/v1/imports/${answer.body.id}`)).body;
          if (job.state === 'running') {
            if (performance.now() - started > 1_800_000) throw new Error('the import did not finish in 30 minutes');
            continue;
          }
          if (job.state !== 'succeeded') throw new Error(`import ended ${job.state}: ${job.error}`);
          if (job.report.messages.created !== importMessages) {
            throw new Error(`imported ${job.report.messages.created} of ${importMessages} messages`);
          }
          const ms = performance.now() - started;
          return {
            took: `${fmtMs(ms)} (${fmtCount(Math.round(importMessages / (ms / 1000)))} messages/s; upload of ${fmtCount(Math.round(bytes / 2 ** 20))} MiB (streamed) answered after ${fmtMs(uploaded)}; then \`GET /v1/imports/:id\` polled every 200 ms until \`succeeded\`)`,
          };
        }
      },
    },
    {
      name: 'backup',
      label: `scheduled online backup of a store of ${fmtCount(backupMessages)} messages`,
      template: synthetic(backupMessages),
      prepare: (path) => syntheticSqliteStore(path, backupMessages),
      env: (dir) => ({
        ...maintenanceOff,
        // A day's interval: its one pass runs once the hold ends (no second one within the run).
        STATEHOUSE_BACKUP_INTERVAL_SECONDS: '86400',
        STATEHOUSE_BACKUP_DIR: join(dir, 'backups'),
        STATEHOUSE_JOB_TICK_SECONDS: '0.25',
      }),
      held: 'backup',
      async run(call, first) {
        const pass = await scheduledPass(call, first, 'backup');
        const status = (await call(first, 'GET', '/v1/ops/backup')).body;
        const record = status.lastSucceeded as { bytes: number; counts: { messages: number } } | null;
        if (!record || record.counts.messages < backupMessages) {
          throw new Error(`the backup holds ${record?.counts.messages} messages: ${JSON.stringify(status.last)}`);
        }
        return {
          took: `${fmtMs(pass.ms)} for ${fmtCount(Math.round(record.bytes / 2 ** 20))} MiB (copied, \`quick_check\`ed and counted; until \`GET /v1/ops/jobs?job=backup\` showed the pass done)`,
          runnerPid: pass.runnerPid,
        };
      },
    },
    {
      name: 'maintenance',
      label: `scheduled index maintenance of a store of ${fmtCount(maintenanceMessages)} messages, its FTS indexes as written`,
      template: synthetic(maintenanceMessages),
      prepare: (path) => syntheticSqliteStore(path, maintenanceMessages),
      env: { STATEHOUSE_MAINTENANCE_INTERVAL_SECONDS: '86400', STATEHOUSE_JOB_TICK_SECONDS: '0.25' },
      held: 'index-maintenance',
      async setUp(_call, _first, _second, path) {
        // The FTS mergers of both processes merge while the file is quiet (their start-up): what is
        // left is what the pass finds.
        segmentsBefore = ftsSegments(path);
      },
      async run(call, first) {
        const pass = await scheduledPass(call, first, 'index-maintenance');
        const summary = pass.summary ?? {};
        return {
          took: `${fmtMs(pass.ms)}: ${fmtCount(Number(summary.mergeSteps ?? 0))} merge steps, ${fmtCount(Number(summary.pagesFreed ?? 0))} pages freed (before: ${segmentsBefore}; until \`GET /v1/ops/jobs?job=index-maintenance\` showed the pass done)`,
          runnerPid: pass.runnerPid,
        };
      },
    },
  ];
  // BENCH_HEALTH_JOBS=rebuild,retention,… picks scenarios by name (default: all).
  const picked = process.env.BENCH_HEALTH_JOBS?.split(',').map((name) => name.trim());
  const unknown = picked?.filter((name) => !allJobs.some((job) => job.name === name)) ?? [];
  if (unknown.length > 0) {
    throw new Error(
      `BENCH_HEALTH_JOBS: unknown ${unknown.join(', ')} (known: ${allJobs.map((j) => j.name).join(', ')})`,
    );
  }
  const jobs = allJobs.filter((job) => !picked || picked.includes(job.name));
  const row = report.table('Latency of /healthz and /readyz during the job', [
    'job',
    'job took',
    'process',
    'probes',
    '/healthz p50',
    '/healthz p99',
    '/healthz max',
    '/readyz max',
    'failed probes',
    'appends (non-2xx)',
    'longest event-loop gap (of it on a CPU / waiting for one)',
    'most CPU time inside one gap',
    'load average',
    'the bench’s own longest event-loop gap',
  ]);
  for (const job of jobs) {
    const dir = scratchDir();
    const path = join(dir, `health-${job.name}.db`);
    log(`preparing ${job.label}…`);
    await prepared(path, job);
    if (job.held) holdScheduledJob(path, job.held);
    const databaseUrl = `file:${path}`;
    const env = {
      STATEHOUSE_RETENTION_INTERVAL_SECONDS: '3',
      ...(typeof job.env === 'function' ? job.env(dir) : job.env),
    };
    const probeFiles = [0, 1].map((index) => `${path}.loop-${index}.txt`);
    const servers = await startReplicas(
      root,
      databaseUrl,
      2,
      (index) => ({ ...env, BENCH_LOOP_PROBE_FILE: probeFiles[index] }),
      ['--import', LOOP_PROBE],
    );
    const call = caller(createToken(root, databaseUrl));
    const [first, second] = servers.map(urlOf);
    try {
      await call(second, 'POST', '/v1/sessions', { id: 'writer', profile: 'bench', source: 'cli' });
      await job.setUp?.(call, first, second, path);
      if (job.held) releaseScheduledJob(path, job.held);
      const probes = [first, second].map((base) => ({
        health: probe(base, '/healthz'),
        ready: probe(base, '/readyz'),
      }));
      const writes: number[] = [];
      let writing = true;
      const writer = (async () => {
        for (let i = 0; writing; i++) {
          writes.push(
            (
              await call(second, 'POST', '/v1/sessions/writer/messages', {
                messages: [{ role: 'user', content: `w${i}` }],
              })
            ).status,
          );
          await sleep(20);
        }
      })();
      const jobStarted = Date.now();
      const loadStart = loadavg()[0];
      // The probes are timed in this process: a stall of its own loop shows in both processes' figures.
      const ownLoop = clientLoop();
      const { took, runnerPid } = await job.run(call, first, second);
      // A scheduled pass runs wherever the lease went; a started job in the first process.
      const runner = runnerPid === undefined ? 0 : servers.findIndex((server) => server.pid === runnerPid);
      const jobEnded = Date.now();
      const clientGap = ownLoop.stop();
      const load = `${loadStart.toFixed(2)} → ${loadavg()[0].toFixed(2)}`;
      writing = false;
      await writer;
      for (const pair of probes) await Promise.all([pair.health.stop(), pair.ready.stop()]);
      const failedWrites = writes.filter((status) => status !== 201).length;
      let worst = 0;
      const stalls: string[] = [];
      probes.forEach((pair, index) => {
        const health = pair.health.latencies;
        worst = Math.max(worst, max(health), max(pair.ready.latencies));
        const stall = loopStalls(probeFiles[index], jobStarted, jobEnded);
        stalls.push(`${fmtMs(stall.worstOnCpu)} / ${fmtMs(stall.gap)}`);
        row([
          job.label,
          took,
          [index === runner ? 'running the job' : 'the other', index === 1 ? '(writing)' : ''].join(' ').trim(),
          fmtCount(health.length),
          fmtMs(p(health, 50)),
          fmtMs(p(health, 99)),
          fmtMs(max(health)),
          fmtMs(max(pair.ready.latencies)),
          String(pair.health.failures() + pair.ready.failures()),
          index === 0 ? '—' : `${fmtCount(writes.length)} (${failedWrites})`,
          `${fmtMs(stall.gap)} (${fmtMs(stall.onCpu)} on a CPU / ${fmtMs(stall.waiting)} waiting)`,
          fmtMs(stall.worstOnCpu),
          load,
          fmtMs(clientGap),
        ]);
      });
      report.target({
        figure: `14. /healthz and /readyz max latency of both processes on one SQLite file during a ${job.label}`,
        // The process's own blocking (CPU time inside one event-loop gap, job process / other) beside
        // the longest gap: the rest of a gap is time spent waiting for one of the shared CPUs.
        ours: `${fmtMs(worst)} (own blocking ≤ ${stalls[Math.max(runner, 0)].split(' / ')[0]} / ${stalls[runner === 1 ? 0 : 1].split(' / ')[0]})`,
        ceiling: '—',
        ratio: '—',
        target: '≤ 100 ms; 0 failed appends',
        met: worst <= 100 && failedWrites === 0,
      });
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
      // BENCH_API_LOG_DIR (diagnosis): the loop probes' gaps beside the processes' logs.
      const logDir = process.env.BENCH_API_LOG_DIR;
      probeFiles.forEach((file, index) => {
        if (logDir && existsSync(file)) copyFileSync(file, join(logDir, `loop-${job.name}-${servers[index].pid}.txt`));
      });
      // The scenario's files (10⁶-message copies, a backup) go now, not at the end of the run.
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

/** Figure 13: appends/s through N processes on one database (load round-robin over them). */
export async function replicaAppends(report: Report, config: BenchConfig, root: string): Promise<void> {
  const { appendSeconds, appendConnections } = config.topology;
  report.section(
    'Appends through several processes',
    `Single-message appends (\`POST /v1/sessions/:id/messages\`) from ${appendConnections} keep-alive connections, spread round-robin over the processes and over 50 sessions, for ${appendSeconds} s after a 1 s warm-up; then every acknowledged message is counted in the store (lost and duplicated must be 0). The load generator shares the machine's 2 cores with the servers (and PostgreSQL).`,
  );
  buildApi(root);
  const row = report.table('Append throughput by topology', [
    'topology',
    'appends/s',
    'latency p50',
    'p99',
    '5xx',
    'lost',
    'duplicated',
  ]);
  const topologies: { label: string; processes: number; url: () => Promise<{ url: string; drop(): Promise<void> }> }[] =
    [
      {
        label: '1 process, SQLite',
        processes: 1,
        url: async () => ({ url: `file:${join(scratchDir(), 'appends-1.db')}`, drop: async () => undefined }),
      },
      {
        label: '2 processes, one SQLite file',
        processes: 2,
        url: async () => ({ url: `file:${join(scratchDir(), 'appends-2.db')}`, drop: async () => undefined }),
      },
    ];
  if (config.pgUrl) {
    for (const n of [1, 3]) {
      topologies.push({
        label: n === 1 ? '1 replica, PostgreSQL' : '3 replicas, one PostgreSQL database',
        processes: n,
        url: async () => {
          const database = await createPgDatabase(config.pgUrl!, `appends${n}`);
          return { url: database.url, drop: () => database.drop() };
        },
      });
    }
  }
  for (const topology of topologies) {
    const database = await topology.url();
    const servers = await startReplicas(root, database.url, topology.processes);
    try {
      const call = caller(createToken(root, database.url));
      const bases = servers.map(urlOf);
      const sessions = Array.from({ length: 50 }, (_, i) => `append-${i}`);
      for (const id of sessions) await call(bases[0], 'POST', '/v1/sessions', { id, profile: 'bench', source: 'cli' });
      const acknowledged: string[] = [];
      const latencies: number[] = [];
      let serverErrors = 0;
      let measuring = false;
      let running = true;
      let next = 0;
      const workers = Array.from({ length: appendConnections }, async (_, w) => {
        while (running) {
          const i = next++;
          const content = `a${i}`;
          const started = performance.now();
          const reply = await call(
            bases[i % bases.length],
            'POST',
            `/v1/sessions/${sessions[(i + w) % sessions.length]}/messages`,
            {
              messages: [{ role: 'user', content }],
            },
          ).catch(() => ({ status: 0, body: null }));
          if (reply.status === 201) acknowledged.push(content);
          else if (reply.status >= 500 || reply.status === 0) serverErrors++;
          if (measuring) latencies.push(performance.now() - started);
        }
      });
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const before = acknowledged.length;
      measuring = true;
      const started = performance.now();
      await new Promise((resolve) => setTimeout(resolve, appendSeconds * 1000));
      const rate = (acknowledged.length - before) / ((performance.now() - started) / 1000);
      running = false;
      await Promise.all(workers);
      const stored: string[] = [];
      for (const id of sessions) {
        for (let after: string | null = ''; after !== null; ) {
          const page = await call(
            bases[0],
            'GET',
            `/v1/sessions/${id}/messages?limit=1000&order=oldest${after ? `&cursor=${after}` : ''}`,
          );
          stored.push(...page.body.items.map((message: { content: string }) => message.content));
          after = page.body.nextCursor;
        }
      }
      const storedSet = new Set(stored);
      const lost = acknowledged.filter((content) => !storedSet.has(content)).length;
      const duplicated = stored.length - storedSet.size;
      row([
        topology.label,
        `${fmtCount(Math.round(rate))}/s`,
        fmtMs(p(latencies, 50)),
        fmtMs(p(latencies, 99)),
        String(serverErrors),
        String(lost),
        String(duplicated),
      ]);
      if (topology.processes > 1) {
        report.target({
          figure: `15. appends through ${topology.label}: lost / duplicated / 5xx`,
          ours: `${fmtCount(Math.round(rate))} appends/s; ${lost} / ${duplicated} / ${serverErrors}`,
          ceiling: '—',
          ratio: '—',
          target: '0 lost, duplicated or 5xx',
          met: lost === 0 && duplicated === 0 && serverErrors === 0,
        });
      }
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
      await database.drop();
    }
  }
}
