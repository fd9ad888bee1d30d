import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  API_MAIN,
  freePort,
  type Launched,
  launch,
  mintToken,
  REPO_ROOT,
  waitUntilAnswering,
} from '../../support/process-kit.js';
import { localService, readCompose, withFlag } from './compose.js';

/**
 * Real API processes (and the dashboard) on one database, started with docker-compose.yml's
 * commands and variables: what `docker compose up --scale api=N` runs, minus the containers.
 */

export const ADMIN_PASSWORD = 'topology-admin-password';

export function assertBuilt(): void {
  if (!existsSync(API_MAIN) || !existsSync(join(REPO_ROOT, 'apps/web/.next/BUILD_ID'))) {
    throw new Error('topology tests need `npm run build` first (npm test does it)');
  }
}

/** A process of the cluster: an API replica or the dashboard. */
export type Managed = Launched;

/** One process from a compose service's command line, on `port`, with only the variables compose would give it. */
function launchService(name: string, port: number, args: string[], env: Record<string, string>): Managed {
  // The service's environment, not this shell's: what the container would see.
  return launch(name, args, {
    port,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', ...env },
    keepChars: 4_000,
  });
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
  const managed = launchService(service, port, args, env);
  if (options.wait !== false) await waitUntilAnswering(managed, '/healthz');
  return managed;
}

/** The dashboard, from the compose `web` service, pointed at one API replica. */
export async function startWeb(apiUrl: string): Promise<Managed> {
  const port = await freePort();
  const web = readCompose().services.web;
  const { env, args } = localService(web, { STATEHOUSE_API_URL: apiUrl }, { NODE_ENV: 'production' });
  const managed = launchService('web', port, withFlag(withFlag(args, '-p', String(port)), '-H', '127.0.0.1'), env);
  await waitUntilAnswering(managed, '/login');
  return managed;
}

/** An admin token minted by the real CLI against the database (its last output line). */
export function adminToken(databaseUrl: string): string {
  return mintToken(databaseUrl, { name: 'topology' });
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

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
