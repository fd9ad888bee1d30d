import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Real OS processes for the suites that run the built system (apps/api tests across processes,
 * the client's, browser, topology and web tests) and for the benches: a free port, the built API
 * started and waited for, a token minted by the real CLI, processes stopped by their own handles.
 * One copy, so a fix to start-up waiting or stopping reaches every suite.
 */

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const API_MAIN = join(REPO_ROOT, 'apps/api/dist/main.js');
export const TOKEN_CLI = join(REPO_ROOT, 'apps/api/dist/cli/token.js');

/** The seeded PRNG of the state tests (mulberry32), for suites that are random but replayable. */
export { seededRandom } from '@statehouse/state/testing';

/** Fails fast with the fix when the build step was skipped (the suites never build by themselves). */
export function assertApiBuilt(): void {
  if (!existsSync(API_MAIN) || !existsSync(TOKEN_CLI)) {
    throw new Error('apps/api/dist is missing: run `npm run build` (npm test does it) before this suite');
  }
}

/** A loopback port nobody listens on right now (the OS picks it; the caller binds it next). */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/**
 * The status of one GET, on a connection of its own (agent: false): polling leaves no idle
 * keep-alive socket behind in the server it waits for (a bench measures that server next).
 */
export function statusOf(url: string, timeoutMs = 2_000): Promise<number> {
  return new Promise((resolveStatus, reject) => {
    const request = http.get(url, { agent: false, timeout: timeoutMs }, (response) => {
      response.resume();
      response.on('end', () => resolveStatus(response.statusCode ?? 0));
    });
    request.on('timeout', () => request.destroy(new Error(`no answer from ${url} within ${timeoutMs} ms`)));
    request.on('error', reject);
  });
}

export interface Launched {
  name: string;
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  child: ChildProcess;
  /** The tail of its output (stdout and stderr), for failure messages. */
  log(): string;
  /** SIGTERM (or `signal`) to it (its process group when detached), SIGKILL after a grace; resolves once it exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export interface LaunchOptions {
  port: number;
  cwd?: string;
  /** The whole environment of the child (callers start from process.env or from nothing). */
  env: NodeJS.ProcessEnv;
  /**
   * Its own process group (the default), so stop() also ends what it spawned (Next's workers, the
   * API's append writer).
   */
  detached?: boolean;
  /** How much output to keep for log(), in characters. */
  keepChars?: number;
  /** Milliseconds stop() waits after the first signal before SIGKILL. */
  graceMs?: number;
}

/** Spawns `node …args`, collecting its output; the caller waits for what it answers. */
export function launch(name: string, args: string[], options: LaunchOptions): Launched {
  const detached = options.detached ?? true;
  const keepChars = options.keepChars ?? 64_000;
  const child = spawn(process.execPath, args, {
    cwd: options.cwd ?? REPO_ROOT,
    env: options.env,
    detached,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (output.length > 2 * keepChars) output = output.slice(-keepChars);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  // A spawn that fails (a missing cwd) says so in the log instead of crashing the suite.
  child.on('error', (error) => {
    output += `\n${error}`;
  });
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  const signal = (sig: NodeJS.Signals) => {
    try {
      if (detached && child.pid !== undefined) process.kill(-child.pid, sig);
      else child.kill(sig);
    } catch {
      // already gone
    }
  };
  return {
    name,
    url: `http://127.0.0.1:${options.port}`,
    port: options.port,
    child,
    log: () => `--- ${name} ---\n${output.slice(-keepChars)}`,
    async stop(first: NodeJS.Signals = 'SIGTERM') {
      if (child.pid === undefined) return;
      if (!gone()) {
        const exited = new Promise<void>((done) => child.once('exit', () => done()));
        signal(first);
        const timer = setTimeout(() => signal('SIGKILL'), options.graceMs ?? 10_000);
        await exited;
        clearTimeout(timer);
      }
      // Children of a group's leader may outlive it by a moment.
      if (detached) signal('SIGKILL');
    },
  };
}

/**
 * Waits until `path` answers with a status `accept` takes (below 500 unless told). A deadline, not
 * a count of polls: a start-up that takes 15 s on a loaded 2-core machine is slow, not broken; a
 * child that exits fails at once, with its output.
 */
export async function waitUntilAnswering(
  target: Launched,
  path: string,
  options: { timeoutMs?: number; accept?: (status: number) => boolean } = {},
): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const accept = options.accept ?? ((status: number) => status > 0 && status < 500);
  const deadline = Date.now() + timeoutMs;
  const { child } = target;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `${target.name} exited before it answered (${child.exitCode ?? child.signalCode})\n${target.log()}`,
      );
    }
    if (accept(await statusOf(`${target.url}${path}`).catch(() => 0))) return;
    await new Promise((wait) => setTimeout(wait, 100));
  }
  throw new Error(`${target.name} did not answer ${path} within ${timeoutMs / 1000} s\n${target.log()}`);
}

export interface ApiOptions {
  databaseUrl: string;
  /** Variables over the inherited environment and the defaults (loopback only, no demo seed). */
  env?: Record<string, string>;
  /** Flags for node before the entry (`--cpu-prof`, a preload). */
  nodeArgs?: string[];
  /** The compiled API to run: this checkout's unless told (an A/B probe runs another checkout's). */
  entry?: string;
  name?: string;
  /** How long start-up may take until /healthz answers 2xx (60 s unless told). */
  timeoutMs?: number;
  cwd?: string;
  detached?: boolean;
  keepChars?: number;
  /** Called once it is spawned, before it answers (to register it for an interrupt, to tee its output). */
  onLaunch?: (api: Launched) => void;
}

/** The built API (apps/api/dist/main.js) on a free loopback port; resolves once /healthz answers 2xx. */
export async function startApi(options: ApiOptions): Promise<Launched> {
  const port = await freePort();
  const api = launch(
    options.name ?? 'api',
    ['--max-semi-space-size=32', ...(options.nodeArgs ?? []), options.entry ?? API_MAIN],
    {
      port,
      cwd: options.cwd,
      detached: options.detached,
      keepChars: options.keepChars,
      env: {
        ...process.env,
        STATEHOUSE_DATABASE_URL: options.databaseUrl,
        STATEHOUSE_HOST: '127.0.0.1',
        STATEHOUSE_API_PORT: String(port),
        STATEHOUSE_SEED_DEMO: 'false',
        NO_COLOR: '1',
        ...options.env,
      },
    },
  );
  options.onLaunch?.(api);
  try {
    await waitUntilAnswering(api, '/healthz', {
      timeoutMs: options.timeoutMs,
      accept: (status) => status >= 200 && status < 300,
    });
  } catch (error) {
    await api.stop();
    throw error;
  }
  return api;
}

/** A token minted by the real token CLI against the database, as an operator would (its last output line). */
export function mintToken(
  databaseUrl: string,
  options: { role?: 'admin' | 'member'; profiles?: string; name?: string } = {},
): string {
  const out = execFileSync(
    process.execPath,
    [
      TOKEN_CLI,
      'create',
      '--role',
      options.role ?? 'admin',
      '--profiles',
      options.profiles ?? '*',
      '--name',
      options.name ?? 'test',
    ],
    {
      env: { ...process.env, STATEHOUSE_DATABASE_URL: databaseUrl, NO_COLOR: '1' },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const token = out.trim().split('\n').at(-1)?.trim();
  if (!token) throw new Error(`the token CLI printed no token:\n${out}`);
  return token;
}

/** Stops children this test started (by their handles) and waits for them to exit. */
export async function stopChildren(
  children: readonly ChildProcess[],
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
  const gone = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;
  for (const child of children) if (!gone(child)) child.kill(signal);
  await Promise.all(
    children.map((child) => (gone(child) ? undefined : new Promise((done) => child.once('exit', done)))),
  );
}
