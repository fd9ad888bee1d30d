import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Frozen. Receipt consumers record who registered them (`created_by`, `created_at`; `principal`
 * stays the last acknowledger). Reclamation records, per profile, the highest sequence it removed,
 * so a member's view of the feed (floor, 410) is computed from its own profiles alone; floors of
 * reclamations made before this migration are not known per profile and apply to every profile.
 */
export function receiptConsumerOwnersMigration(dialect: Dialect) {
  const bigint = dialect === 'sqlite' ? 'integer' : 'bigint';
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('receipt_consumers').addColumn('created_by', 'text').execute();
      await db.schema.alterTable('receipt_consumers').addColumn('created_at', bigint).execute();
      await sql`update receipt_consumers set created_by = principal, created_at = updated_at`.execute(db);

      await db.schema
        .createTable('receipt_profile_floors')
        .addColumn('profile', 'text', (c) => c.primaryKey())
        .addColumn('floor', bigint, (c) => c.notNull())
        .execute();
      await sql`insert into store_meta (key, value) select 'receipt_profile_floor_base', value from store_meta where key = 'receipt_floor'`.execute(
        db,
      );
    },
    async down(db: Kysely<any>) {
      await sql`delete from store_meta where key = 'receipt_profile_floor_base'`.execute(db);
      await db.schema.dropTable('receipt_profile_floors').ifExists().execute();
      await db.schema.alterTable('receipt_consumers').dropColumn('created_at').execute();
      await db.schema.alterTable('receipt_consumers').dropColumn('created_by').execute();
    },
  };
}
