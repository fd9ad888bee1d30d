import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Principal } from '@statehouse/contracts';
import { type OperationContext, openStore, type StateStore, type StoreOptions, silentLogger } from '@statehouse/state';
import Database from 'better-sqlite3';
import pg from 'pg';

/** The admin principal and context of `@statehouse/state/testing`, without importing its env-bound module. */
export const ADMIN: Principal = { kind: 'token', id: 'bench-admin', name: 'bench admin', role: 'admin', profiles: '*' };
export const ADMIN_CTX: OperationContext = { principal: ADMIN, channel: 'api' };

const scratchDirs: string[] = [];

/** A fresh directory under the OS temp dir, removed by `removeScratch` (never ./data). */
export function scratchDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'statehouse-bench-'));
  scratchDirs.push(dir);
  return dir;
}

export function removeScratch(): void {
  for (const dir of scratchDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

const pgDrops = new Set<() => Promise<void>>();

/** Interrupted run: drop the scratch PostgreSQL databases still open, remove the temp files. */
export async function cleanUpEverything(): Promise<void> {
  for (const drop of [...pgDrops]) await drop().catch(() => undefined);
  removeScratch();
}

export interface BenchStore {
  store: StateStore;
  /** SQLite file path, or PostgreSQL URL. */
  location: string;
  close(): Promise<void>;
}

/** A new migrated SQLite store in a temp file (`options`: store options beside url and logger). */
export async function openSqliteStore(
  name = 'store',
  options: Omit<StoreOptions, 'url' | 'logger'> = {},
): Promise<BenchStore & { path: string }> {
  const path = join(scratchDir(), `${name}.db`);
  const store = await openStore({ ...options, url: `file:${path}`, logger: silentLogger });
  return { store, path, location: path, close: () => store.close() };
}

/**
 * Raw better-sqlite3 on a store file, with the store's own pragmas (WAL, synchronous=NORMAL, FKs).
 * Its busy wait (busy_timeout) is synchronous: it blocks this process's event loop. Never write
 * through it while a store opened in this process may hold the write lock across event-loop turns
 * — a group commit ends at the end of a turn, deferred work (the rest of a compression) runs its
 * chunks on the loop — or it waits out the whole timeout and fails with SQLITE_BUSY: wait for
 * `store.deferred.idle()` first. The FTS merger's steps are no hazard (its own thread).
 */
export function openRawSqlite(path: string): Database.Database {
  const db = new Database(path);
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  return db;
}

export function sqliteVersion(): { sqlite: string; driver: string } {
  const db = new Database(':memory:');
  const { version } = db.prepare('select sqlite_version() as version').get() as { version: string };
  db.close();
  return { sqlite: version, driver: betterSqliteVersion() };
}

function betterSqliteVersion(): string {
  try {
    // Resolved from the root node_modules, the copy the store loads.
    const require = createRequire(import.meta.url);
    return (require('better-sqlite3/package.json') as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** A scratch PostgreSQL database on the configured server: created here, dropped by `drop`. */
export async function createPgDatabase(
  serverUrl: string,
  label: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `statehouse_bench_${label}_${process.pid}_${Date.now().toString(36)}`;
  const admin = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  await admin((client) => client.query(`create database ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const drop = async () => {
    pgDrops.delete(drop);
    await admin((client) => client.query(`drop database if exists ${name} with (force)`));
  };
  pgDrops.add(drop);
  return { url: url.toString(), drop };
}

export async function openPgStore(serverUrl: string, label: string): Promise<BenchStore> {
  const database = await createPgDatabase(serverUrl, label);
  try {
    const store = await openStore({ url: database.url, logger: silentLogger });
    return {
      store,
      location: database.url,
      async close() {
        await store.close();
        await database.drop();
      },
    };
  } catch (error) {
    await database.drop();
    throw error;
  }
}

export async function pgVersion(serverUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ server_version: string }>('show server_version');
    return rows[0].server_version;
  } finally {
    await client.end();
  }
}
