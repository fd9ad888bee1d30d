import { DELEGATION_OWED_STATES } from '@statehouse/contracts';
import type { Executor, SessionRow } from '../db/database.js';
import { OWED_STATES } from './delivery.repository.js';
import { LIVING_ENDS } from './schedule.repository.js';

/**
 * The selections of the maintenance paths. Each is bounded by `limit`; `ids` narrows a selection
 * to rows chosen earlier, so a chunk re-checks exactly the same predicate inside its transaction.
 */
export class DeletionCandidatesRepository {
  /** Ended, no messages at all, not archived. */
  async emptyEnded(db: Executor, limit: number, ids?: readonly string[], profile?: string): Promise<SessionRow[]> {
    return db
      .selectFrom('sessions as s')
      .selectAll('s')
      .where('s.hidden_for', 'is', null)
      .$if(profile !== undefined, (q) => q.where('s.profile', '=', profile!))
      .where('s.ended_at', 'is not', null)
      .where('s.archived', '=', 0)
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('messages as m').select('m.id').whereRef('m.session_id', '=', 's.id'))),
      )
      .$if(ids !== undefined, (q) => q.where('s.id', 'in', ids?.length ? [...ids] : ['']))
      .orderBy('s.ended_at')
      .limit(limit)
      .execute();
  }

  /** Untitled, ended, empty, started before `before`. */
  async ghosts(
    db: Executor,
    before: number,
    limit: number,
    ids?: readonly string[],
    profile?: string,
  ): Promise<SessionRow[]> {
    return db
      .selectFrom('sessions as s')
      .selectAll('s')
      .where('s.hidden_for', 'is', null)
      .$if(profile !== undefined, (q) => q.where('s.profile', '=', profile!))
      .where('s.title', 'is', null)
      .where('s.ended_at', 'is not', null)
      .where('s.started_at', '<', before)
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('messages as m').select('m.id').whereRef('m.session_id', '=', 's.id'))),
      )
      .$if(ids !== undefined, (q) => q.where('s.id', 'in', ids?.length ? [...ids] : ['']))
      .orderBy('s.started_at')
      .limit(limit)
      .execute();
  }

  /** Keyed (made for a chat) but never active: no messages and no activity since it started. */
  async neverActiveKeyed(db: Executor, before: number, limit: number, ids?: readonly string[]): Promise<SessionRow[]> {
    return db
      .selectFrom('sessions as s')
      .selectAll('s')
      .where('s.hidden_for', 'is', null)
      .where('s.session_key', 'is not', null)
      .where('s.started_at', '<', before)
      .whereRef('s.last_activity_at', '<=', 's.started_at')
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('messages as m').select('m.id').whereRef('m.session_id', '=', 's.id'))),
      )
      .$if(ids !== undefined, (q) => q.where('s.id', 'in', ids?.length ? [...ids] : ['']))
      .orderBy('s.started_at')
      .limit(limit)
      .execute();
  }

  /**
   * Retention's selection (docs/domain.md §5.1.5): ended before the cutoff, idle since it, not
   * pinned, and nothing alive about it — no live turn lease, no route that moved inside the
   * window, no delivery still owed, no delegation still owing it a wake-up, no active scheduled
   * wake-up (whole lineages are decided by the caller).
   */
  async retentionCandidates(
    db: Executor,
    window: { cutoff: number; now: number },
    filter: { profile?: string; source?: string },
    limit: number,
    ids?: readonly string[],
  ): Promise<SessionRow[]> {
    const { cutoff, now } = window;
    // Hidden sessions (half-imported) are not candidates of any sweep.
    let query = db
      .selectFrom('sessions as s')
      .selectAll('s')
      .where('s.ended_at', '<', cutoff)
      .where('s.last_activity_at', '<', cutoff)
      .where('s.pinned', '=', 0)
      .where('s.hidden_for', 'is', null)
      .where((eb) => eb.or([eb('s.lease_expires_at', 'is', null), eb('s.lease_expires_at', '<=', now)]))
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('routes as r')
              .select('r.session_id')
              .whereRef('r.session_id', '=', 's.id')
              .where('r.updated_at', '>=', cutoff),
          ),
        ),
      )
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('deliveries as d')
              .select('d.id')
              .whereRef('d.session_id', '=', 's.id')
              .where('d.state', 'in', [...OWED_STATES]),
          ),
        ),
      )
      // Sub-agent work still running for it, or finished and not yet delivered, will wake it.
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('delegations as g')
              .select('g.id')
              .whereRef('g.origin_session_id', '=', 's.id')
              .where('g.state', 'in', [...DELEGATION_OWED_STATES]),
          ),
        ),
      )
      // An active scheduled wake-up (docs/domain.md §13.2): a gateway means to wake this chat.
      .where((eb) =>
        eb.not(
          eb.and([
            eb('s.archived', '=', 0),
            eb('s.end_reason', 'in', LIVING_ENDS),
            eb.exists(
              eb
                .selectFrom('schedules as sc')
                .select('sc.id')
                .whereRef('sc.session_id', '=', 's.id')
                .where('sc.enabled', '=', 1),
            ),
          ]),
        ),
      );
    if (ids) query = query.where('s.id', 'in', ids.length ? [...ids] : ['']);
    if (filter.profile) query = query.where('s.profile', '=', filter.profile);
    if (filter.source) query = query.where('s.source', '=', filter.source);
    return query.orderBy('s.ended_at').limit(limit).execute();
  }

  async hasMessages(db: Executor, sessionId: string): Promise<boolean> {
    const row = await db
      .selectFrom('messages')
      .select('id')
      .where('session_id', '=', sessionId)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async hasChildren(db: Executor, sessionId: string): Promise<boolean> {
    const row = await db
      .selectFrom('sessions')
      .select('id')
      .where('parent_session_id', '=', sessionId)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }
}
