import { chmodSync, existsSync, renameSync, rmSync } from 'node:fs';
import type { VerifyResponse } from '@statehouse/contracts';
import Database from 'better-sqlite3';
import { dialectOf, sqlitePath } from '../db/connect.js';
import { copySqliteStore } from '../db/sqlite-copy.js';
import { mintEpoch } from '../domain/store-epoch.js';
import { PG_BACKUP_RECIPE } from '../services/backup.service.js';
import { SYSTEM_PRINCIPAL } from '../shared/access.js';
import { ConflictError, ValidationError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { openStore } from '../store.js';

export interface RestoreReport {
  target: string;
  counts: { sessions: number; messages: number; receipts: number };
  verify: VerifyResponse;
  /** The new store epoch: consumers holding a cursor of the backup's epoch are told to resync. */
  epoch: string;
}

const USER_TABLES = ['sessions', 'messages', 'deletion_receipts', 'api_tokens', 'users'] as const;

/**
 * Restores a backup file into an empty SQLite store (a missing file, or one holding no sessions,
 * messages, receipts, tokens or users): the backup is checked, copied in, migrated to this
 * version, and its receipt chain verified. No API process may run on the target meanwhile. The
 * restored store gets a new epoch (docs/domain.md §5.3.6): the backup issued receipt sequences up to
 * its own high-water mark, and the sequences after it will name other receipts than the ones
 * consumers already read.
 */
export async function restoreSqliteStore(from: string, url: string, logger: Logger): Promise<RestoreReport> {
  if (dialectOf(url) === 'postgres') throw new ValidationError(PG_BACKUP_RECIPE);
  const target = sqlitePath(url);
  if (target === ':memory:') throw new ValidationError('cannot restore into an in-memory store');
  if (!existsSync(from)) throw new ValidationError(`no backup at ${from}`);
  const source = new Database(from, { readonly: true, fileMustExist: true });
  try {
    const tables = new Set(
      (source.prepare(`select name from sqlite_master where type = 'table'`).pluck().all() as string[]) ?? [],
    );
    if (!tables.has('sessions') || !tables.has('kysely_migration')) {
      throw new ValidationError(`${from} is not a Statehouse store`);
    }
  } finally {
    source.close();
  }
  if (existsSync(target)) {
    const existing = new Database(target, { fileMustExist: true });
    try {
      const tables = new Set(existing.prepare(`select name from sqlite_master where type = 'table'`).pluck().all());
      for (const table of USER_TABLES) {
        if (!tables.has(table)) continue;
        const rows = Number(existing.prepare(`select count(*) from ${table}`).pluck().get());
        if (rows > 0) {
          throw new ConflictError(
            `the store at ${target} is not empty (${table}: ${rows} rows); restore into a new path or an empty store`,
          );
        }
      }
    } finally {
      existing.close();
    }
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${target}${suffix}`, { force: true });
  }
  const partial = `${target}.restoring`;
  rmSync(partial, { force: true });
  const copy = await copySqliteStore(from, partial);
  if (copy.check !== 'ok') {
    rmSync(partial, { force: true });
    throw new ValidationError(`the backup failed its integrity check: ${copy.check}`);
  }
  chmodSync(partial, 0o600);
  renameSync(partial, target);
  const store = await openStore({ url: `file:${target}`, logger });
  try {
    const verify = await store.receipts.verify({ principal: SYSTEM_PRINCIPAL, channel: 'system' });
    const epoch = await store.db.transaction().execute((trx) => mintEpoch(trx));
    return { target, counts: copy.counts, verify, epoch };
  } finally {
    await store.close();
  }
}

/**
 * Mints a new epoch for the store at `url` (either dialect): after a restore by other means than
 * `restoreSqliteStore` — a file copied into place, a PostgreSQL database restored into the cluster
 * it came from under a name it had before. No API process should run on it meanwhile.
 */
export async function renewStoreEpoch(url: string, logger: Logger): Promise<string> {
  const store = await openStore({ url, logger });
  try {
    return await store.db.transaction().execute((trx) => mintEpoch(trx));
  } finally {
    await store.close();
  }
}
