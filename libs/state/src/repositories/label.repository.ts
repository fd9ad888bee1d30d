import type { Selectable } from 'kysely';
import type { Executor, LabelsTable } from '../db/database.js';

export type LabelRow = Selectable<LabelsTable>;
export type LabelRowWithCount = LabelRow & { session_count: number };

/** A profile's labels (docs/domain.md §15): the only code that touches `labels`. */
export class LabelRepository {
  async listInProfile(db: Executor, profile: string): Promise<LabelRowWithCount[]> {
    const rows = await db
      .selectFrom('labels as l')
      .selectAll('l')
      .select((eb) =>
        eb
          .selectFrom('session_labels as sl')
          .select((inner) => inner.fn.countAll<number>().as('n'))
          .whereRef('sl.label_id', '=', 'l.id')
          .as('session_count'),
      )
      .where('l.profile', '=', profile)
      .orderBy('l.name_key')
      .execute();
    return rows.map((row) => ({ ...row, session_count: Number(row.session_count ?? 0) }));
  }

  async findByKey(db: Executor, profile: string, nameKey: string): Promise<LabelRow | undefined> {
    return db
      .selectFrom('labels')
      .selectAll()
      .where('profile', '=', profile)
      .where('name_key', '=', nameKey)
      .executeTakeFirst();
  }

  /** Ids of the labels named (by key) in the given profiles (`null`: every profile). */
  async idsByKeys(db: Executor, profiles: readonly string[] | null, nameKeys: readonly string[]): Promise<LabelRow[]> {
    let query = db
      .selectFrom('labels')
      .selectAll()
      .where('name_key', 'in', [...nameKeys]);
    if (profiles !== null) query = query.where('profile', 'in', profiles.length ? [...profiles] : ['']);
    return query.execute();
  }

  async sessionCount(db: Executor, labelId: string): Promise<number> {
    const row = await db
      .selectFrom('session_labels')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('label_id', '=', labelId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async count(db: Executor, profile: string): Promise<number> {
    const row = await db
      .selectFrom('labels')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('profile', '=', profile)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async insert(db: Executor, row: Omit<LabelRow, 'revision'>): Promise<void> {
    await db.insertInto('labels').values(row).execute();
  }

  /** Writes the change while the revision is `expected`; false when it is another. */
  async update(
    db: Executor,
    id: string,
    change: { name: string; name_key: string; colour: string },
    now: number,
    expected: number,
  ): Promise<boolean> {
    const result = await db
      .updateTable('labels')
      .set((eb) => ({ ...change, updated_at: now, revision: eb('revision', '+', 1) }))
      .where('id', '=', id)
      .where('revision', '=', expected)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async delete(db: Executor, id: string, expected: number): Promise<boolean> {
    const result = await db
      .deleteFrom('labels')
      .where('id', '=', id)
      .where('revision', '=', expected)
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  async moveProfile(db: Executor, from: string, to: string): Promise<number> {
    const result = await db.updateTable('labels').set({ profile: to }).where('profile', '=', from).executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async deleteForProfile(db: Executor, profile: string): Promise<number> {
    const result = await db.deleteFrom('labels').where('profile', '=', profile).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
