import type { Executor } from '../db/database.js';

/** Store-wide markers that must outlive the rows they describe (the reclaimed floor and its anchor). */
export class StoreMetaRepository {
  async get(db: Executor, key: string): Promise<string | undefined> {
    const row = await db.selectFrom('store_meta').select('value').where('key', '=', key).executeTakeFirst();
    return row?.value;
  }

  async set(db: Executor, key: string, value: string): Promise<void> {
    await db
      .insertInto('store_meta')
      .values({ key, value })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
      .execute();
  }
}
