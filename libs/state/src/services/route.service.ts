import type {
  LineageKind,
  ListRoutesQuery,
  PutRouteRequest,
  ResolveRequest,
  ResolveResponse,
  Route,
  RouteCheck,
  RoutePage,
} from '@statehouse/contracts';
import { changeStamp } from '../db/change-stamp.js';
import type { Db, Executor, SessionPatch, SessionRow } from '../db/database.js';
import type { SqlDialect } from '../db/sql-dialect.js';
import type { Tx, UnitOfWork } from '../db/unit-of-work.js';
import type { DeletionParticipant } from '../domain/deletion-participant.js';
import { isPermanentEnd, isResetReason } from '../domain/end-reasons.js';
import { gatewayOwnership } from '../domain/gateway-owner.js';
import type { HookRegistry } from '../domain/hook-registry.js';
import { isRevivable, SessionLifecycle } from '../domain/session-lifecycle.js';
import { RouteRepository, type RouteRow } from '../repositories/route.repository.js';
import { SessionRepository } from '../repositories/session.repository.js';
import { assertAdmin, canAccessProfile, profileScope } from '../shared/access.js';
import { type Clock, toIso, toIsoOrNull } from '../shared/clock.js';
import type { OperationContext } from '../shared/context.js';
import { CursorPart, cursorShape, decodeCursor, encodeCursor } from '../shared/cursor.js';
import { NotFoundError } from '../shared/errors.js';
import { parseJsonObject, toJsonOrNull } from '../shared/json.js';
import { toDomainError } from '../shared/store-errors.js';
import type { ContinuationHook } from './lineage.service.js';

/** (profile, session key) of the last route of a page. */
const ROUTE_CURSOR = cursorShape(CursorPart.text, CursorPart.text);

/** How many of a peer's newest sessions recovery looks at. */
const RECOVERY_WINDOW = 50;

/** `agent:<profile>:<platform>:<chat_type>:<chat_id>[:<thread_id>]` (docs/domain.md §2.1). */
export function routingKey(
  profile: string,
  source: string,
  chatType: string,
  chatId: string,
  threadId?: string,
): string {
  return `agent:${profile}:${source}:${chatType}:${chatId}${threadId ? `:${threadId}` : ''}`;
}

/**
 * The gateway routing index. Routes live beside the sessions and move in the same transaction as
 * the session change that moves them: compression and reset repoint them (a continuation hook),
 * deletion removes them (a deletion participant).
 */
export class RouteService implements DeletionParticipant, ContinuationHook {
  readonly name = 'routes';
  private readonly routes = new RouteRepository();
  private readonly sessions: SessionRepository;
  private readonly lifecycle: SessionLifecycle;

  constructor(
    private readonly db: Db,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    dialect: SqlDialect,
    hooks: HookRegistry | null = null,
  ) {
    this.sessions = new SessionRepository(dialect);
    this.lifecycle = new SessionLifecycle(this.sessions, hooks);
  }

  async set(ctx: OperationContext, request: PutRouteRequest): Promise<Route> {
    if (!canAccessProfile(ctx.principal, request.profile)) throw new NotFoundError('profile');
    return this.uow.run(ctx, async (tx) => {
      const session = await this.sessions.findById(tx.db, request.sessionId);
      if (!session || session.profile !== request.profile) throw new NotFoundError('session');
      const now = this.clock.now();
      const existing = await this.routes.find(tx.db, request.profile, request.sessionKey);
      await this.routes.upsert(tx.db, {
        profile: request.profile,
        session_key: request.sessionKey,
        session_id: request.sessionId,
        origin: request.origin !== undefined ? toJsonOrNull(request.origin) : (existing?.origin ?? null),
        suspended:
          request.suspended === undefined
            ? existing
              ? (Number(existing.suspended) as 0 | 1)
              : 0
            : request.suspended
              ? 1
              : 0,
        created_at: existing ? Number(existing.created_at) : now,
        updated_at: now,
      });
      return toRoute((await this.routes.find(tx.db, request.profile, request.sessionKey))!, session);
    });
  }

  async list(ctx: OperationContext, query: ListRoutesQuery): Promise<RoutePage> {
    try {
      if (query.profile && !canAccessProfile(ctx.principal, query.profile)) return { items: [], nextCursor: null };
      const after = query.cursor ? decodeCursor(query.cursor, ROUTE_CURSOR) : undefined;
      const rows = await this.routes.list(this.db, {
        profiles: profileScope(ctx.principal),
        profile: query.profile,
        sessionId: query.sessionId,
        after,
        limit: query.limit + 1,
      });
      const page = rows.slice(0, query.limit);
      const sessions = new Map(
        (await this.sessions.listByIds(this.db, [...new Set(page.map((row) => row.session_id))])).map((row) => [
          row.id,
          row,
        ]),
      );
      const last = page[page.length - 1];
      return {
        items: page.map((row) => toRoute(row, sessions.get(row.session_id))),
        nextCursor: rows.length > query.limit && last ? encodeCursor([last.profile, last.session_key]) : null,
      };
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /**
   * Which session does this chat belong to (docs/domain.md §6.3)? The route, if it points at an
   * open, unarchived row; else a revivable row of the peer — found by exact key and by the chat
   * tuple — open rows first, then recoverable or handed-off ones, newest first; never an archived
   * row, and never one a later reset of the same peer fences. In the same transaction as the
   * decision: a recovered row that ended is reopened (revived means open: in lists, in the
   * dashboard and to retention), the row taken is re-stamped with the caller's transport profile
   * and owned by the caller's gateway.
   */
  async resolve(ctx: OperationContext, request: ResolveRequest): Promise<ResolveResponse> {
    const sessionKey =
      request.sessionKey ??
      routingKey(request.profile, request.source, request.chatType!, request.chatId!, request.threadId);
    if (!canAccessProfile(ctx.principal, request.profile)) return { sessionId: null, via: 'none', sessionKey };
    // Taken before the decision's reads: the same stamp inside the transaction means nothing they
    // read has changed since (db/change-stamp.ts), so the decision stands without being made again.
    const readAt = changeStamp(this.db, 'idle');
    let read: Decision;
    try {
      read = await this.decide(this.db, request, sessionKey);
      if (!read.row || !(await this.needsStamp(this.db, read, request))) return answer(read, sessionKey);
    } catch (error) {
      throw toDomainError(error);
    }
    // A revival and nothing else, with the writer idle and nothing changed since the reads: one
    // statement committed on its own (decision 0026), not a transaction that waits for the end of
    // the event-loop turn.
    const row = read.row;
    if (row.ended_at !== null && request.transportProfile === undefined && request.gatewayId === undefined) {
      const revived = await this.uow.writeAlone(
        ctx,
        readAt,
        (db, stamp) => this.sessions.reviveAlone(db, row.id, this.clock.now(), stamp),
        (tx) => this.lifecycle.announceReopened(tx, row, 'resolve', Number(row.revision) + 1),
      );
      if (revived) return answer(read, sessionKey);
    }
    // The decision and its stamp in one transaction: decided again on locked rows unless nothing
    // changed since it was read (a revival then costs its write, not a second decision).
    return this.uow.run(ctx, async (tx) => {
      const unchanged = readAt !== undefined && changeStamp(this.db, 'in-transaction') === readAt;
      const decision = unchanged ? read : await this.decide(tx.db, request, sessionKey, true);
      if (decision.row && (unchanged || (await this.needsStamp(tx.db, decision, request)))) {
        const row = decision.row;
        const patch: SessionPatch = {};
        if (request.transportProfile !== undefined) patch.transport_profile = request.transportProfile;
        if (request.gatewayId !== undefined) {
          Object.assign(patch, await gatewayOwnership(tx.db, request.gatewayId, row.profile));
        }
        // One statement, one revision: the stamps and the revival (docs/domain.md §6.3).
        // A revival is activity: the chat speaks now, so neither the sweep nor retention takes it
        // for idle on the strength of the activity it had before it ended.
        const reviving = row.ended_at !== null;
        const now = this.clock.now();
        if (reviving && Object.keys(patch).length === 0) {
          await this.sessions.revive(tx.db, row.id, now);
        } else {
          if (reviving) {
            Object.assign(patch, {
              ended_at: null,
              end_reason: null,
              end_reason_detail: null,
              last_activity_at: Math.max(Number(row.last_activity_at), now),
            });
          }
          await this.sessions.update(tx.db, row.id, patch);
        }
        if (reviving) this.lifecycle.announceReopened(tx, row, 'resolve', Number(row.revision) + 1);
      }
      return answer(decision, sessionKey);
    });
  }

  /** Whether the row taken needs a write: revived, or stamped with another transport or owner. */
  private async needsStamp(db: Executor, decision: Decision, request: ResolveRequest): Promise<boolean> {
    const row = decision.row!;
    if (row.ended_at !== null) return true;
    if (request.transportProfile !== undefined && row.transport_profile !== request.transportProfile) return true;
    if (request.gatewayId === undefined) return false;
    if (row.gateway_id !== request.gatewayId) return true;
    const owner = await gatewayOwnership(db, request.gatewayId, row.profile);
    return Number(row.gateway_started_at ?? -1) !== owner.gateway_started_at;
  }

  private async decide(db: Executor, request: ResolveRequest, sessionKey: string, lock = false): Promise<Decision> {
    const route = await this.routes.find(db, request.profile, sessionKey);
    let routed: SessionRow | undefined;
    if (route && Number(route.suspended) === 0) {
      routed = lock
        ? await this.sessions.findByIdForUpdate(db, route.session_id)
        : await this.sessions.findById(db, route.session_id);
      if (routed && routed.profile === request.profile && routed.ended_at === null && Number(routed.archived) === 0) {
        return { row: routed, via: 'route' };
      }
    }
    const byKey = await this.sessions.peerSessions(db, request.profile, sessionKey, RECOVERY_WINDOW);
    const byTuple =
      request.chatId !== undefined && request.chatType !== undefined
        ? await this.sessions.peerTupleSessions(
            db,
            {
              profile: request.profile,
              source: request.source,
              chatType: request.chatType,
              chatId: request.chatId,
              threadId: request.threadId,
              userId: request.userId,
            },
            RECOVERY_WINDOW,
          )
        : [];
    const peers = new Map<string, SessionRow>();
    for (const row of [...byKey, ...byTuple, ...(routed && routed.profile === request.profile ? [routed] : [])]) {
      peers.set(row.id, row);
    }
    const candidates = [...peers.values()];
    const resets = candidates.filter((row) => row.ended_at !== null && isResetReason(row.end_reason));
    const eligible = candidates.filter((candidate) => {
      if (Number(candidate.archived) === 1) return false;
      if (candidate.ended_at !== null && !isRevivable(candidate)) return false;
      return !resets.some((reset) => Number(reset.ended_at) > Number(candidate.last_activity_at));
    });
    // Open rows outrank revivable ended ones; then the newest activity, then the newest id.
    eligible.sort(
      (a, b) =>
        Number(a.ended_at !== null) - Number(b.ended_at !== null) ||
        Number(b.last_activity_at) - Number(a.last_activity_at) ||
        (a.id < b.id ? 1 : a.id > b.id ? -1 : 0),
    );
    const chosen = eligible[0];
    if (!chosen) return { row: undefined, via: 'none' };
    return { row: lock ? await this.sessions.findByIdForUpdate(db, chosen.id) : chosen, via: 'recovered' };
  }

  /** Every route must point at an existing tip of its own profile that is not behind a boundary. */
  async check(ctx: OperationContext): Promise<RouteCheck> {
    assertAdmin(ctx.principal);
    try {
      const problems: RouteCheck['problems'] = [];
      let checked = 0;
      let after: [string, string] | undefined;
      for (;;) {
        const rows = await this.routes.listAll(this.db, after, 500);
        const sessions = new Map(
          (await this.sessions.listByIds(this.db, [...new Set(rows.map((row) => row.session_id))])).map((row) => [
            row.id,
            row,
          ]),
        );
        const withChildren = new Set(
          (await this.sessions.childrenOf(this.db, [...sessions.keys()], 'compression')).map(
            (child) => child.parent_session_id!,
          ),
        );
        for (const row of rows) {
          checked++;
          const session = sessions.get(row.session_id);
          const base = { profile: row.profile, sessionKey: row.session_key, sessionId: row.session_id };
          if (!session) problems.push({ ...base, problem: 'missing_session' });
          else if (session.profile !== row.profile) problems.push({ ...base, problem: 'profile_mismatch' });
          else if (withChildren.has(session.id)) problems.push({ ...base, problem: 'not_tip' });
          else if (isPermanentEnd(session.end_reason) && session.end_reason !== 'branched') {
            problems.push({ ...base, problem: 'closed_boundary' });
          }
        }
        if (rows.length < 500) break;
        after = [rows[rows.length - 1].profile, rows[rows.length - 1].session_key];
      }
      return { ok: problems.length === 0, checked, problems };
    } catch (error) {
      throw toDomainError(error);
    }
  }

  // ---- moves in the same transaction as the session change ------------------------------------

  async onContinued(tx: Tx, from: SessionRow, to: SessionRow, _kind: LineageKind): Promise<void> {
    await this.routes.repoint(tx.db, from.id, to.id, this.clock.now());
  }

  count(tx: Tx, sessionIds: readonly string[]): Promise<number> {
    return this.routes.countForSessions(tx.db, sessionIds);
  }

  remove(tx: Tx, sessionIds: readonly string[]): Promise<void> {
    return this.routes.deleteForSessions(tx.db, sessionIds);
  }
}

interface Decision {
  row: SessionRow | undefined;
  via: ResolveResponse['via'];
}

function answer(decision: Decision, sessionKey: string): ResolveResponse {
  return { sessionId: decision.row?.id ?? null, via: decision.via, sessionKey };
}

function toRoute(row: RouteRow, session: SessionRow | undefined): Route {
  return {
    profile: row.profile,
    sessionKey: row.session_key,
    sessionId: row.session_id,
    origin: parseJsonObject(row.origin),
    suspended: Number(row.suspended) === 1,
    createdAt: toIso(Number(row.created_at)),
    updatedAt: toIso(Number(row.updated_at)),
    session: session
      ? {
          title: session.title,
          endedAt: toIsoOrNull(session.ended_at === null ? null : Number(session.ended_at)),
          endReason: session.end_reason,
          source: session.source,
        }
      : null,
  };
}
