import type { Executor, SessionRow } from '../db/database.js';

/**
 * The selections of the maintenance paths. Each is bounded by `limit`; `ids` narrows a selection
 * to rows chosen earlier, so a chunk re-checks exactly the same predicate inside its transaction.
 */
export class DeletionCandidatesRepository {
  /** Ended, no messages at all, not archived. */
  async emptyEnded(db: Executor, limit: number, ids?: readonly string[]): Promise<SessionRow[]> {
    return db
      .selectFrom('sessions as s')
      .selectAll('s')
      .where('s.hidden_for', 'is', null)
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
  async ghosts(db: Executor, before: number, limit: number, ids?: readonly string[]): Promise<SessionRow[]> {
    return db
      .selectFrom('sessions as s')
      .selectAll('s')
      .where('s.hidden_for', 'is', null)
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

  /** Ended before the cutoff and not pinned (whole lineages are decided by the caller). */
  async endedBefore(
    db: Executor,
    cutoff: number,
    filter: { profile?: string; source?: string },
    limit: number,
    ids?: readonly string[],
  ): Promise<SessionRow[]> {
    // Hidden sessions (half-imported) are not candidates of any sweep.
    let query = db
      .selectFrom('sessions')
      .selectAll()
      .where('ended_at', '<', cutoff)
      .where('pinned', '=', 0)
      .where('hidden_for', 'is', null);
    if (ids) query = query.where('id', 'in', ids.length ? [...ids] : ['']);
    if (filter.profile) query = query.where('profile', '=', filter.profile);
    if (filter.source) query = query.where('source', '=', filter.source);
    return query.orderBy('ended_at').limit(limit).execute();
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
