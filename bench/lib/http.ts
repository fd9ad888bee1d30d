import { execFileSync } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { type Launched, startApi as startBuiltApi } from '../../test/support/process-kit.js';
import { msSince, nowNs } from './timing.js';

/** The API, compiled (apps/api/dist), built here so the bench never runs a stale server. */
export function buildApi(root: string): { ms: number } {
  const start = nowNs();
  execFileSync(join(root, 'node_modules/.bin/tsc'), ['-b', 'apps/api'], { cwd: root, stdio: 'pipe' });
  return { ms: msSince(start) };
}

/** `node apps/api/dist/cli/token.js create …`: the token is the last line of its stdout. */
export function createToken(root: string, databaseUrl: string): string {
  const out = execFileSync(
    process.execPath,
    ['apps/api/dist/cli/token.js', 'create', '--role', 'admin', '--profiles', '*', '--name', 'bench'],
    { cwd: root, env: { ...process.env, STATEHOUSE_DATABASE_URL: databaseUrl }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const lines = out.toString().trim().split('\n');
  return lines[lines.length - 1].trim();
}

export interface ApiServer {
  pid: number;
  port: number;
  /** Server process CPU time so far (user + system), in seconds, from /proc; null where there is none. */
  cpuSeconds(): number | null;
  /** The same for its main thread alone (the event loop), in seconds. */
  mainThreadCpuSeconds(): number | null;
  stop(): Promise<void>;
}

const servers = new Set<Launched>();

/** An interrupted run: stop the servers this process started (by their pid). */
export function stopServers(): void {
  for (const server of servers) server.child.kill('SIGTERM');
}

/**
 * `node apps/api/dist/main.js` on `databaseUrl` (no demo seed, no retention scheduler, no plugins),
 * on a free loopback port (test/support/process-kit.ts); resolves once `GET /healthz` answers.
 * `nodeArgs` go to node (e.g. `--cpu-prof`).
 */
export async function startApi(
  root: string,
  databaseUrl: string,
  nodeArgs: string[] = [],
  env: Record<string, string> = {},
): Promise<ApiServer> {
  // BENCH_API_NODE_ARGS: extra node flags for every API process (diagnosis: `--cpu-prof`, a preload).
  const extra = process.env.BENCH_API_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  let stopping = false;
  let launched: Launched | undefined;
  const api = await startBuiltApi({
    databaseUrl,
    // That root's compiled API, run from it: A/B probes start two checkouts' servers side by side.
    entry: join(root, 'apps/api/dist/main.js'),
    cwd: root,
    nodeArgs: [...extra, ...nodeArgs],
    env: { STATEHOUSE_RETENTION_INTERVAL_SECONDS: '0', STATEHOUSE_PLUGINS: '', ...env },
    // Generous: on a machine loaded by other work a cold start (module loading, migrations) is slow.
    timeoutMs: 180_000,
    // Its own pid, as the bench's: an interrupt of the run reaches it too.
    detached: false,
    keepChars: 4_000,
    onLaunch(spawned) {
      launched = spawned;
      servers.add(spawned);
      // BENCH_API_LOG_DIR: every API process's whole output in a file of its own (diagnosis).
      const logDir = process.env.BENCH_API_LOG_DIR;
      if (logDir) {
        const logFile = join(logDir, `api-${Date.now()}-${spawned.port}.log`);
        const tee = (chunk: Buffer) => appendFileSync(logFile, chunk);
        spawned.child.stdout?.on('data', tee);
        spawned.child.stderr?.on('data', tee);
      }
    },
  }).catch((error: unknown) => {
    // The kit stopped it already.
    if (launched) servers.delete(launched);
    throw error;
  });
  const { child } = api;
  // A server that dies under load is a finding, not a mystery: say so with its last output.
  child.once('exit', (code, signal) => {
    if (!stopping)
      console.error(
        `\nthe API process ${child.pid} exited during the run (${signal ?? code}); its last output:\n${api.log()}`,
      );
  });
  const pid = child.pid!;
  const ticks = 100; // USER_HZ on Linux
  return {
    pid,
    port: api.port,
    mainThreadCpuSeconds() {
      try {
        const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return (Number(fields[11]) + Number(fields[12])) / ticks;
      } catch {
        return null;
      }
    },
    cpuSeconds() {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return (Number(fields[11]) + Number(fields[12])) / ticks;
      } catch {
        return null;
      }
    },
    async stop() {
      stopping = true;
      await api.stop();
      servers.delete(api);
    },
  };
}

/** CPU seconds of each local PostgreSQL server process (its backends included), from /proc. */
export function postgresCpu(): Map<number, number> {
  const seconds = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/comm`, 'utf8').startsWith('postgres')) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      seconds.set(Number(entry), (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      // The process ended while we looked.
    }
  }
  return seconds;
}

/**
 * PostgreSQL CPU seconds spent since `before` by the processes alive now (a backend that ended in
 * between is not counted; the API's pooled connections live through a round). Null without a local server.
 */
export function postgresCpuSince(before: Map<number, number>): number | null {
  const now = postgresCpu();
  if (now.size === 0) return null;
  let total = 0;
  for (const [pid, seconds] of now) total += seconds - (before.get(pid) ?? 0);
  return total;
}

export interface LoadResult {
  requests: number;
  errors: number;
  /** Answers of 500 and above, and requests that got no answer at all (part of `errors`). */
  serverErrors: number;
  seconds: number;
  /** Per-request latency, ms. */
  latencies: number[];
  bytes: number;
  /** Load generator CPU (this process), seconds. */
  clientCpu: number;
  /** Server CPU over the same window, seconds (null without /proc). */
  serverCpu: number | null;
  /** Of it, the server's main thread (its event loop). */
  serverMainCpu: number | null;
}

/**
 * The load generator: `connections` keep-alive loops, each sending its next request when the
 * previous response has been read in full, for `seconds`. A request counts when it answered
 * `expect` (200 unless told). With `body`, requests are POSTs of that JSON (`connection` says which
 * loop sends it, so each loop can write to its own session).
 */
export async function runLoad(options: {
  server: ApiServer;
  path: (i: number, connection: number) => string;
  headers?: Record<string, string>;
  body?: (i: number, connection: number) => string;
  expect?: number;
  connections: number;
  seconds: number;
}): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const latencies: number[] = [];
  const expect = options.expect ?? 200;
  let requests = 0;
  let errors = 0;
  let serverErrors = 0;
  let bytes = 0;
  let next = 0;
  const once = (path: string, body: string | undefined) =>
    new Promise<number>((resolve, reject) => {
      const headers =
        body === undefined
          ? options.headers
          : {
              ...options.headers,
              'content-type': 'application/json',
              'content-length': String(Buffer.byteLength(body)),
            };
      const request = http.request(
        {
          host: '127.0.0.1',
          port: options.server.port,
          path,
          agent,
          headers,
          method: body === undefined ? 'GET' : 'POST',
        },
        (response) => {
          response.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
          });
          response.on('end', () => resolve(response.statusCode ?? 0));
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  const cpuBefore = process.cpuUsage();
  const serverBefore = options.server.cpuSeconds();
  const mainBefore = options.server.mainThreadCpuSeconds();
  const started = nowNs();
  const end = Date.now() + options.seconds * 1000;
  const loop = async (_: unknown, connection: number) => {
    while (Date.now() < end) {
      const i = next++;
      const start = nowNs();
      const status = await once(options.path(i, connection), options.body?.(i, connection)).catch(() => 0);
      if (status === expect) {
        requests++;
        latencies.push(msSince(start));
      } else {
        errors++;
        if (status === 0 || status >= 500) serverErrors++;
      }
    }
  };
  await Promise.all(Array.from({ length: options.connections }, loop));
  const seconds = msSince(started) / 1000;
  const serverAfter = options.server.cpuSeconds();
  const mainAfter = options.server.mainThreadCpuSeconds();
  const cpu = process.cpuUsage(cpuBefore);
  agent.destroy();
  return {
    requests,
    errors,
    serverErrors,
    seconds,
    latencies,
    bytes,
    clientCpu: (cpu.user + cpu.system) / 1e6,
    serverCpu: serverBefore === null || serverAfter === null ? null : serverAfter - serverBefore,
    serverMainCpu: mainBefore === null || mainAfter === null ? null : mainAfter - mainBefore,
  };
}

interface ProfileNode {
  id: number;
  callFrame: { url: string; functionName: string };
}

/**
 * Where a V8 CPU profile's samples fall, by `categorize(url, functionName)`: milliseconds of self time
 * per category, idle left out, only samples inside `window` (process.hrtime microseconds) when given.
 */
export function profileByCategory(
  path: string,
  categorize: (url: string, functionName: string) => string,
  window?: { fromUs: number; toUs: number },
): Map<string, number> {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as {
    nodes: ProfileNode[];
    startTime: number;
    samples: number[];
    timeDeltas: number[];
  };
  // Sample times are CLOCK_MONOTONIC microseconds, the clock of process.hrtime: only the window counts.
  const selfUs = new Map<number, number>();
  let at = profile.startTime;
  for (const [i, id] of profile.samples.entries()) {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (window && (at < window.fromUs || at > window.toUs)) continue;
    selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  }
  const totals = new Map<string, number>();
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0;
    if (us === 0 || node.callFrame.functionName === '(idle)') continue;
    const category = categorize(node.callFrame.url, node.callFrame.functionName);
    totals.set(category, (totals.get(category) ?? 0) + us / 1000);
  }
  return totals;
}
