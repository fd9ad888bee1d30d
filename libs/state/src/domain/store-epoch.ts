import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db, Executor } from '../db/database.js';
import { StoreMetaRepository } from '../repositories/store-meta.repository.js';
import type { Logger } from '../shared/logger.js';

/**
 * The store epoch (docs/domain.md §5.3.6): a random id naming this store's timeline of receipt
 * sequences. A restore of an older backup issues again sequences consumers have already seen (with
 * other receipts behind them), so a restore mints a new epoch, and consumers holding a cursor of
 * another epoch are told so instead of silently skipping or re-reading.
 */
export const META_EPOCH = 'store_epoch';
/** PostgreSQL: the cluster and database the epoch was minted in (`<system id>:<database oid>`). */
export const META_EPOCH_ORIGIN = 'store_epoch_origin';

const meta = new StoreMetaRepository();

export async function currentEpoch(db: Executor): Promise<string> {
  const epoch = await meta.get(db, META_EPOCH);
  // Minted by migration 2026-12-06T17.40: a store without one was opened without migrating.
  if (epoch === undefined) throw new Error('the store has no epoch: migrate it first');
  return epoch;
}

/** A new epoch, in the caller's transaction (a restore): every consumer's cursor is from another one now. */
export async function mintEpoch(db: Executor): Promise<string> {
  const epoch = randomUUID();
  await meta.set(db, META_EPOCH, epoch);
  return epoch;
}

/**
 * PostgreSQL is restored with its own tools (pg_restore into a new database), which copy the epoch
 * along. At start-up a store whose database is not the one its epoch was minted in — another
 * database of the cluster, or another cluster — mints a new epoch. Processes starting together
 * decide it once (the origin row is locked). Returns the new epoch, or null when nothing changed.
 */
export async function renewEpochIfRestored(db: Db, logger: Logger): Promise<string | null> {
  const origin = await postgresOrigin(db);
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql<{
      value: string;
    }>`select value from store_meta where key = ${META_EPOCH_ORIGIN} for update`.execute(trx);
    const recorded = rows[0]?.value;
    if (recorded !== undefined && sameOrigin(recorded, origin)) return null;
    await meta.set(trx, META_EPOCH_ORIGIN, origin);
    // The first start after the epoch was minted only records where it was minted.
    if (recorded === undefined) return null;
    const epoch = await mintEpoch(trx);
    logger.warn('this database is a copy of another (a restore): new store epoch; receipt consumers must resync', {
      epoch,
      from: recorded,
      to: origin,
    });
    return epoch;
  });
}

async function postgresOrigin(db: Db): Promise<string> {
  const { rows } = await sql<{
    oid: string;
  }>`select oid::text as oid from pg_database where datname = current_database()`.execute(db);
  let system = '?';
  try {
    const control = await sql<{ id: string }>`select system_identifier::text as id from pg_control_system()`.execute(
      db,
    );
    system = control.rows[0]?.id ?? '?';
  } catch {
    // Not every role may read the control data: the database's own id still tells copies apart.
  }
  return `${system}:${rows[0]?.oid ?? '?'}`;
}

/** The same database unless a known part differs (a role that cannot read the cluster id compares the database). */
function sameOrigin(a: string, b: string): boolean {
  const [systemA, databaseA] = a.split(':');
  const [systemB, databaseB] = b.split(':');
  if (databaseA !== databaseB) return false;
  return systemA === '?' || systemB === '?' || systemA === systemB;
}
