import { DELEGATION_CHILD_DELETED, DELEGATION_DUE_STATES, DELEGATION_OWED_STATES } from '@statehouse/contracts';
import { type Insertable, type Selectable, sql } from 'kysely';
import { updatedOne } from '../db/compare-and-set.js';
import type { DelegationsTable, Executor } from '../db/database.js';
import { keysetAfter, scopedToProfiles } from '../db/list-queries.js';
import { chunk, type SqlDialect } from '../db/sql-dialect.js';

export type DelegationRow = Selectable<DelegationsTable>;
export type NewDelegationRow = Insertable<DelegationsTable>;

export interface DelegationListFilter {
  profiles: string[] | null;
  profile?: string;
  originSessionId?: string;
  childSessionId?: string;
  states?: readonly string[];
  /** Only those due now: finished, undelivered, no live claim at `now`. */
  dueAt?: number;
  after?: [number, string];
  limit: number;
}

/**
 * The async delegation ledger. Wake-up claims are compare-and-set: the WHERE clause decides who
 * gets one (the shape of the delivery obligations' claims, repositories/delivery.repository.ts).
 */
export class DelegationRepository {
  constructor(private readonly dialect: SqlDialect) {}

  async find(db: Executor, id: string): Promise<DelegationRow | undefined> {
    return db.selectFrom('delegations').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Reads the row and, on PostgreSQL, locks it for the rest of the transaction. */
  async findForUpdate(db: Executor, id: string): Promise<DelegationRow | undefined> {
    const query = db.selectFrom('delegations').selectAll().where('id', '=', id);
    return (this.dialect.name === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
  }

  async insert(db: Executor, row: NewDelegationRow): Promise<void> {
    await db.insertInto('delegations').values(row).execute();
  }

  /** Inserts the row unless its id exists (an import run again); true when it was inserted. */
  async insertIfAbsent(db: Executor, row: NewDelegationRow): Promise<boolean> {
    const result = await db
      .insertInto('delegations')
      .values(row)
      .onConflict((oc) => oc.column('id').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  /**
   * Newest first by creation, or — `dueAt` — oldest finished first (the order wake-ups are owed).
   * Keyset: `after` is the (created_at | completed_at, id) of the last row of the previous page.
   */
  async list(db: Executor, filter: DelegationListFilter): Promise<DelegationRow[]> {
    let query = scopedToProfiles(db.selectFrom('delegations').selectAll(), filter);
    if (!query) return [];
    if (filter.originSessionId) query = query.where('origin_session_id', '=', filter.originSessionId);
    if (filter.childSessionId) query = query.where('child_session_id', '=', filter.childSessionId);
    if (filter.states) query = query.where('state', 'in', [...filter.states]);
    if (filter.dueAt !== undefined) {
      const now = filter.dueAt;
      query = query
        .where('state', 'in', [...DELEGATION_DUE_STATES])
        .where((eb) => eb.or([eb('claim_expires_at', 'is', null), eb('claim_expires_at', '<=', now)]));
      if (filter.after) query = query.where(keysetAfter(['completed_at', 'id'], filter.after, '>'));
      return query.orderBy('completed_at').orderBy('id').limit(filter.limit).execute();
    }
    if (filter.after) query = query.where(keysetAfter(['created_at', 'id'], filter.after, '<'));
    return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
  }

  /** running → done | failed, in one compare-and-set. */
  async finish(
    db: Executor,
    id: string,
    change: {
      state: 'done' | 'failed';
      childSessionId: string | null;
      resultSummary: string | null;
      error: string | null;
      now: number;
    },
  ): Promise<boolean> {
    return updatedOne(
      db
        .updateTable('delegations')
        .set({
          state: change.state,
          child_session_id: change.childSessionId,
          result_summary: change.resultSummary,
          error: change.error,
          completed_at: change.now,
          updated_at: change.now,
        })
        .where('id', '=', id)
        .where('state', '=', 'running'),
    );
  }

  /** Takes the wake-up claim if — in this very statement — the delegation is due. */
  async claim(
    db: Executor,
    id: string,
    claim: { claimId: string; holder: string; expiresAt: number; now: number },
  ): Promise<boolean> {
    return updatedOne(
      db
        .updateTable('delegations')
        .set((eb) => ({
          claim_id: claim.claimId,
          claim_holder: claim.holder,
          claim_expires_at: claim.expiresAt,
          wake_attempts: eb('wake_attempts', '+', 1),
          updated_at: claim.now,
        }))
        .where('id', '=', id)
        .where('state', 'in', [...DELEGATION_DUE_STATES])
        .where((eb) => eb.or([eb('claim_expires_at', 'is', null), eb('claim_expires_at', '<=', claim.now)])),
    );
  }

  /** The holder of a live claim asks again: the lease is extended, no new attempt is counted. */
  async extendClaim(db: Executor, id: string, holder: string, expiresAt: number, now: number): Promise<boolean> {
    return updatedOne(
      db
        .updateTable('delegations')
        .set({ claim_expires_at: expiresAt, updated_at: now })
        .where('id', '=', id)
        .where('state', 'in', [...DELEGATION_DUE_STATES])
        .where('claim_holder', '=', holder)
        .where('claim_expires_at', '>', now),
    );
  }

  /**
   * The claimer woke the origin: delivered, once. The claim id stays on the row, so the same
   * report again is recognised (and answered as it stands).
   */
  async markDelivered(db: Executor, id: string, claimId: string, now: number): Promise<boolean> {
    return updatedOne(
      db
        .updateTable('delegations')
        .set({ state: 'delivered', delivered_at: now, claim_expires_at: null, updated_at: now })
        .where('id', '=', id)
        .where('state', 'in', [...DELEGATION_DUE_STATES])
        .where('claim_id', '=', claimId),
    );
  }

  /** The claimer hands the wake-up back undelivered: due again at once. */
  async release(db: Executor, id: string, claimId: string, now: number): Promise<boolean> {
    return updatedOne(
      db
        .updateTable('delegations')
        .set({ claim_id: null, claim_holder: null, claim_expires_at: null, updated_at: now })
        .where('id', '=', id)
        .where('state', 'in', [...DELEGATION_DUE_STATES])
        .where('claim_id', '=', claimId),
    );
  }

  /** Not yet delivered, and the origin or the child is among these sessions. */
  async countOwedFor(db: Executor, sessionIds: readonly string[]): Promise<number> {
    const ids = new Set<string>();
    for (const part of chunk(sessionIds)) {
      const rows = await db
        .selectFrom('delegations')
        .select('id')
        .where('state', 'in', [...DELEGATION_OWED_STATES])
        .where((eb) => eb.or([eb('origin_session_id', 'in', part), eb('child_session_id', 'in', part)]))
        .execute();
      for (const row of rows) ids.add(row.id);
    }
    return ids.size;
  }

  /**
   * The origins are being deleted: what they were still owed is abandoned (never silently
   * dropped), and every delegation's task, result and error — content of the deleted
   * conversation — is erased.
   */
  async abandonForOrigins(db: Executor, sessionIds: readonly string[], now: number): Promise<void> {
    for (const part of chunk(sessionIds)) {
      await db
        .updateTable('delegations')
        .set({
          state: 'abandoned',
          abandoned_reason: 'origin_deleted',
          claim_id: null,
          claim_holder: null,
          claim_expires_at: null,
          updated_at: now,
        })
        .where('origin_session_id', 'in', part)
        .where('state', 'in', [...DELEGATION_OWED_STATES])
        .execute();
      await db
        .updateTable('delegations')
        .set({ task: null, result_summary: null, error: null })
        .where('origin_session_id', 'in', part)
        .where((eb) =>
          eb.or([eb('task', 'is not', null), eb('result_summary', 'is not', null), eb('error', 'is not', null)]),
        )
        .execute();
    }
  }

  /**
   * The children are being deleted (their origins stay): the result they produced goes with them,
   * and what the origin was still owed fails with `child_deleted` — so it is still woken, and told.
   */
  async failForChildren(db: Executor, sessionIds: readonly string[], now: number): Promise<void> {
    for (const part of chunk(sessionIds)) {
      await db
        .updateTable('delegations')
        .set((eb) => ({
          state: 'failed',
          error: DELEGATION_CHILD_DELETED,
          result_summary: null,
          completed_at: eb.fn.coalesce('completed_at', sql.val(now)),
          updated_at: now,
        }))
        .where('child_session_id', 'in', part)
        // A failure already reported keeps its own error.
        .where('state', 'in', ['running', 'done'])
        .execute();
      await db
        .updateTable('delegations')
        .set({ result_summary: null })
        .where('child_session_id', 'in', part)
        .where('result_summary', 'is not', null)
        .execute();
    }
  }

  /** The origins moved to another profile (profile repair): their delegations follow. */
  async moveOrigins(db: Executor, sessionIds: readonly string[], profile: string): Promise<void> {
    for (const part of chunk(sessionIds)) {
      await db.updateTable('delegations').set({ profile }).where('origin_session_id', 'in', part).execute();
    }
  }

  async moveProfile(db: Executor, from: string, to: string): Promise<number> {
    const result = await db
      .updateTable('delegations')
      .set({ profile: to })
      .where('profile', '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }
}
