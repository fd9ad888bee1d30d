import { type Selectable, sql } from 'kysely';
import type { Executor, ReceiptConsumersTable } from '../db/database.js';

export type ReceiptConsumerRow = Selectable<ReceiptConsumersTable>;

/** Registered replay consumers, who registered each, and the cursor each acknowledged. */
export class ReceiptConsumerRepository {
  async find(db: Executor, name: string): Promise<ReceiptConsumerRow | undefined> {
    return db.selectFrom('receipt_consumers').selectAll().where('name', '=', name).executeTakeFirst();
  }

  /**
   * Registers or acknowledges, in one statement that never moves a cursor back within an epoch: the
   * update applies only while the stored cursor is at most the new one (so of two concurrent
   * acknowledgements the lower cannot overwrite the higher), or was acknowledged in another epoch
   * (a restore: the consumer starts over). False when the stored cursor is already past
   * `row.cursor`. Who registered it and when never change afterwards.
   */
  async upsertForward(db: Executor, row: ReceiptConsumerRow): Promise<boolean> {
    const result = await db
      .insertInto('receipt_consumers')
      .values(row)
      .onConflict((oc) =>
        oc
          .column('name')
          .doUpdateSet({ cursor: row.cursor, principal: row.principal, updated_at: row.updated_at, epoch: row.epoch })
          .where((eb) =>
            eb.or([
              eb('receipt_consumers.cursor', '<=', row.cursor),
              eb(sql<string>`coalesce(receipt_consumers.epoch, '')`, '<>', row.epoch ?? ''),
            ]),
          ),
      )
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  async delete(db: Executor, name: string): Promise<boolean> {
    const result = await db.deleteFrom('receipt_consumers').where('name', '=', name).executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  async list(db: Executor): Promise<ReceiptConsumerRow[]> {
    return db.selectFrom('receipt_consumers').selectAll().orderBy('name').execute();
  }

  async lowest(db: Executor): Promise<ReceiptConsumerRow | undefined> {
    return db.selectFrom('receipt_consumers').selectAll().orderBy('cursor').orderBy('name').limit(1).executeTakeFirst();
  }
}
