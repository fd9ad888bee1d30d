import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, type KyselyConfig, PostgresDialect } from 'kysely';
import pg from 'pg';
import { StoreUnavailableError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { registerChangeStamps } from './change-stamp.js';
import type { DB, Dialect } from './database.js';
import { PreparedStatementNames, preparedStatementPool } from './pg-prepared-pool.js';
import { registerDirectReads, registerDirectWrites } from './prepared.js';
import { registerSoloWrites } from './solo-write.js';
import { CHECKPOINT_INTERVAL_MS, type CheckpointerStatus, SqliteCheckpointer } from './sqlite-checkpointer.js';
import { StatehouseSqliteDialect } from './sqlite-dialect.js';
import { SqliteFtsMerger } from './sqlite-fts-merger.js';
import type { GroupCommitLimits } from './sqlite-group-commit.js';
import { SqliteReadPool, SqliteReadPoolDialect } from './sqlite-read-pool.js';

export const DEFAULT_DATABASE_URL = 'file:./data/statehouse.db';

/** A SQLite WAL file larger than this is cut back (emptied) by the checkpointer once checkpointed. */
export const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

export interface Connection {
  db: Kysely<DB>;
  /**
   * Where heavy reads run (lists, search, export, lineage), with a deadline. SQLite: the worker
   * read pool (off the event loop); PostgreSQL: the same pool as `db` (statement_timeout).
   */
  reads: Kysely<DB>;
  dialect: Dialect;
  /** SQLite only: the file's connections, for change probes and backups. */
  sqlite?: SqliteHandles;
  /** PostgreSQL only: the connection string (a dedicated LISTEN client connects with it). */
  postgresUrl?: string;
  /** Where the store lives, without credentials (for logs). */
  location: string;
  /** True when this connection created a new embedded database file. */
  created: boolean;
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** SQLite busy_timeout / PostgreSQL lock_timeout, in ms: lock waits are bounded. */
  lockTimeoutMs?: number;
  /** PostgreSQL statement_timeout in ms (reads answer 503 rather than hang). */
  statementTimeoutMs?: number;
  poolSize?: number;
  /** SQLite: deadline of a heavy read on the read pool, in ms (default 10 000). */
  readDeadlineMs?: number;
  /** SQLite: read pool threads (default 2). */
  readWorkers?: number;
  /**
   * SQLite: observes each write transaction — how long it held the write lock, in ms, and how many
   * requests it committed together (group commit) — for metrics.
   */
  onWriteLock?: (heldMs: number, requests: number) => void;
  /** SQLite: group commit limits (docs/architecture.md); `{ maxRequests: 1 }` commits every request alone. */
  groupCommit?: Partial<GroupCommitLimits>;
  /** SQLite: merge search-index segments on a worker between writes (default true; see SqliteFtsMerger). */
  ftsMerger?: boolean;
  /**
   * PostgreSQL: run the repeated writes as named prepared statements (default true; see
   * PreparedStatementNames). False behind a pooler that moves sessions between server connections
   * (PgBouncer in transaction mode without prepared-statement support).
   */
  preparedStatements?: boolean;
  /** Observes every query's duration (metrics); must be cheap and must not throw. */
  onQuery?: (operation: string, durationMs: number, failed: boolean) => void;
  /** Where connection-level trouble is reported (SQLite: failed WAL checkpoints). */
  logger?: Logger;
}

export interface SqliteHandles {
  path: string;
  /** The process's read connection (query_only): data_version probes and quick reads. */
  reader: Database.Database | null;
  readPool: SqliteReadPool | null;
  /** The WAL checkpointer's record of failures (null for an in-memory store). */
  checkpoints(): CheckpointerStatus | null;
  /** Search-index merge steps now, for up to `budgetMs` (a long write's pause; nothing without a merger). */
  mergeIndex(budgetMs: number): Promise<void>;
  /** Indexes the committed messages still pending (docs/search.md): a search calls it before it reads. */
  indexPending(): Promise<void>;
}

export const DEFAULT_READ_DEADLINE_MS = 10_000;

function queryLogger(options: ConnectOptions): KyselyConfig['log'] {
  const onQuery = options.onQuery;
  if (!onQuery) return undefined;
  // A handful of node kinds: their label is made once, not by a regex on every query.
  const labels = new Map<string, string>();
  return (event) => {
    const node = event.query.query.kind;
    let kind = labels.get(node);
    if (kind === undefined) {
      kind = node.replace(/QueryNode$|Node$/, '').toLowerCase();
      labels.set(node, kind);
    }
    onQuery(kind, event.queryDurationMillis, event.level === 'error');
  };
}

export function dialectOf(url: string): Dialect {
  return /^postgres(ql)?:\/\//.test(url) ? 'postgres' : 'sqlite';
}

export async function connect(url: string, options: ConnectOptions = {}): Promise<Connection> {
  return dialectOf(url) === 'postgres' ? connectPostgres(url, options) : connectSqlite(url, options);
}

export function sqlitePath(url: string): string {
  const path = url.startsWith('file:') ? url.slice('file:'.length) : url;
  return path === ':memory:' ? path : resolve(path);
}

async function connectSqlite(url: string, options: ConnectOptions): Promise<Connection> {
  const path = sqlitePath(url);
  let created = false;
  let writer: Database.Database | undefined;
  let reader: Database.Database | null = null;
  try {
    if (path !== ':memory:') {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      if (!existsSync(path)) {
        // Create the file ourselves so it is 0600 from its first byte (SQLite copies the mode to -wal/-shm).
        closeSync(openSync(path, 'a', 0o600));
        created = true;
      }
    }
    writer = new Database(path);
    // Lock waits happen on the event loop (the dialect retries BUSY on timers), never inside SQLite.
    writer.pragma('busy_timeout = 0');
    if (!created && path !== ':memory:') {
      refuseForeignStore(writer, path);
      chmodSync(path, 0o600);
    }
    // A new file reclaims free pages in bounded steps (PRAGMA incremental_vacuum), never by a full VACUUM.
    if (created || path === ':memory:') writer.pragma('auto_vacuum = INCREMENTAL');
    writer.pragma('journal_mode = WAL');
    configureWriter(writer, path === ':memory:');
    // Touch the schema now: a file that is not a database (or is corrupt) fails here, not later.
    writer.prepare('select count(*) from sqlite_master').get();
    if (path !== ':memory:') {
      reader = new Database(path);
      reader.pragma('query_only = 1');
      // Readers of a WAL file wait only in rare moments (recovery after a crash); keep those short.
      reader.pragma('busy_timeout = 100');
    }
  } catch (error) {
    reader?.close();
    writer?.close();
    if (error instanceof StoreUnavailableError) throw error;
    throw new StoreUnavailableError(
      `cannot open the SQLite store at ${path}: ${(error as Error).message}. ` +
        'Check the path in STATEHOUSE_DATABASE_URL, its permissions, and that the file is a Statehouse database.',
      { cause: error },
    );
  }
  const log = queryLogger(options);
  const dialect = new StatehouseSqliteDialect({
    writer,
    reader,
    lockTimeoutMs: options.lockTimeoutMs ?? 5000,
    onWriteLock: options.onWriteLock,
    groupCommit: options.groupCommit,
  });
  const db = new Kysely<DB>({ dialect, log });
  // Prepared reads outside a transaction answer on the reader in one call (db/prepared.ts).
  registerDirectReads(db, { read: (sql, parameters) => dialect.readNow(sql, parameters), onQuery: options.onQuery });
  // … and prepared statements of a unit of work's transaction on the writer.
  registerDirectWrites(db, { write: (sql, parameters) => dialect.writeNow(sql, parameters), onQuery: options.onQuery });
  // … and when a read outside a transaction still holds inside one (db/change-stamp.ts).
  registerChangeStamps(db, { stamp: (when) => dialect.changeStamp(when) });
  // … and when one write may commit on its own, at once (db/solo-write.ts).
  registerSoloWrites(db, { write: (stamp, sql, parameters) => dialect.writeAlone(stamp, sql, parameters) });
  const readPool =
    path === ':memory:'
      ? null
      : new SqliteReadPool({
          path,
          size: options.readWorkers ?? 2,
          deadlineMs: options.readDeadlineMs ?? DEFAULT_READ_DEADLINE_MS,
        });
  const reads = readPool ? new Kysely<DB>({ dialect: new SqliteReadPoolDialect(readPool), log }) : db;
  const checkpointer =
    path === ':memory:'
      ? null
      : new SqliteCheckpointer(path, CHECKPOINT_INTERVAL_MS, options.logger, WAL_SIZE_LIMIT_BYTES);
  const merger =
    path === ':memory:' || options.ftsMerger === false ? null : new SqliteFtsMerger(path, {}, options.logger);
  return {
    db,
    reads,
    dialect: 'sqlite',
    location: path,
    created,
    sqlite: {
      path,
      reader,
      readPool,
      checkpoints: () => checkpointer?.status() ?? null,
      mergeIndex: async (budgetMs) => merger?.mergeNow(budgetMs),
      indexPending: () => dialect.indexPending(),
    },
    async close() {
      await merger?.close();
      await checkpointer?.close();
      await readPool?.close();
      // The last connection to close checkpoints what is left and removes the WAL.
      await db.destroy();
      // Kysely destroys its driver only once a query went through it; a store that only read on
      // the direct path (db/prepared.ts) would keep both connections open, and answering.
      if (reader?.open) reader.close();
      if (writer.open) writer.close();
    },
  };
}

/** What every write connection of a store sets, the store's own and the append writer's. */
function configureWriter(writer: Database.Database, inMemory: boolean): void {
  writer.pragma('synchronous = NORMAL');
  writer.pragma('foreign_keys = ON');
  // Checkpoints run on a worker (SqliteCheckpointer), never inside a commit on the event loop.
  if (!inMemory) writer.pragma('wal_autocheckpoint = 0');
  // The writer never truncates the WAL: with a `journal_size_limit`, the first write after a
  // complete checkpoint cut the file back inside its COMMIT — an ftruncate of up to hundreds of
  // MB on the event loop (177 ms seen during a maintenance pass). The checkpointer cuts it
  // instead, on its own thread (SqliteCheckpointer): a WAL that a bulk import or a rebuild grew
  // to 100–800 MB does not keep that size.
  writer.pragma('journal_size_limit = -1');
}

/**
 * A write connection of its own to an existing store file, for a worker thread that runs units of
 * work (the append writer, services/append-writer.ts): the writer's pragmas and dialect (group
 * commit, BUSY retried on timers), and nothing else — no reader, read pool, checkpointer or merger
 * (the process's main store has those), no migrations (the main store ran them).
 */
export function connectSqliteWriter(
  path: string,
  options: Pick<ConnectOptions, 'lockTimeoutMs' | 'onWriteLock' | 'groupCommit' | 'onQuery'> = {},
): { db: Kysely<DB>; close(): Promise<void> } {
  const writer = new Database(path, { fileMustExist: true });
  try {
    writer.pragma('busy_timeout = 0');
    configureWriter(writer, false);
  } catch (error) {
    writer.close();
    throw error;
  }
  const dialect = new StatehouseSqliteDialect({
    writer,
    reader: null,
    lockTimeoutMs: options.lockTimeoutMs ?? 5000,
    onWriteLock: options.onWriteLock,
    groupCommit: options.groupCommit,
  });
  const db = new Kysely<DB>({ dialect, log: queryLogger(options) });
  registerDirectWrites(db, { write: (sql, parameters) => dialect.writeNow(sql, parameters), onQuery: options.onQuery });
  return { db, close: () => db.destroy() };
}

/**
 * A Hermes Agent `state.db` has `sessions` and `messages` tables of its own: migrating it would fail
 * half-way ("table sessions already exists") — and it must never be written to. Say what to do.
 */
function refuseForeignStore(database: Database.Database, path: string): void {
  const tables = new Set(
    (database.prepare(`select name from sqlite_master where type = 'table'`).all() as { name: string }[]).map(
      (row) => row.name,
    ),
  );
  if (tables.has('kysely_migration') || !tables.has('sessions') || !tables.has('messages')) return;
  database.close();
  throw new StoreUnavailableError(
    `${path} looks like a Hermes Agent state.db, not a Statehouse database; it was not changed. ` +
      'Point STATEHOUSE_DATABASE_URL at a new file and import the Hermes store into it: ' +
      `npm run import -- hermes --db ${path}`,
  );
}

/** BIGINT and NUMERIC come back from pg as strings; every such column of ours fits a JS number. */
const pgTypes = {
  getTypeParser(oid: number, format?: string) {
    if (oid === 20 || oid === 1700) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

async function connectPostgres(url: string, options: ConnectOptions): Promise<Connection> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    types: pgTypes as never,
    connectionTimeoutMillis: 5000,
    options: `-c statement_timeout=${options.statementTimeoutMs ?? 30_000} -c lock_timeout=${options.lockTimeoutMs ?? 5000}`,
  });
  // An idle client's network error must not crash the process; the next query reports it.
  pool.on('error', () => undefined);
  const location = url.replace(/\/\/[^@/]*@/, '//***@');
  try {
    const client = await pool.connect();
    client.release();
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new StoreUnavailableError(`cannot reach PostgreSQL at ${location}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const dialectPool =
    options.preparedStatements === false ? pool : preparedStatementPool(pool, new PreparedStatementNames());
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: dialectPool }), log: queryLogger(options) });
  return {
    db,
    reads: db,
    dialect: 'postgres',
    location,
    created: false,
    postgresUrl: url,
    close: () => db.destroy(),
  };
}
