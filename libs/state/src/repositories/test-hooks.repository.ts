import { sql } from 'kysely';
import type { Executor, SessionPatch } from '../db/database.js';

/** Raw writes for the test hooks (docs/api.md, "Test hooks"): no rule, no revision check. */
export class TestHooksRepository {
  async patchSession(db: Executor, id: string, patch: SessionPatch, offsets: { started?: number; ended?: number }) {
    const result = await db
      .updateTable('sessions')
      .set((eb) => ({
        ...patch,
        ...(offsets.started !== undefined ? { started_at: eb('started_at', '+', offsets.started) } : {}),
        ...(offsets.ended !== undefined ? { ended_at: eb('ended_at', '+', offsets.ended) } : {}),
        revision: eb('revision', '+', 1),
      }))
      .where('id', '=', id)
      .where('hidden_for', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /**
   * A backdated row's activity follows its history: the latest of its start and its messages'
   * times (the hooks move times backwards; `last_activity_at` never does by itself).
   */
  async settleActivity(db: Executor, sessionIds: readonly string[]): Promise<void> {
    for (const id of new Set(sessionIds)) {
      await db
        .updateTable('sessions')
        .set({
          last_activity_at: sql<number>`(select max(t) from (
            select started_at as t from sessions where id = ${id}
            union all select max(timestamp) as t from messages where session_id = ${id}
          ) times)`,
        })
        .where('id', '=', id)
        .execute();
    }
  }

  async matchingMessages(
    db: Executor,
    where: { sessionId?: string; id?: number; role?: string; content?: string },
  ): Promise<{ id: number; session_id: string }[]> {
    let query = db.selectFrom('messages').select(['id', 'session_id']);
    if (where.sessionId !== undefined) query = query.where('session_id', '=', where.sessionId);
    if (where.id !== undefined) query = query.where('id', '=', where.id);
    if (where.role !== undefined) query = query.where('role', '=', where.role);
    if (where.content !== undefined) query = query.where('content', '=', where.content);
    const rows = await query.orderBy('id').execute();
    return rows.map((row) => ({ id: Number(row.id), session_id: row.session_id }));
  }

  async patchMessages(db: Executor, ids: readonly number[], set: { timestamp?: number; active?: 0 | 1 }) {
    if (ids.length === 0) return 0;
    const result = await db
      .updateTable('messages')
      .set(set)
      .where('id', 'in', [...ids])
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }
}
