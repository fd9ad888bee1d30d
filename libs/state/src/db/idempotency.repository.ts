import type { Insertable, Selectable } from 'kysely';
import type { Executor, IdempotencyKeysTable } from './database.js';

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

  /** At most `limit` records created before the cutoff, oldest first (a bounded chunk). */
  async deleteCreatedBefore(db: Executor, cutoff: number, limit: number): Promise<number> {
    const result = await db
      .deleteFrom('idempotency_keys')
      .where((eb) =>
        eb(
          eb.refTuple('principal_key', 'idempotency_key'),
          'in',
          eb
            .selectFrom('idempotency_keys')
            .select(['principal_key', 'idempotency_key'])
            .where('created_at', '<', cutoff)
            .orderBy('created_at')
            .limit(limit)
            .$asTuple('principal_key', 'idempotency_key'),
        ),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
