import { isIP } from 'node:net';
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
  /** How often the retention policies are applied (0 disables that job). */
  retentionIntervalSeconds: number;
  /**
   * How often the liveness sweep runs (docs/domain.md §10): orphaned open rows, expired handoffs.
   * Once per interval across all replicas, like every scheduled job. 0 disables it.
   */
  sweepIntervalSeconds: number;
  /** Liveness windows handed to the state layer. */
  runtime: RuntimeWindows;
  /** Largest file POST /v1/imports accepts (streamed to disk, never held in memory). */
  importMaxBytes: number;
  /** Where uploads are written while they are imported (a private directory each). */
  importDir: string;
  /** Whether this process takes part in running scheduled jobs (each interval runs once across all that do). */
  runJobs: boolean;
  /**
   * How often this process looks for a due job; unset: 15 s, or half the shortest enabled interval
   * when that is shorter.
   */
  jobTickSeconds: number | undefined;
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
  /** PostgreSQL: repeated writes as named prepared statements (off behind a transaction-mode pooler). */
  pgPreparedStatements: boolean;
  /** SQLite: most requests committed by one shared transaction (group commit; 1 = each alone). */
  groupCommitMaxRequests: number;
  /** SQLite: how late a commit's new messages may reach the search indexes, ms (docs/search.md); 0 = at every COMMIT. */
  searchIndexLagMs: number;
  /** SQLite: appends run on a writer thread of their own (docs/architecture.md, "The append writer"). */
  appendWriter: boolean;
  /**
   * Peers whose X-Forwarded-For / -Host / -Proto are believed (express `trust proxy` values:
   * addresses, CIDRs, `loopback`, `linklocal`, `uniquelocal`). The dashboard is one: it reports
   * the browser's address and origin. Empty: believe no one.
   */
  trustedProxies: string[];
}

/** Interval of the job that finishes deferred work a crash interrupted (not configurable). */
export const DEFERRED_WORK_INTERVAL_SECONDS = 60;

function seconds(value: string | undefined, fallback: number, name: string, minimum = 0): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < minimum) throw new Error(`${name} must be a number of seconds ≥ ${minimum}`);
  return parsed;
}

function count(value: string | undefined, fallback: number, name: string, minimum = 1): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < minimum) throw new Error(`${name} must be a whole number ≥ ${minimum}`);
  return parsed;
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * `STATEHOUSE_TRUSTED_PROXIES`: comma-separated; unset → loopback (where the dashboard runs);
 * empty or `none` → nobody. An entry that is not an address, a CIDR or a known name stops start-up.
 */
export function parseTrustedProxies(value: string | undefined): string[] {
  if (value === undefined) return ['loopback'];
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '' && entry !== 'none');
  for (const entry of entries) {
    const [address, prefix, ...rest] = entry.split('/');
    const bits = isIP(address) === 4 ? 32 : isIP(address) === 6 ? 128 : 0;
    const validPrefix =
      prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits && rest.length === 0);
    if (!PROXY_NAMES.has(entry) && (bits === 0 || !validPrefix)) {
      throw new Error(
        `STATEHOUSE_TRUSTED_PROXIES: "${entry}" is not an address, a CIDR or one of loopback, linklocal, uniquelocal`,
      );
    }
  }
  return entries;
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
    retentionIntervalSeconds: seconds(
      env.STATEHOUSE_RETENTION_INTERVAL_SECONDS,
      3600,
      'STATEHOUSE_RETENTION_INTERVAL_SECONDS',
    ),
    trustedProxies: parseTrustedProxies(env.STATEHOUSE_TRUSTED_PROXIES),
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
    importMaxBytes: count(env.STATEHOUSE_IMPORT_MAX_BYTES, IMPORT_MAX_BYTES_DEFAULT, 'STATEHOUSE_IMPORT_MAX_BYTES'),
    importDir: env.STATEHOUSE_IMPORT_DIR || tmpdir(),
    runJobs: env.STATEHOUSE_RUN_JOBS !== 'false',
    jobTickSeconds:
      env.STATEHOUSE_JOB_TICK_SECONDS === undefined || env.STATEHOUSE_JOB_TICK_SECONDS === ''
        ? undefined
        : seconds(env.STATEHOUSE_JOB_TICK_SECONDS, 15, 'STATEHOUSE_JOB_TICK_SECONDS', 0.05),
    idempotencyPurgeIntervalSeconds: seconds(
      env.STATEHOUSE_IDEMPOTENCY_PURGE_INTERVAL_SECONDS,
      3600,
      'STATEHOUSE_IDEMPOTENCY_PURGE_INTERVAL_SECONDS',
    ),
    maintenanceIntervalSeconds: seconds(
      env.STATEHOUSE_MAINTENANCE_INTERVAL_SECONDS,
      3600,
      'STATEHOUSE_MAINTENANCE_INTERVAL_SECONDS',
    ),
    backupIntervalSeconds: seconds(env.STATEHOUSE_BACKUP_INTERVAL_SECONDS, 0, 'STATEHOUSE_BACKUP_INTERVAL_SECONDS'),
    backupDirectory: env.STATEHOUSE_BACKUP_DIR || './data/backups',
    backupKeep: count(env.STATEHOUSE_BACKUP_KEEP, 7, 'STATEHOUSE_BACKUP_KEEP'),
    readDeadlineMs: count(env.STATEHOUSE_READ_DEADLINE_MS, 10_000, 'STATEHOUSE_READ_DEADLINE_MS'),
    readWorkers: count(env.STATEHOUSE_READ_WORKERS, 2, 'STATEHOUSE_READ_WORKERS'),
    pgPreparedStatements: env.STATEHOUSE_PG_PREPARED_STATEMENTS !== 'false',
    groupCommitMaxRequests: count(env.STATEHOUSE_GROUP_COMMIT_MAX_REQUESTS, 64, 'STATEHOUSE_GROUP_COMMIT_MAX_REQUESTS'),
    searchIndexLagMs: count(env.STATEHOUSE_SEARCH_INDEX_LAG_MS, 100, 'STATEHOUSE_SEARCH_INDEX_LAG_MS', 0),
    appendWriter: env.STATEHOUSE_APPEND_WRITER !== 'false',
  };
}
