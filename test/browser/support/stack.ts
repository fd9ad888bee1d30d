import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import {
  API_MAIN,
  freePort,
  type Launched,
  launch,
  REPO_ROOT,
  startApi,
  TOKEN_CLI,
  waitUntilAnswering,
} from '../../support/process-kit.js';

/**
 * Starts the real system for browser tests: the built API (its own temp SQLite file, demo data,
 * a known admin password) and the built dashboard pointed at it. Nothing is mocked.
 */

export { REPO_ROOT };

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
    existsSync(API_MAIN) ? null : 'apps/api/dist/main.js',
    existsSync(WEB_BUILD_ID) ? null : 'apps/web/.next (a production build)',
  ].filter(Boolean);
  if (missing.length > 0) {
    throw new Error(
      `Browser tests need built artifacts; missing: ${missing.join(', ')}. Run \`npm run build\` at the repository root first (\`npm test\` does it for you).`,
    );
  }
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
  const databaseUrl = `file:${join(tempDir, 'statehouse.db')}`;
  const processes: Launched[] = [];
  const logs = () => processes.map((managed) => managed.log()).join('\n');

  const stop = async () => {
    await Promise.all(processes.map((managed) => managed.stop()));
    await rm(tempDir, { recursive: true, force: true });
  };

  try {
    const api = await startApi({
      databaseUrl,
      timeoutMs: READY_TIMEOUT_MS,
      keepChars: 6_000,
      env: { STATEHOUSE_ADMIN_PASSWORD: ADMIN_PASSWORD, STATEHOUSE_SEED_DEMO: 'true', ...options.apiEnv },
    });
    processes.push(api);

    const nextBin = join(
      dirname(createRequire(join(WEB_DIR, 'package.json')).resolve('next/package.json')),
      'dist/bin/next',
    );
    const webPort = await freePort();
    const web = launch('web', [nextBin, 'start', '-p', String(webPort), '-H', '127.0.0.1'], {
      port: webPort,
      cwd: WEB_DIR,
      keepChars: 6_000,
      graceMs: 5_000,
      env: {
        ...process.env,
        STATEHOUSE_API_URL: api.url,
        NEXT_TELEMETRY_DISABLED: '1',
        NODE_ENV: 'production',
        ...options.webEnv,
      },
    });
    processes.push(web);
    await waitUntilAnswering(web, '/login', { timeoutMs: READY_TIMEOUT_MS });
    return { apiUrl: api.url, webUrl: web.url, databaseUrl, logs, stop };
  } catch (error) {
    await stop();
    throw error;
  }
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
