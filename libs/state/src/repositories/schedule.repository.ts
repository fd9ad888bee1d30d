import { AUTOMATIC_ONLY_REASONS, RECOVERABLE_REASONS } from '@statehouse/contracts';
import { type ExpressionBuilder, type Insertable, type Selectable, sql } from 'kysely';
import { updatedOne } from '../db/compare-and-set.js';
import type { DB, Executor, SchedulesTable, SessionsTable } from '../db/database.js';
import { keysetAfter } from '../db/list-queries.js';
import { chunk, type SqlDialect } from '../db/sql-dialect.js';

export type ScheduleRow = Selectable<SchedulesTable>;

/** A schedule with what its session and the routing index say about it (activity and owner). */
export interface ScheduleView extends ScheduleRow {
  session_archived: number;
  session_ended_at: number | null;
  session_end_reason: string | null;
  session_gateway_id: string | null;
  /** 1 when a route of its profile points at its session, else null. */
  routed: number | null;
}

/** Ends after which a conversation still lives on (automatic stamps: open again at the next turn or resolve). */
export const LIVING_ENDS = [...RECOVERABLE_REASONS, ...AUTOMATIC_ONLY_REASONS];

/**
 * A due tick that nobody may fire — paused, unowned, unroutable, or owned by a gateway that is not
 * alive (docs/domain.md §13.4.1) — is set
 * aside this long at a time (its `wake_at` moves, its `nextDueAt` does not), so claims stop walking
 * past it; once it may fire again it is claimed within this time.
 */
export const SET_ASIDE_MS = 60_000;

type ScheduleScope = ExpressionBuilder<DB & { sc: SchedulesTable; s: SessionsTable }, 'sc' | 's'>;

/** Scheduled wake-ups. Claims are compare-and-set: the WHERE clause decides who gets a tick. */
export class ScheduleRepository {
  constructor(private readonly dialect: SqlDialect) {}

  async find(db: Executor, id: string): Promise<ScheduleRow | undefined> {
    return db.selectFrom('schedules').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Reads the row and, on PostgreSQL, locks it for the rest of the transaction. */
  async findForUpdate(db: Executor, id: string): Promise<ScheduleRow | undefined> {
    const query = db.selectFrom('schedules').selectAll().where('id', '=', id);
    return (this.dialect.name === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
  }

  async insert(db: Executor, row: Insertable<SchedulesTable>): Promise<void> {
    await db.insertInto('schedules').values(row).execute();
  }

  async countForSession(db: Executor, sessionId: string): Promise<number> {
    const row = await db
      .selectFrom('schedules')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('session_id', '=', sessionId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Schedules with their session's state and routing, by id (visible sessions only). */
  async views(db: Executor, ids: readonly string[]): Promise<ScheduleView[]> {
    if (ids.length === 0) return [];
    return this.viewQuery(db)
      .where('sc.id', 'in', [...ids])
      .execute();
  }

  async viewsOfSession(db: Executor, sessionId: string, after: string | undefined, limit: number) {
    let query = this.viewQuery(db).where('sc.session_id', '=', sessionId);
    if (after !== undefined) query = query.where('sc.id', '>', after);
    return query.orderBy('sc.id').limit(limit).execute();
  }

  /** A profile's schedules by id; with a gateway, only those it owns (routed, its session's gateway). */
  async viewsOfProfile(
    db: Executor,
    filter: { profile: string; gatewayId?: string; after?: string; limit: number },
  ): Promise<ScheduleView[]> {
    let query = this.viewQuery(db).where('sc.profile', '=', filter.profile);
    if (filter.gatewayId !== undefined) {
      query = query.where('s.gateway_id', '=', filter.gatewayId).where((eb) => this.routedIn(eb));
    }
    if (filter.after !== undefined) query = query.where('sc.id', '>', filter.after);
    return query.orderBy('sc.id').limit(filter.limit).execute();
  }

  /**
   * Active schedules of a profile whose tick is due and not under a live claim, in `wake_at` order
   * (`schedules_due_idx`; ticks set aside sort where they were set aside to). Ownership is filtered
   * here: `owned` by a gateway, `unowned`, `unroutable`.
   */
  async due(
    db: Executor,
    filter: {
      profile: string;
      now: number;
      gatewayId?: string;
      ownership?: 'owned' | 'unowned' | 'unroutable';
      after?: [number, string];
      limit: number;
    },
  ): Promise<ScheduleView[]> {
    let query = this.viewQuery(db).where((eb) => this.dueNow(eb, filter.profile, filter.now));
    if (filter.gatewayId !== undefined) {
      query = query.where('s.gateway_id', '=', filter.gatewayId).where((eb) => this.routedIn(eb));
    }
    if (filter.ownership === 'unroutable') query = query.where((eb) => eb.not(this.routedIn(eb)));
    if (filter.ownership === 'owned')
      query = query.where('s.gateway_id', 'is not', null).where((eb) => this.routedIn(eb));
    if (filter.ownership === 'unowned')
      query = query.where('s.gateway_id', 'is', null).where((eb) => this.routedIn(eb));
    if (filter.after) query = query.where(keysetAfter(['sc.wake_at', 'sc.id'], filter.after, '>'));
    return query.orderBy('sc.wake_at').orderBy('sc.id').limit(filter.limit).execute();
  }

  /**
   * Claims, in one statement, up to `limit` of the due ticks a gateway owns and may fire, oldest
   * first. The ticks are picked on PostgreSQL with `FOR UPDATE … SKIP LOCKED`, so concurrent
   * claimers split the work instead of queueing on the same rows, and taken only if — in this very
   * statement — they are still enabled, due and not under a live claim. Each claim raises the
   * schedule's claim generation (the fencing token) and moves its `wake_at` to the lease expiry, so
   * the tick is due again only if the claimer never completes. Answers the claimed rows.
   */
  async claimDue(
    db: Executor,
    filter: { profile: string; gatewayId: string; now: number; limit: number },
    claim: { holder: string; expiresAt: number },
  ): Promise<ScheduleRow[]> {
    const pick = db
      .selectFrom('schedules as sc')
      .innerJoin('sessions as s', 's.id', 'sc.session_id')
      .select('sc.id')
      .where((eb) => this.claimableNow(eb, filter.profile, filter.now))
      .where('s.gateway_id', '=', filter.gatewayId)
      .where((eb) => this.routedIn(eb))
      .orderBy('sc.wake_at')
      .orderBy('sc.id')
      .limit(filter.limit);
    // A CTE, picked once: as `IN (SELECT … LIMIT n FOR UPDATE SKIP LOCKED)` PostgreSQL may run the
    // pick again per row and take more than `limit` (seen: 12 for a limit of 5).
    const rows = await db
      .with('picked', () => (this.dialect.name === 'postgres' ? pick.forUpdate('sc').skipLocked() : pick))
      .updateTable('schedules')
      .set((eb) => ({
        claim_generation: eb('claim_generation', '+', 1),
        claim_holder: claim.holder,
        claim_expires_at: claim.expiresAt,
        claimed_due_at: eb.ref('next_due_at'),
        wake_at: claim.expiresAt,
      }))
      .where((eb) => eb('id', 'in', eb.selectFrom('picked').select('picked.id')))
      .where('enabled', '=', 1)
      .where('wake_at', '<=', filter.now)
      .returningAll()
      .execute();
    return rows;
  }

  /**
   * Records a fired tick if `generation` is still the latest claim and not yet completed: the next
   * tick, the time it fired, the claim released.
   */
  async complete(
    db: Executor,
    id: string,
    generation: number,
    change: { nextDueAt: number; firedAt: number },
  ): Promise<boolean> {
    return updatedOne(
      db
        .updateTable('schedules')
        .set((eb) => ({
          next_due_at: change.nextDueAt,
          wake_at: change.nextDueAt,
          last_fired_at: change.firedAt,
          claim_holder: null,
          claim_expires_at: null,
          claimed_due_at: null,
          revision: eb('revision', '+', 1),
          updated_at: change.firedAt,
        }))
        .where('id', '=', id)
        .where('claim_generation', '=', generation)
        .where('claim_expires_at', 'is not', null),
    );
  }

  /**
   * Among the `window` oldest due ticks of a profile, sets those nobody may fire aside until
   * `until` (docs/domain.md §13.4.1), in one statement: paused, unowned, unroutable, or owned by a
   * gateway silent since before `aliveSince` — except the claiming gateway's own. Only ticks still
   * due, and on PostgreSQL only those no claimer holds (`SKIP LOCKED`): setting aside never waits.
   */
  async setAsideUnfireable(
    db: Executor,
    filter: { profile: string; gatewayId: string; now: number; aliveSince: number; until: number; window: number },
  ): Promise<number> {
    const oldest = db
      .selectFrom('schedules as sc')
      .select(['sc.id', 'sc.session_id', 'sc.profile'])
      .where('sc.profile', '=', filter.profile)
      .where('sc.enabled', '=', 1)
      .where('sc.wake_at', '<=', filter.now)
      .orderBy('sc.wake_at')
      .orderBy('sc.id')
      .limit(filter.window);
    const result = await db
      .with('oldest', () => oldest)
      .updateTable('schedules')
      .set({ wake_at: filter.until })
      .where((eb) => {
        const unfireable = eb
          .selectFrom('oldest as o')
          .innerJoin('sessions as s', 's.id', 'o.session_id')
          .leftJoin('gateways as g', 'g.id', 's.gateway_id')
          .select('o.id')
          .where((w) =>
            w.not(
              w.and([
                w('s.gateway_id', 'is not', null),
                w('s.archived', '=', 0),
                w.or([w('s.ended_at', 'is', null), w(w.fn.coalesce('s.end_reason', sql.lit('')), 'in', LIVING_ENDS)]),
                w.or([
                  w('s.gateway_id', '=', filter.gatewayId),
                  w(w.fn.coalesce('g.last_seen_at', sql.lit(0)), '>=', filter.aliveSince),
                ]),
                // A LIMIT 1 probe per row: under NOT, PostgreSQL hashes an EXISTS over the whole routes table.
                w(
                  w
                    .selectFrom('routes as r')
                    .select(sql<number>`1`.as('one'))
                    .whereRef('r.session_id', '=', 'o.session_id')
                    .whereRef('r.profile', '=', 'o.profile')
                    .limit(1),
                  'is not',
                  null,
                ),
              ]),
            ),
          );
        const free = eb
          .selectFrom('schedules as x')
          .select('x.id')
          .where('x.id', 'in', unfireable)
          .where('x.wake_at', '<=', filter.now);
        return eb('id', 'in', this.dialect.name === 'postgres' ? free.forUpdate().skipLocked() : free);
      })
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** A revision-checked change of the definition; zero rows means the revision moved. */
  async update(
    db: Executor,
    id: string,
    expectedRevision: number,
    patch: Partial<
      Pick<
        ScheduleRow,
        'kind' | 'interval_seconds' | 'cron' | 'time_zone' | 'payload' | 'enabled' | 'next_due_at' | 'wake_at'
      >
    > & { updated_at: number },
  ): Promise<boolean> {
    return updatedOne(
      db
        .updateTable('schedules')
        .set((eb) => ({ ...patch, revision: eb('revision', '+', 1) }))
        .where('id', '=', id)
        .where('revision', '=', expectedRevision),
    );
  }

  async deleteOne(db: Executor, id: string, expectedRevision: number): Promise<boolean> {
    const result = await db
      .deleteFrom('schedules')
      .where('id', '=', id)
      .where('revision', '=', expectedRevision)
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  /** The conversation continues in `to` (compression, reset): its schedules go with it. */
  async moveToSession(db: Executor, from: string, to: string, now: number): Promise<number> {
    const result = await db
      .updateTable('schedules')
      .set((eb) => ({ session_id: to, revision: eb('revision', '+', 1), updated_at: now }))
      .where('session_id', '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async countForSessions(db: Executor, sessionIds: readonly string[]): Promise<number> {
    let total = 0;
    for (const part of chunk(sessionIds)) {
      const row = await db
        .selectFrom('schedules')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('session_id', 'in', part)
        .executeTakeFirstOrThrow();
      total += Number(row.n);
    }
    return total;
  }

  async deleteForSessions(db: Executor, sessionIds: readonly string[]): Promise<void> {
    for (const part of chunk(sessionIds)) await db.deleteFrom('schedules').where('session_id', 'in', part).execute();
  }

  async moveSessions(db: Executor, sessionIds: readonly string[], profile: string, now: number): Promise<void> {
    for (const part of chunk(sessionIds)) {
      await db
        .updateTable('schedules')
        .set((eb) => ({ profile, revision: eb('revision', '+', 1), updated_at: now }))
        .where('session_id', 'in', part)
        .execute();
    }
  }

  async moveProfile(db: Executor, from: string, to: string, now: number): Promise<number> {
    const result = await db
      .updateTable('schedules')
      .set((eb) => ({ profile: to, revision: eb('revision', '+', 1), updated_at: now }))
      .where('profile', '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Due, active ticks nobody may fire (no route points at their session), per profile, up to `bound`. */
  async countUnroutableDue(db: Executor, profile: string, now: number, bound: number): Promise<number> {
    const rows = await db
      .selectFrom('schedules as sc')
      .innerJoin('sessions as s', 's.id', 'sc.session_id')
      .select('sc.id')
      .where((eb) => this.dueNow(eb, profile, now))
      .where((eb) => eb.not(this.routedIn(eb)))
      .limit(bound)
      .execute();
    return rows.length;
  }

  private viewQuery(db: Executor) {
    return db
      .selectFrom('schedules as sc')
      .innerJoin('sessions as s', 's.id', 'sc.session_id')
      .selectAll('sc')
      .select((eb) => [
        's.archived as session_archived',
        's.ended_at as session_ended_at',
        's.end_reason as session_end_reason',
        's.gateway_id as session_gateway_id',
        this.routedFlag(eb).as('routed'),
      ])
      .where('s.hidden_for', 'is', null);
  }

  /**
   * Active and due (docs/domain.md §13.2, §13.4) in SQL: enabled, the tick's time passed and no
   * live claim holding it — including ticks set aside (their `wake_at` within `SET_ASIDE_MS`) — on a
   * session that is visible, not archived, and open or ended only automatically.
   */
  private dueNow(eb: ScheduleScope, profile: string, now: number) {
    return eb.and([
      eb('sc.profile', '=', profile),
      eb('sc.enabled', '=', 1),
      eb('sc.wake_at', '<=', now + SET_ASIDE_MS),
      eb('sc.next_due_at', '<=', now),
      eb.or([eb('sc.claim_expires_at', 'is', null), eb('sc.claim_expires_at', '<=', now)]),
      this.livingSession(eb),
    ]);
  }

  /** What a claim may take now: active, and `wake_at` passed (due, not claimed, not set aside). */
  private claimableNow(eb: ScheduleScope, profile: string, now: number) {
    return eb.and([
      eb('sc.profile', '=', profile),
      eb('sc.enabled', '=', 1),
      eb('sc.wake_at', '<=', now),
      this.livingSession(eb),
    ]);
  }

  private livingSession(eb: ScheduleScope) {
    return eb.and([
      eb('s.hidden_for', 'is', null),
      eb('s.archived', '=', 0),
      eb.or([eb('s.ended_at', 'is', null), eb('s.end_reason', 'in', LIVING_ENDS)]),
    ]);
  }

  /**
   * 1 when some route of the schedule's profile points at its session, else null — a scalar
   * subquery with LIMIT 1, one `routes_session_idx` probe per row. (As `CASE WHEN EXISTS …` in a
   * select list, PostgreSQL hashes the whole routes table first: 8 ms at 2·10⁴ routes.)
   */
  private routedFlag(eb: ScheduleScope) {
    return eb
      .selectFrom('routes as r')
      .select(sql<number>`1`.as('one'))
      .whereRef('r.session_id', '=', 'sc.session_id')
      .whereRef('r.profile', '=', 'sc.profile')
      .limit(1);
  }

  /** Some route of the schedule's profile points at its session (`routes_session_idx`). */
  private routedIn(eb: ScheduleScope) {
    return eb.exists(
      eb
        .selectFrom('routes as r')
        .select(sql<number>`1`.as('one'))
        .whereRef('r.session_id', '=', 'sc.session_id')
        .whereRef('r.profile', '=', 'sc.profile'),
    );
  }
}
