import { createHash } from 'node:crypto';
import {
  type ClaimDelegationRequest,
  type ClaimDueDelegationsRequest,
  type ClaimedDelegations,
  type CompleteDelegationRequest,
  type CreateDelegationRequest,
  DELEGATION_DUE_STATES,
  type Delegation,
  type DelegationPage,
  type DelegationState,
  type FailDelegationRequest,
  type ListDelegationsQuery,
  type SettleDelegationRequest,
} from '@statehouse/contracts';
import type { Db, SessionRow } from '../db/database.js';
import type { SqlDialect } from '../db/sql-dialect.js';
import type { Tx, UnitOfWork } from '../db/unit-of-work.js';
import { ClaimLedger, claimIsLive, createOnce } from '../domain/claim-ledger.js';
import type { DeletionParticipant } from '../domain/deletion-participant.js';
import { DelegationRepository, type DelegationRow } from '../repositories/delegation.repository.js';
import { SessionRepository } from '../repositories/session.repository.js';
import { canAccessProfile, profileScope } from '../shared/access.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { type Clock, toIso, toIsoOrNull } from '../shared/clock.js';
import type { OperationContext } from '../shared/context.js';
import { CursorPart, cursorShape, decodeCursor, encodeCursor } from '../shared/cursor.js';
import {
  ConflictError,
  NotFoundError,
  WakeClaimExpiredError,
  WakeClaimedError,
  WakeSettledError,
} from '../shared/errors.js';
import type { IdGenerator } from '../shared/ids.js';
import { parseJsonObject } from '../shared/json.js';
import { toDomainError } from '../shared/store-errors.js';

/** (created at | completed at, id) of the last delegation of a page. */
const DELEGATION_CURSOR = cursorShape(CursorPart.epochMs, CursorPart.text);

const isDue = (state: string) => (DELEGATION_DUE_STATES as readonly string[]).includes(state);

/** What makes a create the same one: a retry of it is answered with the existing delegation. */
export function delegationFingerprint(origin: string, child: string | null, task: unknown): string {
  return createHash('sha256')
    .update(canonicalJson({ originSessionId: origin, childSessionId: child, task: task ?? null }))
    .digest('hex');
}

/**
 * Async delegations (docs/domain.md §12): sub-agent work started asynchronously and the wake-up
 * its outcome owes the session that started it (the origin). Recorded idempotently by id; the
 * sub-agent's runner reports it done or failed; the origin's gateway lists what is due, claims a
 * wake-up under a lease and acknowledges it delivered — exactly once — or releases it. Deleting the
 * origin abandons what it was owed and erases the content; deleting the child fails what is still
 * owed (`child_deleted`) and erases the result (a deletion participant, in the deleting
 * transaction). A profile-repair move of the origin takes them along. Owner-fenced by the origin's
 * profile.
 */
export class DelegationService implements DeletionParticipant {
  readonly name = 'delegations';
  private readonly delegations: DelegationRepository;
  private readonly sessions: SessionRepository;
  /** The wake-ups' claims and their reports. */
  private readonly wakeUps: ClaimLedger<DelegationRow, Delegation>;

  constructor(
    private readonly db: Db,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    ids: IdGenerator,
    dialect: SqlDialect,
  ) {
    this.delegations = new DelegationRepository(dialect);
    this.sessions = new SessionRepository(dialect);
    this.wakeUps = new ClaimLedger<DelegationRow, Delegation>(
      { db, uow, clock, ids },
      {
        repository: this.delegations,
        noun: 'delegation',
        view: toDelegation,
        isOpen: (row) => isDue(row.state),
        isLive: claimIsLive,
        refusals: { settled: WakeSettledError, claimed: WakeClaimedError, expired: WakeClaimExpiredError },
      },
    );
  }

  /** Records the delegation (`running`), or returns the one this id already names when it is the same. */
  async create(
    ctx: OperationContext,
    request: CreateDelegationRequest,
  ): Promise<{ delegation: Delegation; created: boolean }> {
    const fingerprint = delegationFingerprint(request.originSessionId, request.childSessionId ?? null, request.task);
    return createOnce(() =>
      this.uow.run(ctx, async (tx) => {
        const now = this.clock.now();
        const existing = await this.delegations.find(tx.db, request.id);
        if (existing) {
          if (!canAccessProfile(ctx.principal, existing.profile) || existing.fingerprint !== fingerprint) {
            throw new ConflictError(
              `delegation ${request.id} already exists with different content; choose another id`,
            );
          }
          return { delegation: toDelegation(existing, now), created: false };
        }
        // Locked against a concurrent delete (PostgreSQL), as a delivery obligation's session is:
        // the delete's transaction settles the ledger, so a row created beside it would escape it.
        const origin = await this.visibleSession(tx, ctx, request.originSessionId, 'origin session');
        if (request.childSessionId !== undefined) await this.childOf(tx, ctx, origin, request.childSessionId);
        await this.delegations.insert(tx.db, {
          id: request.id,
          profile: origin.profile,
          origin_session_id: origin.id,
          child_session_id: request.childSessionId ?? null,
          state: 'running',
          task: request.task === undefined ? null : JSON.stringify(request.task),
          fingerprint,
          wake_attempts: 0,
          created_at: now,
          updated_at: now,
        });
        return { delegation: await this.wakeUps.reread(tx.db, request.id, now), created: true };
      }),
    );
  }

  get(ctx: OperationContext, id: string): Promise<Delegation> {
    return this.wakeUps.get(ctx, id);
  }

  /**
   * Newest first; `due=true`: what is due to wake its origin, oldest finished first (the origin's
   * gateway asks this after a restart).
   */
  async list(ctx: OperationContext, query: ListDelegationsQuery): Promise<DelegationPage> {
    try {
      if (query.profile && !canAccessProfile(ctx.principal, query.profile)) return { items: [], nextCursor: null };
      const now = this.clock.now();
      const due = query.due === true;
      const rows = await this.delegations.list(this.db, {
        profiles: profileScope(ctx.principal),
        profile: query.profile,
        originSessionId: query.originSessionId,
        childSessionId: query.childSessionId,
        states: query.state ? [query.state] : undefined,
        dueAt: due ? now : undefined,
        after: query.cursor ? decodeCursor(query.cursor, DELEGATION_CURSOR) : undefined,
        limit: query.limit + 1,
      });
      const page = rows.slice(0, query.limit);
      const last = page[page.length - 1];
      const key = (row: DelegationRow) => Number(due ? row.completed_at : row.created_at);
      return {
        items: page.map((row) => toDelegation(row, now)),
        nextCursor: rows.length > query.limit && last ? encodeCursor([key(last), last.id]) : null,
      };
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /** The work succeeded: `done`, due to wake the origin. The same report again is answered as it stands. */
  complete(ctx: OperationContext, id: string, request: CompleteDelegationRequest): Promise<Delegation> {
    return this.finish(ctx, id, 'done', request.childSessionId, request.resultSummary ?? null, null);
  }

  /** The work failed: `failed`, due to wake the origin with the error. */
  fail(ctx: OperationContext, id: string, request: FailDelegationRequest): Promise<Delegation> {
    return this.finish(ctx, id, 'failed', request.childSessionId, null, request.error);
  }

  /**
   * Claims the wake-up of one delegation: one live claim at a time, each claim counted. The holder
   * of a live claim asking again extends it.
   */
  claim(ctx: OperationContext, id: string, request: ClaimDelegationRequest): Promise<Delegation> {
    return this.wakeUps.claim(ctx, id, request);
  }

  /** Claims up to `limit` of the oldest due wake-ups in the caller's profiles (of one origin, if named). */
  async claimDue(ctx: OperationContext, request: ClaimDueDelegationsRequest): Promise<ClaimedDelegations> {
    if (request.profile && !canAccessProfile(ctx.principal, request.profile)) return { items: [] };
    return this.wakeUps.claimEach(ctx, request, (db, now) =>
      this.delegations.list(db, {
        profiles: profileScope(ctx.principal),
        profile: request.profile,
        originSessionId: request.originSessionId,
        dueAt: now,
        limit: request.limit * 2,
      }),
    );
  }

  /**
   * The claimer woke the origin: `delivered`, exactly once. The same report with the same claim is
   * answered as it stands; a claim that lapsed with nobody taking over still counts (the wake-up
   * happened); a claim that was taken over or released is stale.
   */
  delivered(ctx: OperationContext, id: string, request: SettleDelegationRequest): Promise<Delegation> {
    return this.wakeUps.settle(
      ctx,
      id,
      request.claimId,
      (db, _row, now) => this.delegations.markDelivered(db, id, request.claimId, now),
      (row) => row.state === 'delivered',
    );
  }

  /** The claimer could not wake the origin now (its turn is busy, …): due again at once. */
  release(ctx: OperationContext, id: string, request: SettleDelegationRequest): Promise<Delegation> {
    return this.wakeUps.settle(ctx, id, request.claimId, (db, _row, now) =>
      this.delegations.release(db, id, request.claimId, now),
    );
  }

  // ---- deletion participant: in the deleting transaction ------------------------------------

  count(tx: Tx, sessionIds: readonly string[]): Promise<number> {
    return this.delegations.countOwedFor(tx.db, sessionIds);
  }

  async remove(tx: Tx, sessionIds: readonly string[]): Promise<void> {
    const now = this.clock.now();
    // Origins first: a delegation whose origin goes too is abandoned, not failed.
    await this.delegations.abandonForOrigins(tx.db, sessionIds, now);
    await this.delegations.failForChildren(tx.db, sessionIds, now);
  }

  relocate(tx: Tx, sessionIds: readonly string[], targetProfile: string): Promise<void> {
    return this.delegations.moveOrigins(tx.db, sessionIds, targetProfile);
  }

  private async finish(
    ctx: OperationContext,
    id: string,
    state: 'done' | 'failed',
    childSessionId: string | undefined,
    resultSummary: string | null,
    error: string | null,
  ): Promise<Delegation> {
    return this.uow.run(ctx, async (tx) => {
      const now = this.clock.now();
      const row = await this.wakeUps.visible(tx.db, ctx, id, true);
      if (row.state !== 'running') {
        // A retry of the report that finished it (maybe woken since) is answered as it stands; any
        // other report cannot change a finished delegation.
        const sameReport =
          (row.state === state || row.state === 'delivered') &&
          row.result_summary === resultSummary &&
          row.error === error &&
          (childSessionId === undefined || childSessionId === row.child_session_id);
        if (sameReport) return toDelegation(row, now);
        throw new ConflictError(`delegation ${id} is already ${row.state}; it cannot become ${state}`);
      }
      let child = row.child_session_id;
      if (childSessionId !== undefined && childSessionId !== child) {
        if (child !== null) {
          throw new ConflictError(`delegation ${id} already names child session ${child}`);
        }
        const origin = await this.sessions.findById(tx.db, row.origin_session_id);
        child = (await this.childOf(tx, ctx, origin ?? { profile: row.profile }, childSessionId)).id;
      }
      await this.delegations.finish(tx.db, id, { state, childSessionId: child, resultSummary, error, now });
      return this.wakeUps.reread(tx.db, id, now);
    });
  }

  /** A session of the caller's profiles, key-share locked against a concurrent delete (PostgreSQL). */
  private async visibleSession(tx: Tx, ctx: OperationContext, id: string, what: string): Promise<SessionRow> {
    const row = await this.sessions.findByIdForKeyShare(tx.db, id);
    if (!row || !canAccessProfile(ctx.principal, row.profile)) throw new NotFoundError(what);
    return row;
  }

  /** The child must be a session of the origin's profile (a child elsewhere is answered as missing). */
  private async childOf(
    tx: Tx,
    ctx: OperationContext,
    origin: Pick<SessionRow, 'profile'>,
    childId: string,
  ): Promise<SessionRow> {
    const child = await this.visibleSession(tx, ctx, childId, 'child session');
    if (child.profile !== origin.profile) throw new NotFoundError('child session');
    return child;
  }
}

export function toDelegation(row: DelegationRow, now: number): Delegation {
  const live = isDue(row.state) && claimIsLive(row, now);
  return {
    id: row.id,
    profile: row.profile,
    originSessionId: row.origin_session_id,
    childSessionId: row.child_session_id,
    state: row.state as DelegationState,
    task: parseJsonObject(row.task),
    resultSummary: row.result_summary,
    error: row.error,
    abandonedReason: row.abandoned_reason as Delegation['abandonedReason'],
    due: isDue(row.state) && !live,
    wakeAttempts: Number(row.wake_attempts),
    claim: live
      ? { claimId: row.claim_id!, holder: row.claim_holder!, expiresAt: toIso(Number(row.claim_expires_at)) }
      : null,
    createdAt: toIso(Number(row.created_at)),
    updatedAt: toIso(Number(row.updated_at)),
    completedAt: toIsoOrNull(row.completed_at === null ? null : Number(row.completed_at)),
    deliveredAt: toIsoOrNull(row.delivered_at === null ? null : Number(row.delivered_at)),
  };
}
