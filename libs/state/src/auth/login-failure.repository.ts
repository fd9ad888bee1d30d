import type { Executor } from '../db/database.js';

/** Failed logins per subject (username, client address), for rate limiting across replicas. */
export class LoginFailureRepository {
  async record(db: Executor, subject: string, at: number): Promise<void> {
    await db.insertInto('login_failures').values({ subject, at }).execute();
  }
  async countSince(db: Executor, subject: string, since: number): Promise<{ count: number; oldest: number | null }> {
    const row = await db
      .selectFrom('login_failures')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('at').as('oldest')])
      .where('subject', '=', subject)
      .where('at', '>', since)
      .executeTakeFirstOrThrow();
    return { count: Number(row.n), oldest: row.oldest === null ? null : Number(row.oldest) };
  }
  async clear(db: Executor, subject: string): Promise<void> {
    await db.deleteFrom('login_failures').where('subject', '=', subject).execute();
  }
  async deleteBefore(db: Executor, cutoff: number): Promise<void> {
    await db.deleteFrom('login_failures').where('at', '<=', cutoff).execute();
  }
}
