import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Frozen. The store epoch (docs/domain.md §5.3.6): a random id that names this store's timeline of
 * receipt sequences, minted here (a new store, or an existing one upgrading) and minted again by a
 * restore. Receipt consumers' acknowledgements record the epoch they were made in; rows older than
 * the column belong to the epoch minted here.
 */
export function storeEpochMigration(_dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      const epoch = randomUUID();
      await sql`insert into store_meta (key, value) values ('store_epoch', ${epoch})`.execute(db);
      await db.schema.alterTable('receipt_consumers').addColumn('epoch', 'text').execute();
      await sql`update receipt_consumers set epoch = ${epoch}`.execute(db);
    },
    async down(db: Kysely<any>) {
      await db.schema.alterTable('receipt_consumers').dropColumn('epoch').execute();
      await sql`delete from store_meta where key in ('store_epoch', 'store_epoch_origin')`.execute(db);
    },
  };
}
