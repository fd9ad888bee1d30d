import { sql } from 'kysely';
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

  /**
   * The recorded work of a kind whose subject is `identity` or begins with `identity` and a line
   * break (work whose subject carries its progress after its identity), with when it was touched.
   */
  async findByIdentity(
    db: Executor,
    kind: string,
    identity: string,
  ): Promise<(DeferredWorkItem & { createdAt: number }) | undefined> {
    const prefix = `${identity}\n`;
    const row = await db
      .selectFrom('deferred_work')
      .select(['kind', 'subject', 'created_at'])
      .where('kind', '=', kind)
      .where((eb) =>
        eb.or([
          eb('subject', '=', identity),
          // Characters, not UTF-16 units: both SQL dialects' substr counts code points.
          eb(sql`substr(subject, 1, cast(${[...prefix].length} as integer))`, '=', prefix),
        ]),
      )
      .orderBy('created_at')
      .limit(1)
      .executeTakeFirst();
    return row && { kind: row.kind, subject: row.subject, createdAt: Number(row.created_at) };
  }

  /** Replaces recorded work's subject (its progress) and marks it touched. Returns false when it is gone. */
  async resubject(db: Executor, item: DeferredWorkItem, subject: string, now: number): Promise<boolean> {
    const result = await db
      .updateTable('deferred_work')
      .set({ subject, created_at: now })
      .where('kind', '=', item.kind)
      .where('subject', '=', item.subject)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}
