import type { DeletionReceipt, ReceiptCounts, ReceiptIdentity } from '@statehouse/contracts';
import { type Insertable, type Selectable, sql } from 'kysely';
import type { DeletionReceiptsTable, Dialect, Executor } from '../db/database.js';
import { toIso } from '../shared/clock.js';

export type ReceiptRow = Selectable<DeletionReceiptsTable>;

export function toReceipt(row: ReceiptRow): DeletionReceipt {
  return {
    sequence: Number(row.sequence),
    operationId: row.operation_id,
    origin: row.origin as DeletionReceipt['origin'],
    intent: row.intent as DeletionReceipt['intent'],
    reason: row.reason as DeletionReceipt['reason'],
    profile: row.profile,
    actor: { kind: row.actor_kind, id: row.actor_id },
    createdAt: toIso(Number(row.created_at)),
    counts: JSON.parse(row.counts) as ReceiptCounts,
    identities: JSON.parse(row.identities) as ReceiptIdentity[],
    prevHash: row.prev_hash,
    hash: row.hash,
  };
}

/** The part of a receipt its hash covers: everything but the hashes themselves. */
export function hashedDocument(receipt: DeletionReceipt) {
  const { prevHash: _prev, hash: _hash, ...document } = receipt;
  return document;
}

export interface ReceiptFilter {
  after: number;
  /** Newest first, below this sequence (exclusive); without it, oldest first. */
  before?: number;
  limit: number;
  profiles: string[] | null;
  profile?: string;
  intent?: string;
  origin?: string;
}

const RECEIPT_CHAIN_LOCK = 0x5e_c0_7d;

export class ReceiptRepository {
  constructor(private readonly dialect: Dialect) {}

  /**
   * Receipts are written one transaction at a time (SQLite transactions are exclusive; PostgreSQL
   * takes an advisory lock until commit), so the hash chain never forks and sequences become
   * visible in order — a reader at cursor N never later finds a receipt below N.
   */
  async lockChain(db: Executor): Promise<void> {
    if (this.dialect === 'postgres') await sql`select pg_advisory_xact_lock(${RECEIPT_CHAIN_LOCK})`.execute(db);
  }

  async latest(db: Executor): Promise<ReceiptRow | undefined> {
    return db.selectFrom('deletion_receipts').selectAll().orderBy('sequence', 'desc').limit(1).executeTakeFirst();
  }

  async insert(db: Executor, row: Insertable<DeletionReceiptsTable>): Promise<number> {
    const inserted = await db
      .insertInto('deletion_receipts')
      .values(row)
      .returning('sequence')
      .executeTakeFirstOrThrow();
    return Number(inserted.sequence);
  }

  async setHash(db: Executor, sequence: number, hash: string): Promise<void> {
    await db.updateTable('deletion_receipts').set({ hash }).where('sequence', '=', sequence).execute();
  }

  async list(db: Executor, filter: ReceiptFilter): Promise<ReceiptRow[]> {
    if (filter.profiles !== null && filter.profiles.length === 0) return [];
    let query = db.selectFrom('deletion_receipts').selectAll().where('sequence', '>', filter.after);
    if (filter.profiles !== null) query = query.where('profile', 'in', filter.profiles);
    if (filter.profile) query = query.where('profile', '=', filter.profile);
    if (filter.intent) query = query.where('intent', '=', filter.intent);
    if (filter.origin) query = query.where('origin', '=', filter.origin);
    if (filter.before !== undefined) {
      return query.where('sequence', '<', filter.before).orderBy('sequence', 'desc').limit(filter.limit).execute();
    }
    return query.orderBy('sequence').limit(filter.limit).execute();
  }

  async findByOperationId(db: Executor, operationId: string): Promise<ReceiptRow | undefined> {
    return db.selectFrom('deletion_receipts').selectAll().where('operation_id', '=', operationId).executeTakeFirst();
  }

  async findBySequence(db: Executor, sequence: number): Promise<ReceiptRow | undefined> {
    return db.selectFrom('deletion_receipts').selectAll().where('sequence', '=', sequence).executeTakeFirst();
  }

  /** The highest sequence written, store-wide (`profiles` null) or within those profiles. */
  async maxSequence(db: Executor, profiles: string[] | null = null): Promise<number> {
    if (profiles !== null && profiles.length === 0) return 0;
    let query = db.selectFrom('deletion_receipts').select((eb) => eb.fn.max('sequence').as('max'));
    if (profiles !== null) query = query.where('profile', 'in', profiles);
    const row = await query.executeTakeFirst();
    return row?.max === null || row?.max === undefined ? 0 : Number(row.max);
  }

  /** Per profile, the highest sequence in (after, through]: what a reclamation removes from each. */
  async profileMaxima(db: Executor, after: number, through: number): Promise<{ profile: string; max: number }[]> {
    const rows = await db
      .selectFrom('deletion_receipts')
      .select((eb) => ['profile', eb.fn.max('sequence').as('max')])
      .where('sequence', '>', after)
      .where('sequence', '<=', through)
      .groupBy('profile')
      .execute();
    return rows.map((row) => ({ profile: row.profile, max: Number(row.max) }));
  }

  /** The last receipt at or below `sequence` (the anchor a reclamation leaves behind). */
  async lastAtOrBelow(db: Executor, sequence: number): Promise<ReceiptRow | undefined> {
    return db
      .selectFrom('deletion_receipts')
      .selectAll()
      .where('sequence', '<=', sequence)
      .orderBy('sequence', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** Receipts after `cursor` and when the first of them committed (how far a consumer trails). */
  async pendingAfter(db: Executor, cursor: number): Promise<{ count: number; firstCreatedAt: number | null }> {
    const counted = await db
      .selectFrom('deletion_receipts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('sequence', '>', cursor)
      .executeTakeFirstOrThrow();
    const first = await db
      .selectFrom('deletion_receipts')
      .select('created_at')
      .where('sequence', '>', cursor)
      .orderBy('sequence')
      .limit(1)
      .executeTakeFirst();
    return { count: Number(counted.n), firstCreatedAt: first ? Number(first.created_at) : null };
  }

  async deleteThrough(db: Executor, sequence: number): Promise<number> {
    const result = await db.deleteFrom('deletion_receipts').where('sequence', '<=', sequence).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
