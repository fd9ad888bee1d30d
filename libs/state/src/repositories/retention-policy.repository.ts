import type { Executor } from '../db/database.js';

export class RetentionPolicyRepository {
  async list(db: Executor): Promise<{ profile: string; retentionDays: number | null }[]> {
    const rows = await db
      .selectFrom('profiles as p')
      .leftJoin('retention_policies as r', 'r.profile', 'p.name')
      .select(['p.name', 'r.retention_days'])
      .orderBy('p.name')
      .execute();
    return rows.map((row) => ({
      profile: row.name,
      retentionDays: row.retention_days === null ? null : Number(row.retention_days),
    }));
  }

  async set(db: Executor, profile: string, retentionDays: number, now: number): Promise<void> {
    await db
      .insertInto('retention_policies')
      .values({ profile, retention_days: retentionDays, updated_at: now })
      .onConflict((oc) => oc.column('profile').doUpdateSet({ retention_days: retentionDays, updated_at: now }))
      .execute();
  }

  async clear(db: Executor, profile: string): Promise<number> {
    const result = await db.deleteFrom('retention_policies').where('profile', '=', profile).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async moveProfile(db: Executor, from: string, to: string): Promise<number> {
    const result = await db
      .updateTable('retention_policies')
      .set({ profile: to })
      .where('profile', '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }
}
