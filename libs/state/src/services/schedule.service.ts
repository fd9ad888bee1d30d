import {
  type ClaimedSchedules,
  type ClaimSchedulesRequest,
  type CompleteScheduleRequest,
  type CreateScheduleRequest,
  type DueSchedulesQuery,
  type LineageKind,
  type ListSchedulesQuery,
  type ListSessionSchedulesQuery,
  SCHEDULES_PER_SESSION_MAX,
  type Schedule,
  type ScheduleInactiveReason,
  type SchedulePage,
  type UpdateScheduleRequest,
} from '@statehouse/contracts';
import type { Db, Executor, SessionRow } from '../db/database.js';
import { isUniqueViolation, type SqlDialect } from '../db/sql-dialect.js';
import type { Tx, UnitOfWork } from '../db/unit-of-work.js';
import { claimIsLive, leaseExpiry } from '../domain/claim-ledger.js';
import type { DeletionParticipant } from '../domain/deletion-participant.js';
import { isAutomaticReason, isPermanentEnd } from '../domain/end-reasons.js';
import { assertValidTiming, firstDue, nextDueAfterFiring, type ScheduleTiming } from '../domain/schedule-timing.js';
import { requireIfMatch } from '../domain/session-guards.js';
import { GatewayRepository } from '../repositories/gateway.repository.js';
import {
  ScheduleRepository,
  type ScheduleRow,
  type ScheduleView,
  SET_ASIDE_MS,
} from '../repositories/schedule.repository.js';
import { SessionRepository } from '../repositories/session.repository.js';
import { canAccessProfile, profileScope } from '../shared/access.js';
import { type Clock, toIso, toIsoOrNull } from '../shared/clock.js';
import type { OperationContext, Preconditions } from '../shared/context.js';
import { CursorPart, cursorShape, decodeCursor, encodeCursor } from '../shared/cursor.js';
import {
  ClaimExpiredError,
  ConflictError,
  NotFoundError,
  RevisionConflictError,
  SessionClosedError,
  ValidationError,
} from '../shared/errors.js';
import type { IdGenerator } from '../shared/ids.js';
import { parseJsonObject } from '../shared/json.js';
import type { RuntimeWindows } from '../shared/runtime.js';
import { toDomainError } from '../shared/store-errors.js';
import type { ContinuationHook } from './lineage.service.js';

/** (wake at, id) of the last schedule of a due page. */
const DUE_CURSOR = cursorShape(CursorPart.epochMs, CursorPart.text);
/** The id of the last schedule of a list page. */
const ID_CURSOR = cursorShape(CursorPart.text);
/** Unroutable due ticks are counted per profile up to this bound (metrics). */
export const UNROUTABLE_COUNT_BOUND = 10_000;
/** How many of the oldest due ticks a claim looks at to set aside those nobody may fire. */
const SET_ASIDE_SCAN = 50;

/**
 * Per-session scheduled wake-ups (docs/domain.md §13): heartbeats and loops a gateway keeps for a
 * conversation, kept here so they survive its restarts. A schedule belongs to a session and moves
 * with the conversation — into compression and reset children (a continuation hook, in the same
 * transaction as the route), to another profile (a deletion participant's relocate) — and goes
 * with it when it is deleted (a deletion participant). Its owner is the gateway of the session a
 * route points at; that gateway claims due ticks under a lease and completes them, fenced by the
 * claim's generation like turns and deliveries.
 */
export class ScheduleService implements DeletionParticipant, ContinuationHook {
  readonly name = 'schedules';
  private readonly schedules: ScheduleRepository;
  private readonly sessions: SessionRepository;
  private readonly gateways = new GatewayRepository();

  constructor(
    private readonly db: Db,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    dialect: SqlDialect,
    /** When an owner gateway counts as alive (§10.1): ticks of a silent one are set aside. */
    private readonly runtime: RuntimeWindows,
  ) {
    this.schedules = new ScheduleRepository(dialect);
    this.sessions = new SessionRepository(dialect);
  }

  // ---- CRUD under the session -----------------------------------------------------------------

  /**
   * A new schedule of a session. Refused on a segment whose conversation continues elsewhere (a
   * compression, branch or reset end: schedule the tip); a session closed deliberately or archived
   * may carry one, inactive until it is reopened or unarchived (§13.2).
   */
  async create(ctx: OperationContext, sessionId: string, request: CreateScheduleRequest): Promise<Schedule> {
    const timing: ScheduleTiming = {
      kind: request.kind,
      intervalSeconds: request.intervalSeconds ?? null,
      cron: request.cron ?? null,
      timeZone: request.timeZone ?? null,
    };
    assertValidTiming(timing);
    const id = request.id ?? this.ids.next();
    try {
      return await this.uow.run(ctx, async (tx) => {
        const now = this.clock.now();
        // Locked against a concurrent delete and continuation (PostgreSQL): a schedule created
        // beside them would stay on a removed or superseded segment.
        const session = await this.sessions.findByIdForKeyShare(tx.db, sessionId);
        if (!session || !canAccessProfile(ctx.principal, session.profile)) throw new NotFoundError('session');
        if (session.ended_at !== null && isPermanentEnd(session.end_reason)) {
          throw new SessionClosedError(
            `the session ended (${session.end_reason}) and its conversation continues elsewhere; schedule its tip`,
          );
        }
        if ((await this.schedules.countForSession(tx.db, sessionId)) >= SCHEDULES_PER_SESSION_MAX) {
          throw new ConflictError(`a session carries at most ${SCHEDULES_PER_SESSION_MAX} schedules`);
        }
        if (await this.schedules.find(tx.db, id)) throw new ConflictError(`schedule ${id} already exists`);
        const nextDueAt = request.nextDueAt !== undefined ? instant(request.nextDueAt) : firstDue(timing, now);
        await this.schedules.insert(tx.db, {
          id,
          profile: session.profile,
          session_id: session.id,
          kind: timing.kind,
          interval_seconds: timing.intervalSeconds,
          cron: timing.cron,
          time_zone: timing.timeZone,
          payload: JSON.stringify(request.payload),
          enabled: request.enabled ? 1 : 0,
          next_due_at: nextDueAt,
          last_fired_at: null,
          wake_at: nextDueAt,
          claim_holder: null,
          claim_expires_at: null,
          claimed_due_at: null,
          created_at: now,
          updated_at: now,
        });
        return this.viewOf(tx.db, id, now);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError(`schedule ${id} already exists`);
      throw error;
    }
  }

  /** The session's schedules, by id. */
  async list(ctx: OperationContext, sessionId: string, query: ListSessionSchedulesQuery): Promise<SchedulePage> {
    try {
      await this.visibleSession(this.db, ctx, sessionId);
      const after = query.cursor ? decodeCursor(query.cursor, ID_CURSOR)[0] : undefined;
      const rows = await this.schedules.viewsOfSession(this.db, sessionId, after, query.limit + 1);
      return this.page(rows, query.limit, (last) => [last.id]);
    } catch (error) {
      throw toDomainError(error);
    }
  }

  async get(ctx: OperationContext, sessionId: string, scheduleId: string): Promise<Schedule> {
    try {
      return toSchedule(await this.visible(this.db, ctx, sessionId, scheduleId), this.clock.now());
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /** Existence probe of one schedule: its revision, or 404. */
  async probe(ctx: OperationContext, sessionId: string, scheduleId: string): Promise<{ revision: number }> {
    try {
      const row = await this.schedules.find(this.db, scheduleId);
      if (!row || row.session_id !== sessionId || !canAccessProfile(ctx.principal, row.profile)) {
        throw new NotFoundError('schedule');
      }
      await this.visibleSession(this.db, ctx, sessionId);
      return { revision: Number(row.revision) };
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /** Existence probe of a session's schedules: how many it carries, or 404 when none (or no such session). */
  async probeSession(ctx: OperationContext, sessionId: string): Promise<{ count: number }> {
    try {
      await this.visibleSession(this.db, ctx, sessionId);
      const count = await this.schedules.countForSession(this.db, sessionId);
      if (count === 0) throw new NotFoundError('schedule');
      return { count };
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /**
   * A revision-checked change (If-Match). A change of the timing without `nextDueAt` recomputes the
   * next tick from now; a live claim keeps its lease (its completion then keeps the new tick).
   */
  async update(
    ctx: OperationContext,
    sessionId: string,
    scheduleId: string,
    request: UpdateScheduleRequest,
    preconditions: Preconditions,
  ): Promise<Schedule> {
    requireIfMatch(preconditions);
    return this.uow.run(ctx, async (tx) => {
      const now = this.clock.now();
      const row = await this.lockedAtRevision(tx, ctx, sessionId, scheduleId, preconditions);
      const kindChanged = request.kind !== undefined && request.kind !== row.kind;
      const timing: ScheduleTiming = {
        kind: (request.kind ?? row.kind) as ScheduleTiming['kind'],
        intervalSeconds: request.intervalSeconds ?? (kindChanged ? null : numberOrNull(row.interval_seconds)),
        cron: request.cron ?? (kindChanged ? null : row.cron),
        timeZone: request.timeZone !== undefined ? request.timeZone : kindChanged ? null : row.time_zone,
      };
      assertValidTiming(timing);
      const timingChanged =
        timing.kind !== row.kind ||
        timing.intervalSeconds !== numberOrNull(row.interval_seconds) ||
        timing.cron !== row.cron ||
        timing.timeZone !== row.time_zone;
      const nextDueAt =
        request.nextDueAt !== undefined
          ? instant(request.nextDueAt)
          : timingChanged
            ? firstDue(timing, now)
            : Number(row.next_due_at);
      const claimLive = claimIsLive(row, now);
      await this.schedules.update(tx.db, row.id, Number(row.revision), {
        kind: timing.kind,
        interval_seconds: timing.intervalSeconds,
        cron: timing.cron,
        time_zone: timing.timeZone,
        ...(request.payload !== undefined ? { payload: JSON.stringify(request.payload) } : {}),
        ...(request.enabled !== undefined ? { enabled: request.enabled ? 1 : 0 } : {}),
        next_due_at: nextDueAt,
        wake_at: claimLive ? Number(row.claim_expires_at) : nextDueAt,
        updated_at: now,
      });
      return this.viewOf(tx.db, row.id, now);
    });
  }

  /** Deletes one schedule (If-Match). A claim in flight is then answered 404 at completion. */
  async deleteOne(
    ctx: OperationContext,
    sessionId: string,
    scheduleId: string,
    preconditions: Preconditions,
  ): Promise<void> {
    requireIfMatch(preconditions);
    await this.uow.run(ctx, async (tx) => {
      const row = await this.lockedAtRevision(tx, ctx, sessionId, scheduleId, preconditions);
      await this.schedules.deleteOne(tx.db, row.id, Number(row.revision));
    });
  }

  // ---- the profile's view: due ticks, ownership --------------------------------------------------

  /** A profile's schedules by id; with `gatewayId`, the ones that gateway owns (§13.3). */
  async listInProfile(ctx: OperationContext, query: ListSchedulesQuery): Promise<SchedulePage> {
    try {
      if (!canAccessProfile(ctx.principal, query.profile)) return { items: [], nextCursor: null };
      const after = query.cursor ? decodeCursor(query.cursor, ID_CURSOR)[0] : undefined;
      const rows = await this.schedules.viewsOfProfile(this.db, {
        profile: query.profile,
        gatewayId: query.gatewayId,
        after,
        limit: query.limit + 1,
      });
      return this.page(rows, query.limit, (last) => [last.id]);
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /**
   * Active schedules whose tick is due and not under a live claim, oldest first, each with its
   * owner — `unroutable` ones are due ticks that no gateway may fire (§13.3).
   */
  async due(ctx: OperationContext, query: DueSchedulesQuery): Promise<SchedulePage> {
    try {
      if (!canAccessProfile(ctx.principal, query.profile)) return { items: [], nextCursor: null };
      const after = query.cursor ? decodeCursor(query.cursor, DUE_CURSOR) : undefined;
      const rows = await this.schedules.due(this.db, {
        profile: query.profile,
        now: this.clock.now(),
        gatewayId: query.gatewayId,
        ownership: query.ownership,
        after,
        limit: query.limit + 1,
      });
      return this.page(rows, query.limit, (last) => [Number(last.wake_at), last.id]);
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /**
   * Due, unclaimed ticks of every profile the principal sees that no route can carry (§13.3),
   * each profile counted up to `UNROUTABLE_COUNT_BOUND` (metrics).
   */
  async countUnroutableDue(ctx: OperationContext): Promise<{ profile: string; count: number }[]> {
    try {
      const now = this.clock.now();
      const scope = profileScope(ctx.principal);
      const profiles = (await this.db.selectFrom('profiles').select('name').orderBy('name').execute())
        .map((row) => row.name)
        .filter((name) => scope === null || scope.includes(name));
      const counts: { profile: string; count: number }[] = [];
      for (const profile of profiles) {
        const count = await this.schedules.countUnroutableDue(this.db, profile, now, UNROUTABLE_COUNT_BOUND);
        if (count > 0) counts.push({ profile, count });
      }
      return counts;
    } catch (error) {
      throw toDomainError(error);
    }
  }

  // ---- claim and complete ------------------------------------------------------------------------

  /**
   * A gateway claims up to `limit` of the due ticks it owns (§13.4), oldest first, each under a
   * lease: every claim raises the schedule's claim generation, which its completion presents. A
   * claimer that crashes lets the lease lapse, and the tick is due (and claimable) again. Due ticks
   * nobody may fire among the oldest are set aside for `SET_ASIDE_MS` first, so this claim and the
   * next ones do not walk past them.
   */
  async claim(ctx: OperationContext, request: ClaimSchedulesRequest): Promise<ClaimedSchedules> {
    return this.uow.run(ctx, async (tx) => {
      const now = this.clock.now();
      const gateway = await this.gateways.find(tx.db, request.gatewayId);
      if (!gateway || !canAccessProfile(ctx.principal, gateway.profile)) {
        throw new ValidationError(
          `gateway ${request.gatewayId} is not registered: send its heartbeat (PUT /v1/gateways/${request.gatewayId}/heartbeat) first`,
          [{ path: 'gatewayId', message: 'not a registered gateway' }],
        );
      }
      // Among the oldest due ticks of the profile, those nobody may fire are set aside (§13.4.1),
      // so this claim and the next ones do not walk past them again.
      await this.schedules.setAsideUnfireable(tx.db, {
        profile: gateway.profile,
        gatewayId: gateway.id,
        now,
        aliveSince: now - this.runtime.gatewayTimeoutMs,
        until: now + SET_ASIDE_MS,
        window: SET_ASIDE_SCAN,
      });
      const claimed = await this.schedules.claimDue(
        tx.db,
        { profile: gateway.profile, gatewayId: gateway.id, now, limit: request.limit },
        { holder: request.holder ?? gateway.id, expiresAt: leaseExpiry(now, request.leaseSeconds) },
      );
      // In the order they were due (an UPDATE returns its rows in no particular order). Each was
      // just claimed as active, routed and owned by this gateway: that is what it reads as.
      claimed.sort(
        (a, b) => Number(a.claimed_due_at) - Number(b.claimed_due_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
      );
      const views = claimed.map(
        (row): ScheduleView => ({
          ...row,
          session_archived: 0,
          session_ended_at: null,
          session_end_reason: null,
          session_gateway_id: gateway.id,
          routed: 1,
        }),
      );
      return { items: views.map((view) => toSchedule(view, now)) };
    });
  }

  /**
   * The tick fired: the next one is set (§13.5) and `lastFiredAt` recorded. Only the latest claim
   * completes — one that lapsed and was taken over is stale (`claim_expired`); a lapsed claim
   * nobody took over still completes (the tick did fire). Completing the same claim again answers
   * the schedule as it stands.
   */
  async complete(ctx: OperationContext, scheduleId: string, request: CompleteScheduleRequest): Promise<Schedule> {
    return this.uow.run(ctx, async (tx) => {
      const now = this.clock.now();
      const row = await this.schedules.findForUpdate(tx.db, scheduleId);
      if (!row || !canAccessProfile(ctx.principal, row.profile)) throw new NotFoundError('schedule');
      const current = Number(row.claim_generation);
      if (request.generation !== current) {
        throw new ClaimExpiredError(
          `claim ${request.generation} of schedule ${scheduleId} is stale: claim ${current} took the tick over`,
        );
      }
      if (row.claim_expires_at !== null) {
        const nextDueAt = nextDueAfterFiring(timingOf(row), Number(row.next_due_at), now);
        if (!(await this.schedules.complete(tx.db, row.id, current, { nextDueAt, firedAt: now }))) {
          throw new ClaimExpiredError(`claim ${request.generation} of schedule ${scheduleId} is no longer live`);
        }
      }
      return this.viewOf(tx.db, row.id, now);
    });
  }

  // ---- moves with the conversation, in the transaction of the session change ------------------------

  async onContinued(tx: Tx, from: SessionRow, to: SessionRow, _kind: LineageKind): Promise<void> {
    await this.schedules.moveToSession(tx.db, from.id, to.id, this.clock.now());
  }

  count(tx: Tx, sessionIds: readonly string[]): Promise<number> {
    return this.schedules.countForSessions(tx.db, sessionIds);
  }

  /** The sessions are deleted: their schedules (and payloads) go in the same transaction. */
  remove(tx: Tx, sessionIds: readonly string[]): Promise<void> {
    return this.schedules.deleteForSessions(tx.db, sessionIds);
  }

  relocate(tx: Tx, sessionIds: readonly string[], targetProfile: string): Promise<void> {
    return this.schedules.moveSessions(tx.db, sessionIds, targetProfile, this.clock.now());
  }

  // ---- helpers ---------------------------------------------------------------------------------

  private page<K extends (string | number)[]>(
    rows: ScheduleView[],
    limit: number,
    key: (last: ScheduleView) => K,
  ): SchedulePage {
    const now = this.clock.now();
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page.map((row) => toSchedule(row, now)),
      nextCursor: rows.length > limit && last ? encodeCursor(key(last)) : null,
    };
  }

  private async viewOf(db: Executor, id: string, now: number): Promise<Schedule> {
    const [view] = await this.schedules.views(db, [id]);
    if (!view) throw new NotFoundError('schedule');
    return toSchedule(view, now);
  }

  private async visibleSession(db: Executor, ctx: OperationContext, sessionId: string): Promise<void> {
    const session = await this.sessions.findById(db, sessionId);
    if (!session || !canAccessProfile(ctx.principal, session.profile)) throw new NotFoundError('session');
  }

  private async visible(db: Executor, ctx: OperationContext, sessionId: string, scheduleId: string) {
    const [view] = await this.schedules.views(db, [scheduleId]);
    if (!view || view.session_id !== sessionId || !canAccessProfile(ctx.principal, view.profile)) {
      throw new NotFoundError('schedule');
    }
    return view;
  }

  /** The schedule, locked for the transaction, at the revision the caller's If-Match names. */
  private async lockedAtRevision(
    tx: Tx,
    ctx: OperationContext,
    sessionId: string,
    scheduleId: string,
    preconditions: Preconditions,
  ) {
    const row = await this.schedules.findForUpdate(tx.db, scheduleId);
    if (!row || row.session_id !== sessionId || !canAccessProfile(ctx.principal, row.profile)) {
      throw new NotFoundError('schedule');
    }
    if (Number(row.revision) !== preconditions.ifMatch) {
      throw new RevisionConflictError(Number(row.revision), 'schedule');
    }
    return row;
  }
}

function timingOf(row: ScheduleRow): ScheduleTiming {
  return {
    kind: row.kind as ScheduleTiming['kind'],
    intervalSeconds: numberOrNull(row.interval_seconds),
    cron: row.cron,
    timeZone: row.time_zone,
  };
}

const numberOrNull = (value: number | null) => (value === null ? null : Number(value));

const instant = (value: string | number) => (typeof value === 'number' ? value : Date.parse(value));

/** Active (§13.2): enabled, and the session not archived and open or ended only automatically. */
function inactiveReason(
  view: Pick<ScheduleView, 'enabled' | 'session_archived' | 'session_ended_at' | 'session_end_reason'>,
): ScheduleInactiveReason | null {
  if (Number(view.enabled) !== 1) return 'disabled';
  if (Number(view.session_archived) === 1) return 'session_archived';
  if (view.session_ended_at !== null && !isAutomaticReason(view.session_end_reason)) return 'session_ended';
  return null;
}

function toSchedule(view: ScheduleView, now: number): Schedule {
  const claimLive = claimIsLive(view, now);
  const reason = inactiveReason(view);
  const routed = Number(view.routed) === 1;
  return {
    id: view.id,
    sessionId: view.session_id,
    profile: view.profile,
    kind: view.kind as Schedule['kind'],
    intervalSeconds: numberOrNull(view.interval_seconds),
    cron: view.cron,
    timeZone: view.time_zone,
    payload: parseJsonObject(view.payload) ?? {},
    enabled: Number(view.enabled) === 1,
    nextDueAt: toIso(Number(view.next_due_at)),
    lastFiredAt: toIsoOrNull(view.last_fired_at === null ? null : Number(view.last_fired_at)),
    revision: Number(view.revision),
    createdAt: toIso(Number(view.created_at)),
    updatedAt: toIso(Number(view.updated_at)),
    active: reason === null,
    inactiveReason: reason,
    owner: {
      ownership: !routed ? 'unroutable' : view.session_gateway_id !== null ? 'owned' : 'unowned',
      gatewayId: routed ? view.session_gateway_id : null,
    },
    claim: claimLive
      ? {
          generation: Number(view.claim_generation),
          holder: view.claim_holder!,
          expiresAt: toIso(Number(view.claim_expires_at)),
          dueAt: toIso(Number(view.claimed_due_at)),
        }
      : null,
  };
}
