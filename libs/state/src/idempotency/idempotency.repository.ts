import type { Insertable, Selectable } from 'kysely';
import type { Executor, IdempotencyKeysTable } from '../db/database.js';

export type IdempotencyRecord = Selectable<IdempotencyKeysTable>;

export class IdempotencyRepository {
  async find(db: Executor, principalKey: string, key: string): Promise<IdempotencyRecord | undefined> {
    return db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('principal_key', '=', principalKey)
      .where('idempotency_key', '=', key)
      .executeTakeFirst();
  }

  async insert(db: Executor, record: Insertable<IdempotencyKeysTable>): Promise<void> {
    await db.insertInto('idempotency_keys').values(record).execute();
  }

  async delete(db: Executor, principalKey: string, key: string): Promise<void> {
    await db
      .deleteFrom('idempotency_keys')
      .where('principal_key', '=', principalKey)
      .where('idempotency_key', '=', key)
      .execute();
  }

  async deleteCreatedBefore(db: Executor, cutoff: number): Promise<number> {
    const result = await db.deleteFrom('idempotency_keys').where('created_at', '<', cutoff).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
