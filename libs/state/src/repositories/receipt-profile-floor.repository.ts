import type { Executor } from '../db/database.js';

/**
 * Per profile, the highest receipt sequence a reclamation removed. A member's floor is the highest
 * of its profiles' floors: a reclamation of other tenants' receipts never expires its cursor, and
 * nothing about other tenants' deletions shows in what it is told.
 */
export class ReceiptProfileFloorRepository {
  async raise(db: Executor, profile: string, floor: number): Promise<void> {
    const existing = await db
      .selectFrom('receipt_profile_floors')
      .select('floor')
      .where('profile', '=', profile)
      .executeTakeFirst();
    if (!existing) {
      await db.insertInto('receipt_profile_floors').values({ profile, floor }).execute();
    } else if (Number(existing.floor) < floor) {
      await db.updateTable('receipt_profile_floors').set({ floor }).where('profile', '=', profile).execute();
    }
  }

  async highestOf(db: Executor, profiles: string[]): Promise<number> {
    if (profiles.length === 0) return 0;
    const row = await db
      .selectFrom('receipt_profile_floors')
      .select((eb) => eb.fn.max('floor').as('max'))
      .where('profile', 'in', profiles)
      .executeTakeFirst();
    return row?.max === null || row?.max === undefined ? 0 : Number(row.max);
  }
}
