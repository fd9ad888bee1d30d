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
  /** How often the retention policies are applied (0 disables that job). */
  retentionIntervalSeconds: number;
  /** Whether this process takes part in running scheduled jobs (each interval runs once across all that do). */
  runJobs: boolean;
  /** How often this process looks for a due job. */
  jobTickSeconds: number;
  /** Expired idempotency records are purged this often (0 disables). */
  idempotencyPurgeIntervalSeconds: number;
  /** Search index segment merges, incremental vacuum, planner statistics (0 disables). */
  maintenanceIntervalSeconds: number;
  /** Scheduled backups (0 disables; SQLite, or PostgreSQL with pg_dump installed). */
  backupIntervalSeconds: number;
  backupDirectory: string;
  backupKeep: number;
  /** SQLite: deadline of a heavy read (lists, search, lineage, export), in ms. */
  readDeadlineMs: number;
  /** SQLite: threads of the read pool. */
  readWorkers: number;
}

/** Interval of the job that finishes deferred work a crash interrupted (not configurable). */
export const DEFERRED_WORK_INTERVAL_SECONDS = 60;

function numberOf(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = env[name];
  if (value === undefined || value.trim() === '') return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0) throw new Error(`${name} must be a number ≥ 0, got "${value}"`);
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
    retentionIntervalSeconds: numberOf(env, 'STATEHOUSE_RETENTION_INTERVAL_SECONDS', 3600),
    runJobs: env.STATEHOUSE_RUN_JOBS !== 'false',
    jobTickSeconds: Math.max(0.05, numberOf(env, 'STATEHOUSE_JOB_TICK_SECONDS', 15)),
    idempotencyPurgeIntervalSeconds: numberOf(env, 'STATEHOUSE_IDEMPOTENCY_PURGE_INTERVAL_SECONDS', 3600),
    maintenanceIntervalSeconds: numberOf(env, 'STATEHOUSE_MAINTENANCE_INTERVAL_SECONDS', 3600),
    backupIntervalSeconds: numberOf(env, 'STATEHOUSE_BACKUP_INTERVAL_SECONDS', 0),
    backupDirectory: env.STATEHOUSE_BACKUP_DIR || './data/backups',
    backupKeep: Math.max(1, Math.floor(numberOf(env, 'STATEHOUSE_BACKUP_KEEP', 7))),
    readDeadlineMs: Math.max(1, numberOf(env, 'STATEHOUSE_READ_DEADLINE_MS', 10_000)),
    readWorkers: Math.max(1, Math.floor(numberOf(env, 'STATEHOUSE_READ_WORKERS', 2))),
  };
}
