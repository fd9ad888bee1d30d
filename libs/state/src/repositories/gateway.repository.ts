import type { ExpressionBuilder, Selectable } from 'kysely';
import type { DB, Executor, GatewaysTable } from '../db/database.js';

export type GatewayRow = Selectable<GatewaysTable>;

/** What makes an open row an orphan (docs/domain.md §10.3), as the sweep's two statements read it. */
export interface OrphanWindows {
  now: number;
  staleBefore: number;
  /** Whether the caller has been up for a whole liveness window (else a silent gateway is not judged). */
  listenedLongEnough: boolean;
  unownedIdleBefore: number | null;
}

/**
 * The orphan predicate on the row being ended itself: the ending statement re-checks it, so a row
 * that an append, a resolve or a turn took between the sweep's read and its write is left alone
 * (on PostgreSQL a concurrent writer's committed change is what the update re-evaluates).
 */
function stillOrphaned(eb: ExpressionBuilder<DB, 'sessions'>, windows: OrphanWindows) {
  const gateway = () => eb.selectFrom('gateways as g').select('g.id').whereRef('g.id', '=', 'sessions.gateway_id');
  const owned = eb.and([
    eb('sessions.gateway_id', 'is not', null),
    eb('sessions.last_activity_at', '<', windows.staleBefore),
    eb.or([
      eb.not(eb.exists(gateway())),
      eb.exists(
        gateway().where((inner) =>
          inner.or([
            ...(windows.listenedLongEnough ? [inner('g.last_seen_at', '<', windows.staleBefore)] : []),
            inner.and([
              inner('sessions.gateway_started_at', 'is not', null),
              inner('sessions.gateway_started_at', '<', inner.ref('g.started_at')),
            ]),
          ]),
        ),
      ),
    ]),
  ]);
  if (windows.unownedIdleBefore === null) return owned;
  return eb.or([
    owned,
    eb.and([
      eb('sessions.gateway_id', 'is', null),
      eb('sessions.last_activity_at', '<', windows.unownedIdleBefore),
      eb.or([
        eb('sessions.imported_at', 'is', null),
        eb('sessions.last_activity_at', '>', eb.ref('sessions.imported_at')),
      ]),
    ]),
  ]);
}

/** Gateway process identities and their heartbeats. */
export class GatewayRepository {
  async find(db: Executor, id: string): Promise<GatewayRow | undefined> {
    return db.selectFrom('gateways').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async insert(db: Executor, row: Omit<GatewayRow, 'heartbeats'>): Promise<void> {
    await db
      .insertInto('gateways')
      .values({ ...row, heartbeats: 1 })
      .execute();
  }

  async heartbeat(
    db: Executor,
    id: string,
    beat: { host: string; pid: number; startedAt: number; now: number },
  ): Promise<void> {
    await db
      .updateTable('gateways')
      .set((eb) => ({
        host: beat.host,
        pid: beat.pid,
        started_at: beat.startedAt,
        last_seen_at: beat.now,
        heartbeats: eb('heartbeats', '+', 1),
      }))
      .where('id', '=', id)
      .execute();
  }

  async moveProfile(db: Executor, from: string, to: string): Promise<number> {
    const result = await db.updateTable('gateways').set({ profile: to }).where('profile', '=', from).executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async countInProfile(db: Executor, profile: string): Promise<number> {
    const row = await db
      .selectFrom('gateways')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('profile', '=', profile)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async deleteForProfile(db: Executor, profile: string): Promise<number> {
    const result = await db.deleteFrom('gateways').where('profile', '=', profile).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async delete(db: Executor, id: string): Promise<void> {
    await db.deleteFrom('gateways').where('id', '=', id).execute();
  }

  async list(
    db: Executor,
    filter: { profiles: string[] | null; profile?: string; after?: [string, string]; limit: number },
  ): Promise<GatewayRow[]> {
    if (filter.profiles !== null && filter.profiles.length === 0) return [];
    let query = db.selectFrom('gateways').selectAll();
    if (filter.profiles !== null) query = query.where('profile', 'in', filter.profiles);
    if (filter.profile) query = query.where('profile', '=', filter.profile);
    if (filter.after) {
      const [profile, id] = filter.after;
      query = query.where((eb) =>
        eb.or([eb('profile', '>', profile), eb.and([eb('profile', '=', profile), eb('id', '>', id)])]),
      );
    }
    return query.orderBy('profile').orderBy('id').limit(filter.limit).execute();
  }

  /** Open sessions owned by each of these gateways (one grouped read for a page). */
  async openSessionCounts(db: Executor, ids: readonly string[]): Promise<Map<string, number>> {
    if (ids.length === 0) return new Map();
    const rows = await db
      .selectFrom('sessions')
      .select(['gateway_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('gateway_id', 'in', [...ids])
      .where('ended_at', 'is', null)
      .where('hidden_for', 'is', null)
      .groupBy('gateway_id')
      .execute();
    return new Map(rows.map((row) => [row.gateway_id!, Number(row.n)]));
  }

  /**
   * Open rows the sweep may end, oldest activity first: rows idle since `staleBefore` whose owner is
   * gone, silent since `staleBefore`, or restarted since it took the row (a newer incarnation) — and
   * rows owned by no gateway idle since `unownedIdleBefore` (null: never), except imported rows no
   * writer here has claimed yet. A row under a live turn lease is never a candidate.
   */
  async orphanCandidates(db: Executor, options: OrphanWindows & { limit: number }): Promise<{ id: string }[]> {
    return (
      db
        .selectFrom('sessions as s')
        .leftJoin('gateways as g', 'g.id', 's.gateway_id')
        .select('s.id')
        .where('s.ended_at', 'is', null)
        // A session still being imported in chunks is nobody's to end.
        .where('s.hidden_for', 'is', null)
        .where((eb) => eb.or([eb('s.lease_expires_at', 'is', null), eb('s.lease_expires_at', '<=', options.now)]))
        .where((eb) => {
          const owned = eb.and([
            eb('s.gateway_id', 'is not', null),
            eb('s.last_activity_at', '<', options.staleBefore),
            eb.or([
              eb('g.id', 'is', null),
              ...(options.listenedLongEnough ? [eb('g.last_seen_at', '<', options.staleBefore)] : []),
              eb.and([
                eb('s.gateway_started_at', 'is not', null),
                eb('s.gateway_started_at', '<', eb.ref('g.started_at')),
              ]),
            ]),
          ]);
          if (options.unownedIdleBefore === null) return owned;
          return eb.or([
            owned,
            eb.and([
              eb('s.gateway_id', 'is', null),
              eb('s.last_activity_at', '<', options.unownedIdleBefore),
              // An imported row nobody here has claimed keeps the old store's liveness (§10.3).
              eb.or([eb('s.imported_at', 'is', null), eb('s.last_activity_at', '>', eb.ref('s.imported_at'))]),
            ]),
          ]);
        })
        .orderBy('s.last_activity_at')
        .limit(options.limit)
        .execute()
    );
  }

  /**
   * Ends the given candidates that are still orphans, open and not under a live turn lease, in
   * one statement; returns the ids it ended.
   */
  async endOrphans(db: Executor, ids: readonly string[], windows: OrphanWindows, reason: string): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await db
      .updateTable('sessions')
      .set((eb) => ({ ended_at: windows.now, end_reason: reason, revision: eb('revision', '+', 1) }))
      .where('sessions.id', 'in', ids)
      .where('sessions.ended_at', 'is', null)
      .where((eb) =>
        eb.or([eb('sessions.lease_expires_at', 'is', null), eb('sessions.lease_expires_at', '<=', windows.now)]),
      )
      .where((eb) => stillOrphaned(eb, windows))
      .returning('sessions.id')
      .execute();
    return rows.map((row) => row.id);
  }
}
