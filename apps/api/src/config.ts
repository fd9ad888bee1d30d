import { tmpdir } from 'node:os';
import { IMPORT_MAX_BYTES_DEFAULT } from '@statehouse/contracts';
import { DEFAULT_DATABASE_URL, DEFAULT_RUNTIME_WINDOWS, dialectOf, type RuntimeWindows } from '@statehouse/state';

/** Configuration by environment (README, Configuration; docs/api.md). */
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
  /**
   * How often the liveness sweep runs (docs/domain.md §10): orphaned open rows, expired handoffs.
   * It also runs once at start-up. 0 disables both.
   */
  sweepIntervalSeconds: number;
  /** Liveness windows handed to the state layer. */
  runtime: RuntimeWindows;
  /** Largest file POST /v1/imports accepts (streamed to disk, never held in memory). */
  importMaxBytes: number;
  /** Where uploads are written while they are imported (a private directory each). */
  importDir: string;
}

function seconds(value: string | undefined, fallback: number, name: string, minimum = 0): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < minimum) throw new Error(`${name} must be a number of seconds ≥ ${minimum}`);
  return parsed;
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
    sweepIntervalSeconds: seconds(env.STATEHOUSE_SWEEP_INTERVAL_SECONDS, 30, 'STATEHOUSE_SWEEP_INTERVAL_SECONDS'),
    runtime: {
      gatewayTimeoutMs:
        seconds(
          env.STATEHOUSE_GATEWAY_TIMEOUT_SECONDS,
          DEFAULT_RUNTIME_WINDOWS.gatewayTimeoutMs / 1000,
          'STATEHOUSE_GATEWAY_TIMEOUT_SECONDS',
          1,
        ) * 1000,
      orphanIdleMs:
        seconds(
          env.STATEHOUSE_ORPHAN_IDLE_SECONDS,
          DEFAULT_RUNTIME_WINDOWS.orphanIdleMs / 1000,
          'STATEHOUSE_ORPHAN_IDLE_SECONDS',
        ) * 1000,
      handoffTimeoutMs:
        seconds(
          env.STATEHOUSE_HANDOFF_TIMEOUT_SECONDS,
          DEFAULT_RUNTIME_WINDOWS.handoffTimeoutMs / 1000,
          'STATEHOUSE_HANDOFF_TIMEOUT_SECONDS',
          1,
        ) * 1000,
    },
    importMaxBytes: positiveOr(env.STATEHOUSE_IMPORT_MAX_BYTES, IMPORT_MAX_BYTES_DEFAULT),
    importDir: env.STATEHOUSE_IMPORT_DIR || tmpdir(),
  };
}

function positiveOr(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value !== undefined && value !== '' && Number.isFinite(n) && n > 0 ? Math.floor(n) : fallback;
}
