import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/**
 * Starts the real system for browser tests: the built API (its own temp SQLite file, demo data,
 * a known admin password) and the built dashboard pointed at it. Nothing is mocked.
 */

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const API_ENTRY = join(REPO_ROOT, 'apps/api/dist/main.js');
const TOKEN_CLI = join(REPO_ROOT, 'apps/api/dist/cli/token.js');
const WEB_DIR = join(REPO_ROOT, 'apps/web');
const WEB_BUILD_ID = join(WEB_DIR, '.next/BUILD_ID');
const READY_TIMEOUT_MS = 60_000;

export const ADMIN_USERNAME = 'admin';
export const ADMIN_PASSWORD = 'e2e-admin-password-123';

export interface Stack {
  apiUrl: string;
  webUrl: string;
  databaseUrl: string;
  /** Output of both servers so far, for failure messages. */
  logs(): string;
  stop(): Promise<void>;
}

/** Fails fast with the fix when the build step was skipped (the tests never build by themselves). */
export function assertBuilt(): void {
  const missing = [
    existsSync(API_ENTRY) ? null : 'apps/api/dist/main.js',
    existsSync(WEB_BUILD_ID) ? null : 'apps/web/.next (a production build)',
  ].filter(Boolean);
  if (missing.length > 0) {
    throw new Error(
      `Browser tests need built artifacts; missing: ${missing.join(', ')}. Run \`npm run build\` at the repository root first (\`npm test\` does it for you).`,
    );
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port')),
      );
    });
  });
}

interface Managed {
  name: string;
  child: ChildProcess;
  output: string[];
}

function launch(
  name: string,
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Managed {
  // detached: the child leads its own process group, so stop() can end it and every child it spawned.
  const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const collect = (chunk: Buffer) => {
    output.push(chunk.toString('utf8'));
    if (output.length > 400) output.splice(0, output.length - 400);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  return { name, child, output };
}

async function waitUntilAnswering(managed: Managed, url: string, logs: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (managed.child.exitCode !== null || managed.child.signalCode !== null) {
      throw new Error(`${managed.name} exited before it was ready (code ${managed.child.exitCode}).\n${logs()}`);
    }
    try {
      const response = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(2_000) });
      if (response.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((wait) => setTimeout(wait, 200));
  }
  throw new Error(`${managed.name} did not answer ${url} within ${READY_TIMEOUT_MS / 1000} s.\n${logs()}`);
}

async function stopProcess(managed: Managed): Promise<void> {
  const { child } = managed;
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // the group is already gone
    }
  };
  signalGroup('SIGTERM');
  const timer = setTimeout(() => signalGroup('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
  // Children of the leader (Next's workers) may outlive it by a moment.
  signalGroup('SIGKILL');
}

export interface StackOptions {
  /** Extra environment of the API process (STATEHOUSE_TRUSTED_PROXIES, …). */
  apiEnv?: Record<string, string>;
  /** Extra environment of the dashboard process (STATEHOUSE_WEB_TRUSTED_PROXIES, …). */
  webEnv?: Record<string, string>;
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  assertBuilt();
  const tempDir = await mkdtemp(join(tmpdir(), 'statehouse-e2e-'));
  const [apiPort, webPort] = [await freePort(), await freePort()];
  const databaseUrl = `file:${join(tempDir, 'statehouse.db')}`;
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const webUrl = `http://127.0.0.1:${webPort}`;
  const processes: Managed[] = [];
  const logs = () =>
    processes.map((managed) => `--- ${managed.name} ---\n${managed.output.join('').slice(-6_000)}`).join('\n');

  const stop = async () => {
    await Promise.all(processes.map(stopProcess));
    await rm(tempDir, { recursive: true, force: true });
  };

  try {
    const api = launch('api', process.execPath, ['--max-semi-space-size=32', API_ENTRY], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        STATEHOUSE_DATABASE_URL: databaseUrl,
        STATEHOUSE_HOST: '127.0.0.1',
        STATEHOUSE_API_PORT: String(apiPort),
        STATEHOUSE_ADMIN_PASSWORD: ADMIN_PASSWORD,
        STATEHOUSE_SEED_DEMO: 'true',
        NO_COLOR: '1',
        ...options.apiEnv,
      },
    });
    processes.push(api);
    await waitUntilAnswering(api, `${apiUrl}/healthz`, logs);

    const nextBin = join(
      dirname(createRequire(join(WEB_DIR, 'package.json')).resolve('next/package.json')),
      'dist/bin/next',
    );
    const web = launch('web', process.execPath, [nextBin, 'start', '-p', String(webPort), '-H', '127.0.0.1'], {
      cwd: WEB_DIR,
      env: {
        ...process.env,
        STATEHOUSE_API_URL: apiUrl,
        NEXT_TELEMETRY_DISABLED: '1',
        NODE_ENV: 'production',
        ...options.webEnv,
      },
    });
    processes.push(web);
    await waitUntilAnswering(web, `${webUrl}/login`, logs);
  } catch (error) {
    await stop();
    throw error;
  }

  return { apiUrl, webUrl, databaseUrl, logs, stop };
}

/** An admin API token minted by the real CLI against the test database (printed as its last line). */
export async function createAdminToken(stack: Stack): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [TOKEN_CLI, 'create', '--role', 'admin', '--profiles', '*', '--name', 'e2e'],
    { cwd: REPO_ROOT, env: { ...process.env, STATEHOUSE_DATABASE_URL: stack.databaseUrl, NO_COLOR: '1' } },
  );
  const token = stdout.trim().split('\n').at(-1)?.trim();
  if (!token) throw new Error(`token CLI printed no token:\n${stdout}`);
  return token;
}
