import type { Executor } from '../db/database.js';

export interface DeferredWorkItem {
  kind: string;
  subject: string;
}

export class DeferredWorkRepository {
  async add(db: Executor, kind: string, subject: string, now: number): Promise<void> {
    await db
      .insertInto('deferred_work')
      .values({ kind, subject, created_at: now })
      .onConflict((oc) => oc.columns(['kind', 'subject']).doNothing())
      .execute();
  }

  async oldest(db: Executor, limit: number): Promise<DeferredWorkItem[]> {
    return db.selectFrom('deferred_work').select(['kind', 'subject']).orderBy('created_at').limit(limit).execute();
  }

  async remove(db: Executor, item: DeferredWorkItem): Promise<void> {
    await db.deleteFrom('deferred_work').where('kind', '=', item.kind).where('subject', '=', item.subject).execute();
  }

  /** Recorded work of one kind, oldest first, with when it was recorded or last touched. */
  async ofKind(db: Executor, kind: string, limit: number): Promise<(DeferredWorkItem & { createdAt: number })[]> {
    const rows = await db
      .selectFrom('deferred_work')
      .select(['kind', 'subject', 'created_at'])
      .where('kind', '=', kind)
      .orderBy('created_at')
      .limit(limit)
      .execute();
    return rows.map((row) => ({ kind: row.kind, subject: row.subject, createdAt: Number(row.created_at) }));
  }

  /** Marks recorded work as still progressing (its worker is alive). Returns false when it is gone. */
  async touch(db: Executor, item: DeferredWorkItem, now: number): Promise<boolean> {
    const result = await db
      .updateTable('deferred_work')
      .set({ created_at: now })
      .where('kind', '=', item.kind)
      .where('subject', '=', item.subject)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}
