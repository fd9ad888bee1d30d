import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/** Real OS processes for the topology tests: the built API (apps/api/dist) and its token CLI. */
export const API_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
export const TOKEN_CLI = fileURLToPath(new URL('../../dist/cli/token.js', import.meta.url));

export function assertBuilt(): void {
  if (!existsSync(API_MAIN) || !existsSync(TOKEN_CLI)) {
    throw new Error('apps/api/dist is missing: run `npm run build` (npm test does it) before this suite');
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/**
 * Waits for the child's /healthz. A deadline, not a count of polls: a start-up that takes 15 s on
 * a loaded 2-core machine is slow, not broken (a child that exits fails at once).
 */
export async function waitForHealth(
  base: string,
  child: ChildProcess,
  log: () => string,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`API exited early:\n${log()}`);
    try {
      if ((await fetch(`${base}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`API did not start:\n${log()}`);
}

/** An admin token made by the CLI against the database, as an operator would. */
export function createAdminToken(databaseUrl: string, name: string): string {
  return execFileSync(process.execPath, [TOKEN_CLI, 'create', '--role', 'admin', '--profiles', '*', '--name', name], {
    env: { ...process.env, STATEHOUSE_DATABASE_URL: databaseUrl },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  })
    .trim()
    .split('\n')
    .pop()!;
}

export interface ApiProcess {
  base: string;
  child: ChildProcess;
  log(): string;
}

/** Starts the built API on a free port against `databaseUrl`; resolves once it answers. */
export async function startApi(databaseUrl: string, env: Record<string, string> = {}): Promise<ApiProcess> {
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, ['--max-semi-space-size=32', API_MAIN], {
    env: {
      ...process.env,
      STATEHOUSE_DATABASE_URL: databaseUrl,
      STATEHOUSE_API_PORT: String(port),
      STATEHOUSE_SEED_DEMO: 'false',
      STATEHOUSE_ADMIN_PASSWORD: 'cross-process-admin',
      STATEHOUSE_RETENTION_INTERVAL_SECONDS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const base = `http://127.0.0.1:${port}`;
  await waitForHealth(base, child, () => output);
  return { base, child, log: () => output };
}

/** Stops processes this test started (by their handles) and waits for them to exit. */
export async function stopAll(children: readonly ChildProcess[], signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  await Promise.all(
    children.map(
      (child) =>
        new Promise((resolve) =>
          child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.once('exit', resolve),
        ),
    ),
  );
}
