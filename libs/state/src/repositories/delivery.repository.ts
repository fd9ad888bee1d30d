import type { Insertable, Selectable } from 'kysely';
import { updatedOne } from '../db/compare-and-set.js';
import type { DeliveriesTable, Executor } from '../db/database.js';
import { keysetAfter, type ProfileScope, scopedToProfiles } from '../db/list-queries.js';
import { chunk, type SqlDialect } from '../db/sql-dialect.js';

export type DeliveryRow = Selectable<DeliveriesTable>;

/** States in which an obligation is still owed (a claim may be live or expired). */
export const OWED_STATES = ['pending', 'claimed'] as const;

/** Delivery obligations. Claims are compare-and-set: the WHERE clause decides who gets one. */
export class DeliveryRepository {
  constructor(private readonly dialect: SqlDialect) {}

  async find(db: Executor, id: string): Promise<DeliveryRow | undefined> {
    return db.selectFrom('deliveries').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Reads the row and, on PostgreSQL, locks it for the rest of the transaction. */
  async findForUpdate(db: Executor, id: string): Promise<DeliveryRow | undefined> {
    const query = db.selectFrom('deliveries').selectAll().where('id', '=', id);
    return (this.dialect.name === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
  }

  async insert(db: Executor, row: Insertable<DeliveriesTable>): Promise<void> {
    await db.insertInto('deliveries').values(row).execute();
  }

  /** Inserts the row unless its id exists (an import run again); true when it was inserted. */
  async insertIfAbsent(db: Executor, row: Insertable<DeliveriesTable>): Promise<boolean> {
    const result = await db
      .insertInto('deliveries')
      .values(row)
      .onConflict((oc) => oc.column('id').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  async list(
    db: Executor,
    filter: ProfileScope & { states?: readonly string[]; after?: [number, string]; limit: number },
  ): Promise<DeliveryRow[]> {
    let query = scopedToProfiles(db.selectFrom('deliveries').selectAll(), filter);
    if (!query) return [];
    if (filter.states) query = query.where('state', 'in', [...filter.states]);
    if (filter.after) query = query.where(keysetAfter(['created_at', 'id'], filter.after, '>'));
    return query.orderBy('created_at').orderBy('id').limit(filter.limit).execute();
  }

  /**
   * Oldest claimable obligations: pending, or claimed under a lease that has expired (a crashed
   * claimer's work is picked up again).
   */
  async claimable(
    db: Executor,
    filter: Omit<ProfileScope, 'sessionId'> & { transportProfile?: string; now: number; limit: number },
  ): Promise<DeliveryRow[]> {
    const claimable = db
      .selectFrom('deliveries')
      .selectAll()
      .where((eb) =>
        eb.or([
          eb('state', '=', 'pending'),
          eb.and([eb('state', '=', 'claimed'), eb('claim_expires_at', '<=', filter.now)]),
        ]),
      );
    let query = scopedToProfiles(claimable, filter);
    if (!query) return [];
    if (filter.transportProfile) query = query.where('transport_profile', '=', filter.transportProfile);
    return query.orderBy('created_at').orderBy('id').limit(filter.limit).execute();
  }

  /**
   * Takes a claim if — in this very statement — the obligation is pending or its claim expired, or
   * the same holder already holds it (a retry extends the lease without a new attempt).
   */
  async claim(
    db: Executor,
    id: string,
    claim: { claimId: string; holder: string; expiresAt: number; now: number },
  ): Promise<boolean> {
    return updatedOne(
      db
        .updateTable('deliveries')
        .set((eb) => ({
          state: 'claimed',
          claim_id: claim.claimId,
          claim_holder: claim.holder,
          claim_expires_at: claim.expiresAt,
          attempts: eb('attempts', '+', 1),
          updated_at: claim.now,
        }))
        .where('id', '=', id)
        .where((eb) => eb('attempts', '<', eb.ref('max_attempts')))
        .where((eb) =>
          eb.or([
            eb('state', '=', 'pending'),
            eb.and([eb('state', '=', 'claimed'), eb('claim_expires_at', '<=', claim.now)]),
          ]),
        ),
    );
  }

  /** The holder of a live claim asks again: the lease is extended, no new attempt is counted. */
  async extendClaim(db: Executor, id: string, holder: string, expiresAt: number, now: number): Promise<boolean> {
    return updatedOne(
      db
        .updateTable('deliveries')
        .set({ claim_expires_at: expiresAt, updated_at: now })
        .where('id', '=', id)
        .where('state', '=', 'claimed')
        .where('claim_holder', '=', holder)
        .where('claim_expires_at', '>', now),
    );
  }

  async settle(
    db: Executor,
    id: string,
    claimId: string,
    change: { state: 'delivered' | 'pending' | 'abandoned'; now: number; error?: string; abandonedReason?: string },
  ): Promise<boolean> {
    return updatedOne(
      db
        .updateTable('deliveries')
        .set({
          state: change.state,
          updated_at: change.now,
          ...(change.state === 'delivered' ? { delivered_at: change.now, last_error: null } : {}),
          ...(change.error !== undefined ? { last_error: change.error } : {}),
          ...(change.abandonedReason !== undefined ? { abandoned_reason: change.abandonedReason } : {}),
          ...(change.state === 'delivered' ? {} : { claim_id: null, claim_holder: null, claim_expires_at: null }),
        })
        .where('id', '=', id)
        .where('state', '=', 'claimed')
        .where('claim_id', '=', claimId),
    );
  }

  /** An obligation whose attempts are used up and whose last claim lapsed is abandoned. */
  async abandonExhausted(db: Executor, id: string, now: number): Promise<boolean> {
    return updatedOne(
      db
        .updateTable('deliveries')
        .set({
          state: 'abandoned',
          abandoned_reason: 'attempts_exhausted',
          last_error: 'the last attempt did not report back before its claim expired',
          claim_id: null,
          claim_holder: null,
          claim_expires_at: null,
          updated_at: now,
        })
        .where('id', '=', id)
        .where((eb) => eb('attempts', '>=', eb.ref('max_attempts')))
        .where((eb) =>
          eb.or([
            eb('state', '=', 'pending'),
            eb.and([eb('state', '=', 'claimed'), eb('claim_expires_at', '<=', now)]),
          ]),
        ),
    );
  }

  async countOwed(db: Executor, sessionIds: readonly string[]): Promise<number> {
    let total = 0;
    for (const part of chunk(sessionIds)) {
      const row = await db
        .selectFrom('deliveries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('session_id', 'in', part)
        .where('state', 'in', [...OWED_STATES])
        .executeTakeFirstOrThrow();
      total += Number(row.n);
    }
    return total;
  }

  /**
   * The sessions are being deleted: owed obligations are marked abandoned (never silently
   * dropped), and every obligation's payload — content of the deleted conversation — is erased.
   */
  async abandonForSessions(db: Executor, sessionIds: readonly string[], now: number): Promise<void> {
    for (const part of chunk(sessionIds)) {
      await db
        .updateTable('deliveries')
        .set({
          state: 'abandoned',
          abandoned_reason: 'session_deleted',
          claim_id: null,
          claim_holder: null,
          claim_expires_at: null,
          payload: null,
          updated_at: now,
        })
        .where('session_id', 'in', part)
        .where('state', 'in', [...OWED_STATES])
        .execute();
      await db
        .updateTable('deliveries')
        .set({ payload: null })
        .where('session_id', 'in', part)
        .where('payload', 'is not', null)
        .execute();
    }
  }

  async moveSessions(db: Executor, sessionIds: readonly string[], profile: string): Promise<void> {
    for (const part of chunk(sessionIds)) {
      await db.updateTable('deliveries').set({ profile }).where('session_id', 'in', part).execute();
    }
  }

  /** A profile rename: the profile's obligations addressed to a transport profile named like the old profile. */
  async renameTransportProfile(db: Executor, profile: string, from: string, to: string): Promise<number> {
    const result = await db
      .updateTable('deliveries')
      .set({ transport_profile: to })
      .where('profile', '=', profile)
      .where('transport_profile', '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async moveProfile(db: Executor, from: string, to: string): Promise<number> {
    const result = await db
      .updateTable('deliveries')
      .set({ profile: to })
      .where('profile', '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }
}
