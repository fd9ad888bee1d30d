import type { Executor } from '../db/database.js';

export interface MetaRow {
  key: string;
  value: string;
  updated_at: number;
}

/** The profile's key/value store (docs/domain.md §14): the only code that touches `profile_meta`. */
export class ProfileMetaRepository {
  async get(db: Executor, profile: string, key: string): Promise<MetaRow | undefined> {
    return db
      .selectFrom('profile_meta')
      .select(['key', 'value', 'updated_at'])
      .where('profile', '=', profile)
      .where('key', '=', key)
      .executeTakeFirst();
  }

  async insert(db: Executor, profile: string, key: string, value: string, now: number): Promise<void> {
    await db.insertInto('profile_meta').values({ profile, key, value, updated_at: now }).execute();
  }

  /** Writes the value; with `expected`, only while the stored value is that one. False when not written. */
  async update(
    db: Executor,
    profile: string,
    key: string,
    value: string,
    now: number,
    expected?: string,
  ): Promise<boolean> {
    let query = db
      .updateTable('profile_meta')
      .set({ value, updated_at: now })
      .where('profile', '=', profile)
      .where('key', '=', key);
    if (expected !== undefined) query = query.where('value', '=', expected);
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async delete(db: Executor, profile: string, key: string, expected?: string): Promise<boolean> {
    let query = db.deleteFrom('profile_meta').where('profile', '=', profile).where('key', '=', key);
    if (expected !== undefined) query = query.where('value', '=', expected);
    const result = await query.executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  /** Keys starting with `prefix` (an exact comparison, never LIKE), in key order after `afterKey`. */
  async list(db: Executor, profile: string, prefix: string, afterKey: string | undefined, limit: number) {
    let query = db.selectFrom('profile_meta').select(['key', 'value', 'updated_at']).where('profile', '=', profile);
    if (prefix.length > 0) {
      query = query.where((eb) => eb(eb.fn('substr', ['key', eb.val(1), eb.val([...prefix].length)]), '=', prefix));
    }
    if (afterKey !== undefined) query = query.where('key', '>', afterKey);
    return query.orderBy('key').limit(limit).execute();
  }

  async count(db: Executor, profile: string): Promise<number> {
    const row = await db
      .selectFrom('profile_meta')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('profile', '=', profile)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async moveProfile(db: Executor, from: string, to: string): Promise<number> {
    const result = await db
      .updateTable('profile_meta')
      .set({ profile: to })
      .where('profile', '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async deleteForProfile(db: Executor, profile: string): Promise<number> {
    const result = await db.deleteFrom('profile_meta').where('profile', '=', profile).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
