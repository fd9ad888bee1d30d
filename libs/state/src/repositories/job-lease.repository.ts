import type { Executor } from '../db/database.js';

/**
 * Named leases in the store: several API processes may run the scheduler, but a job's pass runs in
 * one of them at a time.
 */
export class JobLeaseRepository {
  async acquire(db: Executor, name: string, holder: string, now: number, ttlMs: number): Promise<boolean> {
    await db
      .insertInto('job_leases')
      .values({ name, holder, expires_at: 0 })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const result = await db
      .updateTable('job_leases')
      .set({ holder, expires_at: now + ttlMs })
      .where('name', '=', name)
      .where((eb) => eb.or([eb('expires_at', '<=', now), eb('holder', '=', holder)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async release(db: Executor, name: string, holder: string): Promise<void> {
    await db
      .updateTable('job_leases')
      .set({ expires_at: 0 })
      .where('name', '=', name)
      .where('holder', '=', holder)
      .execute();
  }

  async find(db: Executor, name: string): Promise<{ holder: string; expires_at: number } | undefined> {
    return db.selectFrom('job_leases').select(['holder', 'expires_at']).where('name', '=', name).executeTakeFirst();
  }

  /** Takes a lease from a holder known to be gone (compare-and-set on that holder). */
  async takeOver(db: Executor, name: string, from: string, to: string, expiresAt: number): Promise<boolean> {
    const result = await db
      .updateTable('job_leases')
      .set({ holder: to, expires_at: expiresAt })
      .where('name', '=', name)
      .where('holder', '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}
