import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { REPO_ROOT } from '../../browser/support/stack.js';
import { localService, readCompose, withFlag } from './compose.js';

/**
 * Real API processes (and the dashboard) on one database, started with docker-compose.yml's
 * commands and variables: what `docker compose up --scale api=N` runs, minus the containers.
 */

export const ADMIN_PASSWORD = 'topology-admin-password';
const API_ENTRY = join(REPO_ROOT, 'apps/api/dist/main.js');
const TOKEN_CLI = join(REPO_ROOT, 'apps/api/dist/cli/token.js');

export function assertBuilt(): void {
  if (!existsSync(API_ENTRY) || !existsSync(join(REPO_ROOT, 'apps/web/.next/BUILD_ID'))) {
    throw new Error('topology tests need `npm run build` first (npm test does it)');
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export interface Managed {
  name: string;
  url: string;
  child: ChildProcess;
  output: string[];
  log(): string;
}

function launch(name: string, url: string, args: string[], env: Record<string, string>): Managed {
  // Own process group: stopping it also ends what it spawned (Next's workers).
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const collect = (chunk: Buffer) => {
    output.push(chunk.toString('utf8'));
    if (output.length > 300) output.splice(0, output.length - 300);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  return { name, url, child, output, log: () => `--- ${name} ---\n${output.join('').slice(-4000)}` };
}

export async function waitUntilAnswering(managed: Managed, path: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (managed.child.exitCode !== null || managed.child.signalCode !== null) {
      throw new Error(
        `${managed.name} exited (${managed.child.exitCode ?? managed.child.signalCode})\n${managed.log()}`,
      );
    }
    try {
      const response = await fetch(`${managed.url}${path}`, { redirect: 'manual', signal: AbortSignal.timeout(2000) });
      if (response.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${managed.name} did not answer ${path}\n${managed.log()}`);
}

export async function stop(managed: Managed, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  const { child } = managed;
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const group = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      // already gone
    }
  };
  group(signal);
  const timer = setTimeout(() => group('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
  group('SIGKILL');
}

/** The compose services that run API replicas: `api`, then those of the `replicas` profile. */
export function apiServices(): string[] {
  return Object.keys(readCompose().services).filter((name) => /^api(-\d+)?$/.test(name));
}

/**
 * One API process from a compose API service (`api`, `api-2`, …), on `databaseUrl`. `settings`
 * override variables the service sets (the scheduler's intervals in tests); `extra` adds ones it
 * does not.
 */
export async function startApi(
  service: string,
  databaseUrl: string,
  settings: Record<string, string> = {},
  options: { wait?: boolean; extra?: Record<string, string> } = {},
): Promise<Managed> {
  const port = await freePort();
  const api = readCompose().services[service];
  if (!api) throw new Error(`docker-compose.yml has no ${service} service`);
  const { env, args } = localService(
    api,
    {
      STATEHOUSE_DATABASE_URL: databaseUrl,
      STATEHOUSE_HOST: '127.0.0.1',
      STATEHOUSE_API_PORT: String(port),
      STATEHOUSE_ADMIN_PASSWORD: ADMIN_PASSWORD,
      ...settings,
    },
    options.extra,
  );
  const managed = launch(service, `http://127.0.0.1:${port}`, args, env);
  if (options.wait !== false) await waitUntilAnswering(managed, '/healthz');
  return managed;
}

/** The dashboard, from the compose `web` service, pointed at one API replica. */
export async function startWeb(apiUrl: string): Promise<Managed> {
  const port = await freePort();
  const web = readCompose().services.web;
  const { env, args } = localService(web, { STATEHOUSE_API_URL: apiUrl }, { NODE_ENV: 'production' });
  const managed = launch(
    'web',
    `http://127.0.0.1:${port}`,
    withFlag(withFlag(args, '-p', String(port)), '-H', '127.0.0.1'),
    env,
  );
  await waitUntilAnswering(managed, '/login');
  return managed;
}

/** An admin token minted by the real CLI against the database (its last output line). */
export function adminToken(databaseUrl: string): string {
  return execFileSync(
    process.execPath,
    [TOKEN_CLI, 'create', '--role', 'admin', '--profiles', '*', '--name', 'topology'],
    {
      env: { ...process.env, STATEHOUSE_DATABASE_URL: databaseUrl },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  )
    .trim()
    .split('\n')
    .pop()!;
}

export interface Reply {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies of many shapes; the assertions check them.
  body: any;
  headers: Headers;
}

/** A JSON call with the admin token. */
export function client(token: string) {
  return async (
    base: string,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Reply> => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON (an HTML page)
    }
    return { status: response.status, body: parsed, headers: response.headers };
  };
}

/** Server-sent events from a fetch response, each with the time it arrived. */
// biome-ignore lint/suspicious/noExplicitAny: event payloads of several shapes; the assertions check them.
export async function* sseEvents(response: Response): AsyncGenerator<{ event: string; data: any; at: number }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    const at = performance.now();
    buffer += decoder.decode(value, { stream: true });
    let index = buffer.indexOf('\n\n');
    while (index >= 0) {
      const block = buffer.slice(0, index);
      buffer = buffer.slice(index + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
      const data = /^data: (.*)$/m.exec(block)?.[1];
      yield { event, data: data ? JSON.parse(data) : null, at };
      index = buffer.indexOf('\n\n');
    }
  }
}

/** A small seeded PRNG (mulberry32): the suites are random but replayable. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
