import { createHash } from 'node:crypto';
import type {
  AbandonedReason,
  ClaimDeliveryRequest,
  ClaimedDeliveries,
  ClaimNextDeliveriesRequest,
  CreateDeliveryRequest,
  Delivery,
  DeliveryPage,
  FailDeliveryRequest,
  ListDeliveriesQuery,
  SettleDeliveryRequest,
} from '@statehouse/contracts';
import type { Db } from '../db/database.js';
import type { SqlDialect } from '../db/sql-dialect.js';
import type { Tx, UnitOfWork } from '../db/unit-of-work.js';
import { ClaimLedger, claimIsLive, createOnce } from '../domain/claim-ledger.js';
import type { DeletionParticipant } from '../domain/deletion-participant.js';
import { DeliveryRepository, type DeliveryRow, OWED_STATES } from '../repositories/delivery.repository.js';
import { SessionRepository } from '../repositories/session.repository.js';
import { canAccessProfile, profileScope } from '../shared/access.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { type Clock, toIso, toIsoOrNull } from '../shared/clock.js';
import type { OperationContext } from '../shared/context.js';
import { CursorPart, cursorShape, decodeCursor, encodeCursor } from '../shared/cursor.js';
import {
  ClaimExpiredError,
  ConflictError,
  DeliveryClaimedError,
  DeliverySettledError,
  NotFoundError,
} from '../shared/errors.js';
import type { IdGenerator } from '../shared/ids.js';
import { parseJsonObject } from '../shared/json.js';
import { toDomainError } from '../shared/store-errors.js';

/** What makes a create the same one: a retry of it is answered with the existing obligation. */
export function deliveryFingerprint(
  sessionId: string,
  transportProfile: string | null,
  payload: Record<string, unknown>,
  maxAttempts: number,
): string {
  return createHash('sha256')
    .update(canonicalJson({ sessionId, transportProfile, payload, maxAttempts }))
    .digest('hex');
}

/** (created at, id) of the last delivery of a page. */
const DELIVERY_CURSOR = cursorShape(CursorPart.epochMs, CursorPart.text);

/**
 * Delivery obligations (docs/domain.md §11): what a gateway owes a chat — a reply produced while
 * the platform was down, say. Created idempotently by id; a worker claims one under a lease
 * (each claim is an attempt), then reports it delivered or failed; a failure retries until the
 * attempts are used up, then the obligation is abandoned. Deleting its session abandons it too
 * (a deletion participant: marked and counted in the receipt, never silently dropped), and a
 * profile-repair move takes it along. Owner-fenced by the session's profile.
 */
export class DeliveryService implements DeletionParticipant {
  readonly name = 'deliveries';
  private readonly deliveries: DeliveryRepository;
  private readonly sessions: SessionRepository;
  /** The obligations' claims and their reports. */
  private readonly claims: ClaimLedger<DeliveryRow, Delivery>;

  constructor(
    private readonly db: Db,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    ids: IdGenerator,
    dialect: SqlDialect,
  ) {
    this.deliveries = new DeliveryRepository(dialect);
    this.sessions = new SessionRepository(dialect);
    this.claims = new ClaimLedger<DeliveryRow, Delivery>(
      { db, uow, clock, ids },
      {
        repository: this.deliveries,
        noun: 'delivery',
        view: toDelivery,
        isOpen: (row) => row.state !== 'delivered' && row.state !== 'abandoned',
        isLive: (row, now) => row.state === 'claimed' && claimIsLive(row, now),
        claimedState: 'claimed',
        refusals: { settled: DeliverySettledError, claimed: DeliveryClaimedError, expired: ClaimExpiredError },
        // An obligation whose last attempt lapsed is abandoned as exhausted (docs/domain.md §11.4); the
        // claim is refused as settled after that commits — thrown inside, the rollback would leave an
        // obligation that reads `pending` while every claim of it is refused as settled.
        mayTake: async (db, row, now) => {
          if (Number(row.attempts) < Number(row.max_attempts)) return true;
          await this.deliveries.abandonExhausted(db, row.id, now);
          return false;
        },
        settledByLoss: (current) => current.state === 'abandoned',
      },
    );
  }

  /** Creates the obligation, or returns the one this id already names when it is the same. */
  async create(
    ctx: OperationContext,
    request: CreateDeliveryRequest,
  ): Promise<{ delivery: Delivery; created: boolean }> {
    const fingerprint = deliveryFingerprint(
      request.sessionId,
      request.transportProfile ?? null,
      request.payload,
      request.maxAttempts,
    );
    return createOnce(() =>
      this.uow.run(ctx, async (tx) => {
        const now = this.clock.now();
        const existing = await this.deliveries.find(tx.db, request.id);
        if (existing) return { delivery: this.sameOrConflict(ctx, existing, fingerprint, now), created: false };
        // Locked against a concurrent delete (PostgreSQL): the delete's transaction abandons the
        // session's obligations, so one created beside it would be an orphan that keeps the deleted
        // conversation's payload. After the delete commits this read finds nothing: 404.
        const session = await this.sessions.findByIdForKeyShare(tx.db, request.sessionId);
        if (!session || !canAccessProfile(ctx.principal, session.profile)) throw new NotFoundError('session');
        await this.deliveries.insert(tx.db, {
          id: request.id,
          profile: session.profile,
          session_id: session.id,
          transport_profile: request.transportProfile ?? null,
          payload: JSON.stringify(request.payload),
          fingerprint,
          state: 'pending',
          attempts: 0,
          max_attempts: request.maxAttempts,
          created_at: now,
          updated_at: now,
        });
        return { delivery: await this.claims.reread(tx.db, request.id, now), created: true };
      }),
    );
  }

  get(ctx: OperationContext, id: string): Promise<Delivery> {
    return this.claims.get(ctx, id);
  }

  async list(ctx: OperationContext, query: ListDeliveriesQuery): Promise<DeliveryPage> {
    try {
      if (query.profile && !canAccessProfile(ctx.principal, query.profile)) return { items: [], nextCursor: null };
      const after = query.cursor ? decodeCursor(query.cursor, DELIVERY_CURSOR) : undefined;
      const rows = await this.deliveries.list(this.db, {
        profiles: profileScope(ctx.principal),
        profile: query.profile,
        sessionId: query.sessionId,
        // An expired claim reads as pending, so both stored states answer a `pending` filter.
        states: query.state === 'pending' ? OWED_STATES : query.state ? [query.state] : undefined,
        after,
        limit: query.limit + 1,
      });
      const now = this.clock.now();
      const items = rows
        .slice(0, query.limit)
        .map((row) => toDelivery(row, now))
        .filter((delivery) => query.state === undefined || delivery.state === query.state);
      const last = rows[Math.min(rows.length, query.limit) - 1];
      return {
        items,
        nextCursor: rows.length > query.limit && last ? encodeCursor([Number(last.created_at), last.id]) : null,
      };
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /**
   * Claims one obligation: one live claim at a time, each claim counted as an attempt. An
   * obligation whose last attempt lapsed is abandoned as exhausted (docs/domain.md §11.4) — that
   * commits — and the caller is told it is settled (409), with no claim and no attempt taken.
   */
  claim(ctx: OperationContext, id: string, request: ClaimDeliveryRequest): Promise<Delivery> {
    return this.claims.claim(ctx, id, request);
  }

  /** Claims up to `limit` of the oldest claimable obligations in the caller's profiles. */
  async claimNext(ctx: OperationContext, request: ClaimNextDeliveriesRequest): Promise<ClaimedDeliveries> {
    if (request.profile && !canAccessProfile(ctx.principal, request.profile)) return { items: [] };
    return this.claims.claimEach(ctx, request, (db, now) =>
      this.deliveries.claimable(db, {
        profiles: profileScope(ctx.principal),
        profile: request.profile,
        transportProfile: request.transportProfile,
        now,
        limit: request.limit * 2,
      }),
    );
  }

  /** The claimer delivered it. Reporting the same delivery again is answered as it stands. */
  delivered(ctx: OperationContext, id: string, request: SettleDeliveryRequest): Promise<Delivery> {
    return this.claims.settle(
      ctx,
      id,
      request.claimId,
      // A claim that lapsed unclaimed by anyone else still delivered: the truth beats the lease.
      (db, _row, now) => this.deliveries.settle(db, id, request.claimId, { state: 'delivered', now }),
      (row) => row.state === 'delivered',
    );
  }

  /** The claimer failed: retried while attempts remain (and the failure is retryable), else abandoned. */
  failed(ctx: OperationContext, id: string, request: FailDeliveryRequest): Promise<Delivery> {
    return this.claims.settle(ctx, id, request.claimId, (db, row, now) => {
      const reason: AbandonedReason | undefined = !request.retryable
        ? 'permanent_failure'
        : Number(row.attempts) >= Number(row.max_attempts)
          ? 'attempts_exhausted'
          : undefined;
      return this.deliveries.settle(db, id, request.claimId, {
        state: reason ? 'abandoned' : 'pending',
        now,
        error: request.error,
        abandonedReason: reason,
      });
    });
  }

  // ---- deletion participant: in the deleting transaction ------------------------------------

  count(tx: Tx, sessionIds: readonly string[]): Promise<number> {
    return this.deliveries.countOwed(tx.db, sessionIds);
  }

  remove(tx: Tx, sessionIds: readonly string[]): Promise<void> {
    return this.deliveries.abandonForSessions(tx.db, sessionIds, this.clock.now());
  }

  relocate(tx: Tx, sessionIds: readonly string[], targetProfile: string): Promise<void> {
    return this.deliveries.moveSessions(tx.db, sessionIds, targetProfile);
  }

  private sameOrConflict(ctx: OperationContext, row: DeliveryRow, fingerprint: string, now: number): Delivery {
    if (!canAccessProfile(ctx.principal, row.profile) || row.fingerprint !== fingerprint) {
      throw new ConflictError(`delivery ${row.id} already exists with different content; choose another id`);
    }
    return toDelivery(row, now);
  }
}

function toDelivery(row: DeliveryRow, now: number): Delivery {
  const claimLive = row.state === 'claimed' && claimIsLive(row, now);
  const state = row.state === 'claimed' && !claimLive ? 'pending' : (row.state as Delivery['state']);
  return {
    id: row.id,
    profile: row.profile,
    sessionId: row.session_id,
    transportProfile: row.transport_profile,
    payload: parseJsonObject(row.payload),
    state,
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    claim: claimLive
      ? { claimId: row.claim_id!, holder: row.claim_holder!, expiresAt: toIso(Number(row.claim_expires_at)) }
      : null,
    lastError: row.last_error,
    abandonedReason: row.abandoned_reason as AbandonedReason | null,
    createdAt: toIso(Number(row.created_at)),
    updatedAt: toIso(Number(row.updated_at)),
    deliveredAt: toIsoOrNull(row.delivered_at === null ? null : Number(row.delivered_at)),
  };
}
