import { tmpdir } from 'node:os';
import { IMPORT_MAX_BYTES_DEFAULT } from '@statehouse/contracts';
import { DEFAULT_DATABASE_URL, dialectOf } from '@statehouse/state';

/** Configuration by environment (API.md, Configuration). */
export interface ApiConfig {
  databaseUrl: string;
  host: string;
  port: number;
  adminPassword?: string;
  /** Seed demo data into a new embedded database (default true for SQLite). */
  seedDemo: boolean;
  plugins: string[];
  /** Secure cookies when served over HTTPS behind a proxy. */
  secureCookies: boolean;
  /** How often the retention policies are applied (0 disables the scheduler). */
  retentionIntervalSeconds: number;
  /** Largest file POST /v1/imports accepts (streamed to disk, never held in memory). */
  importMaxBytes: number;
  /** Where uploads are written while they are imported (a private directory each). */
  importDir: string;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  const databaseUrl = env.STATEHOUSE_DATABASE_URL || DEFAULT_DATABASE_URL;
  const seedFlag = env.STATEHOUSE_SEED_DEMO;
  return {
    databaseUrl,
    host: env.STATEHOUSE_HOST || '127.0.0.1',
    port: Number(env.STATEHOUSE_API_PORT || 3000),
    adminPassword: env.STATEHOUSE_ADMIN_PASSWORD || undefined,
    seedDemo: seedFlag === undefined || seedFlag === '' ? dialectOf(databaseUrl) === 'sqlite' : seedFlag === 'true',
    plugins: (env.STATEHOUSE_PLUGINS ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
    secureCookies: env.STATEHOUSE_SECURE_COOKIES === 'true',
    retentionIntervalSeconds: Number(env.STATEHOUSE_RETENTION_INTERVAL_SECONDS ?? 3600),
    importMaxBytes: positiveOr(env.STATEHOUSE_IMPORT_MAX_BYTES, IMPORT_MAX_BYTES_DEFAULT),
    importDir: env.STATEHOUSE_IMPORT_DIR || tmpdir(),
  };
}

function positiveOr(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value !== undefined && value !== '' && Number.isFinite(n) && n > 0 ? Math.floor(n) : fallback;
}
