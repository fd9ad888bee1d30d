import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, type KyselyConfig, PostgresDialect } from 'kysely';
import pg from 'pg';
import { StoreUnavailableError } from '../shared/errors.js';
import type { DB, Dialect } from './database.js';
import { StatehouseSqliteDialect } from './sqlite-dialect.js';

export const DEFAULT_DATABASE_URL = 'file:./data/statehouse.db';

export interface Connection {
  db: Kysely<DB>;
  dialect: Dialect;
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
  /** Observes every query's duration (metrics); must be cheap and must not throw. */
  onQuery?: (operation: string, durationMs: number, failed: boolean) => void;
}

function queryLogger(options: ConnectOptions): KyselyConfig['log'] {
  const onQuery = options.onQuery;
  if (!onQuery) return undefined;
  return (event) => {
    const kind = event.query.query.kind.replace(/QueryNode$|Node$/, '').toLowerCase();
    onQuery(kind, event.queryDurationMillis, event.level === 'error');
  };
}

export function dialectOf(url: string): Dialect {
  return /^postgres(ql)?:\/\//.test(url) ? 'postgres' : 'sqlite';
}

export async function connect(url: string, options: ConnectOptions = {}): Promise<Connection> {
  return dialectOf(url) === 'postgres' ? connectPostgres(url, options) : connectSqlite(url, options);
}

function sqlitePath(url: string): string {
  const path = url.startsWith('file:') ? url.slice('file:'.length) : url;
  return path === ':memory:' ? path : resolve(path);
}

async function connectSqlite(url: string, options: ConnectOptions): Promise<Connection> {
  const path = sqlitePath(url);
  let created = false;
  let database: Database.Database;
  try {
    if (path !== ':memory:') {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      if (!existsSync(path)) {
        // Create the file ourselves so it is 0600 from its first byte (SQLite copies the mode to -wal/-shm).
        closeSync(openSync(path, 'a', 0o600));
        created = true;
      }
    }
    database = new Database(path);
    database.pragma(`busy_timeout = ${options.lockTimeoutMs ?? 5000}`);
    if (!created && path !== ':memory:') {
      refuseForeignStore(database, path);
      chmodSync(path, 0o600);
    }
    database.pragma('journal_mode = WAL');
    database.pragma('synchronous = NORMAL');
    database.pragma('foreign_keys = ON');
    // Touch the schema now: a file that is not a database (or is corrupt) fails here, not later.
    database.prepare('select count(*) from sqlite_master').get();
  } catch (error) {
    if (error instanceof StoreUnavailableError) throw error;
    throw new StoreUnavailableError(
      `cannot open the SQLite store at ${path}: ${(error as Error).message}. ` +
        'Check the path in STATEHOUSE_DATABASE_URL, its permissions, and that the file is a Statehouse database.',
      { cause: error },
    );
  }
  const db = new Kysely<DB>({ dialect: new StatehouseSqliteDialect(database), log: queryLogger(options) });
  return { db, dialect: 'sqlite', location: path, created, close: () => db.destroy() };
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
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }), log: queryLogger(options) });
  return { db, dialect: 'postgres', location, created: false, close: () => db.destroy() };
}
