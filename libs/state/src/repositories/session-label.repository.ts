import type { Executor } from '../db/database.js';

export interface SessionLabelRef {
  name: string;
  colour: string;
}

/** Which session carries which label (docs/domain.md §15): the only code that touches `session_labels`. */
export class SessionLabelRepository {
  /** Tags the sessions not tagged yet; returns how many gained the label. */
  async apply(db: Executor, labelId: string, sessionIds: readonly string[], now: number): Promise<number> {
    const tagged = new Set(
      (
        await db
          .selectFrom('session_labels')
          .select('session_id')
          .where('label_id', '=', labelId)
          .where('session_id', 'in', [...sessionIds])
          .execute()
      ).map((row) => row.session_id),
    );
    const fresh = [...new Set(sessionIds)].filter((id) => !tagged.has(id));
    if (fresh.length === 0) return 0;
    await db
      .insertInto('session_labels')
      .values(fresh.map((session_id) => ({ session_id, label_id: labelId, created_at: now })))
      .execute();
    return fresh.length;
  }

  async remove(db: Executor, labelId: string, sessionIds: readonly string[]): Promise<number> {
    const result = await db
      .deleteFrom('session_labels')
      .where('label_id', '=', labelId)
      .where('session_id', 'in', [...sessionIds])
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** The labels of each of these sessions, by name — one query for a whole page. */
  async forSessions(db: Executor, sessionIds: readonly string[]): Promise<Map<string, SessionLabelRef[]>> {
    const labels = new Map<string, SessionLabelRef[]>();
    if (sessionIds.length === 0) return labels;
    const rows = await db
      .selectFrom('session_labels as sl')
      .innerJoin('labels as l', 'l.id', 'sl.label_id')
      .select(['sl.session_id', 'l.name', 'l.colour'])
      .where('sl.session_id', 'in', [...sessionIds])
      .orderBy('l.name_key')
      .execute();
    for (const row of rows) {
      const list = labels.get(row.session_id) ?? [];
      list.push({ name: row.name, colour: row.colour });
      labels.set(row.session_id, list);
    }
    return labels;
  }

  /** The child of a compression carries on the conversation: it carries its labels too. */
  async copy(db: Executor, fromSessionId: string, toSessionId: string, now: number): Promise<void> {
    const rows = await db
      .selectFrom('session_labels')
      .select('label_id')
      .where('session_id', '=', fromSessionId)
      .execute();
    if (rows.length === 0) return;
    await db
      .insertInto('session_labels')
      .values(rows.map((row) => ({ session_id: toSessionId, label_id: row.label_id, created_at: now })))
      .onConflict((oc) => oc.doNothing())
      .execute();
  }

  async removeSessions(db: Executor, sessionIds: readonly string[]): Promise<number> {
    if (sessionIds.length === 0) return 0;
    const result = await db
      .deleteFrom('session_labels')
      .where('session_id', 'in', [...sessionIds])
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
