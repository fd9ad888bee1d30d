import { tmpdir } from 'node:os';
import { IMPORT_MAX_BYTES_DEFAULT } from '@statehouse/contracts';
import { DEFAULT_DATABASE_URL, DEFAULT_RUNTIME_WINDOWS, dialectOf, type RuntimeWindows } from '@statehouse/state';
import proxyAddr from 'proxy-addr';
import { z } from 'zod';

/** Configuration by environment (README, Configuration; docs/api.md). */
export interface ApiConfig {
  databaseUrl: string;
  /** `STATEHOUSE_TEST_HOOKS=1`: expose the rule-free test hooks (docs/api.md, "Test hooks"). Never in production. */
  testHooks?: boolean;
  host: string;
  port: number;
  adminPassword?: string;
  /** Seed demo data into a new embedded database (default true for SQLite). */
  seedDemo: boolean;
  /** `STATEHOUSE_SEED_DEMO` was set true: an existing but empty store (PostgreSQL) is seeded too. */
  seedDemoExplicit: boolean;
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
  /** `npm run import`: the target duration of one batch, in ms (unset: the importer's own). */
  importBatchMs: number | undefined;
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
   * Peers whose X-Forwarded-For / -Host / -Proto are believed (express `trust proxy` values, which
   * proxy-addr reads: addresses, CIDRs, `loopback`, `linklocal`, `uniquelocal`). The dashboard is
   * one: it reports the browser's address and origin. Empty: believe no one.
   */
  trustedProxies: string[];
}

/** Interval of the job that finishes deferred work a crash interrupted (not configurable). */
export const DEFERRED_WORK_INTERVAL_SECONDS = 60;

/** `30`, `1.5` (spaces around allowed): never `0x1e`, `1e3`, `Infinity` or a blank, which `Number()` reads. */
const PLAIN_NUMBER = /^\d+(\.\d+)?$/;
const WHOLE_NUMBER = /^\d+$/;

/** Unset and empty mean the same (`VAR=` in a compose file or a shell); a blank of spaces does not. */
const setting = z
  .string()
  .optional()
  .transform((value) => (value === '' ? undefined : value));

/** One spelling for every switch: `true`/`false` or `1`/`0` (any case); anything else stops start-up. */
function flag<Fallback extends boolean | undefined>(fallback: Fallback) {
  return setting.transform((value, ctx): boolean | Fallback => {
    if (value === undefined) return fallback;
    const normalized = value.trim().toLowerCase();
    if (normalized === 'true' || normalized === '1') return true;
    if (normalized === 'false' || normalized === '0') return false;
    ctx.addIssue({ code: 'custom', message: `must be true, false, 1 or 0, not ${JSON.stringify(value)}` });
    return z.NEVER;
  });
}

/** A duration in seconds, a plain decimal number ≥ `minimum`. */
function seconds<Fallback extends number | undefined>(fallback: Fallback, minimum = 0) {
  return setting.transform((value, ctx): number | Fallback => {
    if (value === undefined) return fallback;
    // A blank value used to read as 0 (`Number(' ')`): STATEHOUSE_SWEEP_INTERVAL_SECONDS=" " turned the sweep off.
    const parsed = PLAIN_NUMBER.test(value.trim()) ? Number(value.trim()) : Number.NaN;
    if (Number.isFinite(parsed) && parsed >= minimum) return parsed;
    ctx.addIssue({ code: 'custom', message: `must be a number of seconds ≥ ${minimum}, not ${JSON.stringify(value)}` });
    return z.NEVER;
  });
}

/** A whole number in [minimum, maximum]. */
function whole<Fallback extends number | undefined>(
  fallback: Fallback,
  minimum = 1,
  maximum = Number.MAX_SAFE_INTEGER,
  what = 'a whole number',
) {
  return setting.transform((value, ctx): number | Fallback => {
    if (value === undefined) return fallback;
    const parsed = WHOLE_NUMBER.test(value.trim()) ? Number(value.trim()) : Number.NaN;
    if (Number.isSafeInteger(parsed) && parsed >= minimum && parsed <= maximum) return parsed;
    const range = maximum === Number.MAX_SAFE_INTEGER ? `≥ ${minimum}` : `from ${minimum} to ${maximum}`;
    ctx.addIssue({ code: 'custom', message: `must be ${what} ${range}, not ${JSON.stringify(value)}` });
    return z.NEVER;
  });
}

const text = (fallback: string) => setting.transform((value) => value ?? fallback);

/** Comma-separated, blanks dropped. */
const list = z
  .string()
  .optional()
  .transform((value) =>
    (value ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
  );

/**
 * `STATEHOUSE_TRUSTED_PROXIES`: comma-separated; unset → loopback (where the dashboard runs);
 * empty or `none` → nobody. proxy-addr, which express uses for `trust proxy`, must compile every
 * entry (an address, a CIDR or loopback, linklocal, uniquelocal): else start-up stops.
 */
const trustedProxies = z
  .string()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined) return ['loopback'];
    const entries = value
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '' && entry !== 'none');
    for (const entry of entries) {
      try {
        proxyAddr.compile(entry);
      } catch {
        ctx.addIssue({
          code: 'custom',
          message: `${JSON.stringify(entry)} is not an address, a CIDR or one of loopback, linklocal, uniquelocal`,
        });
        return z.NEVER;
      }
    }
    return entries;
  });

/** `file:<path>` (or a path) for SQLite; a PostgreSQL URL must parse as one. */
const databaseUrl = text(DEFAULT_DATABASE_URL).superRefine((value, ctx) => {
  if (dialectOf(value) !== 'postgres' || URL.canParse(value)) return;
  ctx.addIssue({ code: 'custom', message: 'is not a valid postgres:// URL' });
});

/**
 * Every variable the API reads, by its name: a value that cannot be meant stops start-up
 * (loadConfig's error names each such variable and why) instead of falling back silently.
 */
const ApiEnvSchema = z.object({
  STATEHOUSE_DATABASE_URL: databaseUrl,
  STATEHOUSE_TEST_HOOKS: flag(false),
  STATEHOUSE_HOST: text('127.0.0.1'),
  STATEHOUSE_API_PORT: whole(3000, 1, 65_535, 'a port number'),
  STATEHOUSE_ADMIN_PASSWORD: setting,
  // Unset: seed a new embedded database (resolved against the dialect below).
  STATEHOUSE_SEED_DEMO: flag(undefined),
  STATEHOUSE_PLUGINS: list,
  STATEHOUSE_SECURE_COOKIES: flag(false),
  STATEHOUSE_TRUSTED_PROXIES: trustedProxies,
  STATEHOUSE_RETENTION_INTERVAL_SECONDS: seconds(3600),
  STATEHOUSE_SWEEP_INTERVAL_SECONDS: seconds(30),
  STATEHOUSE_GATEWAY_TIMEOUT_SECONDS: seconds(DEFAULT_RUNTIME_WINDOWS.gatewayTimeoutMs / 1000, 1),
  STATEHOUSE_ORPHAN_IDLE_SECONDS: seconds(DEFAULT_RUNTIME_WINDOWS.orphanIdleMs / 1000),
  STATEHOUSE_HANDOFF_TIMEOUT_SECONDS: seconds(DEFAULT_RUNTIME_WINDOWS.handoffTimeoutMs / 1000, 1),
  STATEHOUSE_IMPORT_MAX_BYTES: whole(IMPORT_MAX_BYTES_DEFAULT),
  STATEHOUSE_IMPORT_DIR: setting,
  STATEHOUSE_IMPORT_BATCH_MS: whole(undefined),
  STATEHOUSE_RUN_JOBS: flag(true),
  STATEHOUSE_JOB_TICK_SECONDS: seconds(undefined, 0.05),
  STATEHOUSE_IDEMPOTENCY_PURGE_INTERVAL_SECONDS: seconds(3600),
  STATEHOUSE_MAINTENANCE_INTERVAL_SECONDS: seconds(3600),
  STATEHOUSE_BACKUP_INTERVAL_SECONDS: seconds(0),
  STATEHOUSE_BACKUP_DIR: text('./data/backups'),
  STATEHOUSE_BACKUP_KEEP: whole(7),
  STATEHOUSE_READ_DEADLINE_MS: whole(10_000),
  STATEHOUSE_READ_WORKERS: whole(2),
  STATEHOUSE_PG_PREPARED_STATEMENTS: flag(true),
  STATEHOUSE_GROUP_COMMIT_MAX_REQUESTS: whole(64),
  STATEHOUSE_SEARCH_INDEX_LAG_MS: whole(100, 0),
  STATEHOUSE_APPEND_WRITER: flag(true),
});

/** The API's environment read and checked as a whole: throws one error naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  const parsed = ApiEnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`invalid configuration:\n${problems.join('\n')}`);
  }
  const e = parsed.data;
  return {
    databaseUrl: e.STATEHOUSE_DATABASE_URL,
    testHooks: e.STATEHOUSE_TEST_HOOKS,
    host: e.STATEHOUSE_HOST,
    port: e.STATEHOUSE_API_PORT,
    adminPassword: e.STATEHOUSE_ADMIN_PASSWORD,
    seedDemo: e.STATEHOUSE_SEED_DEMO ?? dialectOf(e.STATEHOUSE_DATABASE_URL) === 'sqlite',
    seedDemoExplicit: e.STATEHOUSE_SEED_DEMO === true,
    plugins: e.STATEHOUSE_PLUGINS,
    secureCookies: e.STATEHOUSE_SECURE_COOKIES,
    trustedProxies: e.STATEHOUSE_TRUSTED_PROXIES,
    retentionIntervalSeconds: e.STATEHOUSE_RETENTION_INTERVAL_SECONDS,
    sweepIntervalSeconds: e.STATEHOUSE_SWEEP_INTERVAL_SECONDS,
    runtime: {
      gatewayTimeoutMs: e.STATEHOUSE_GATEWAY_TIMEOUT_SECONDS * 1000,
      orphanIdleMs: e.STATEHOUSE_ORPHAN_IDLE_SECONDS * 1000,
      handoffTimeoutMs: e.STATEHOUSE_HANDOFF_TIMEOUT_SECONDS * 1000,
    },
    importMaxBytes: e.STATEHOUSE_IMPORT_MAX_BYTES,
    importDir: e.STATEHOUSE_IMPORT_DIR ?? tmpdir(),
    importBatchMs: e.STATEHOUSE_IMPORT_BATCH_MS,
    runJobs: e.STATEHOUSE_RUN_JOBS,
    jobTickSeconds: e.STATEHOUSE_JOB_TICK_SECONDS,
    idempotencyPurgeIntervalSeconds: e.STATEHOUSE_IDEMPOTENCY_PURGE_INTERVAL_SECONDS,
    maintenanceIntervalSeconds: e.STATEHOUSE_MAINTENANCE_INTERVAL_SECONDS,
    backupIntervalSeconds: e.STATEHOUSE_BACKUP_INTERVAL_SECONDS,
    backupDirectory: e.STATEHOUSE_BACKUP_DIR,
    backupKeep: e.STATEHOUSE_BACKUP_KEEP,
    readDeadlineMs: e.STATEHOUSE_READ_DEADLINE_MS,
    readWorkers: e.STATEHOUSE_READ_WORKERS,
    pgPreparedStatements: e.STATEHOUSE_PG_PREPARED_STATEMENTS,
    groupCommitMaxRequests: e.STATEHOUSE_GROUP_COMMIT_MAX_REQUESTS,
    searchIndexLagMs: e.STATEHOUSE_SEARCH_INDEX_LAG_MS,
    appendWriter: e.STATEHOUSE_APPEND_WRITER,
  };
}
