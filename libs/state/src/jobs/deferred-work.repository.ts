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
}
