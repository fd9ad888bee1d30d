import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Frozen. Deletion receipts (append-only, hash-chained, sequences never reused), their registered
 * consumers, store-wide markers (reclaimed floor and anchor hash), per-profile retention policies
 * and job leases (one retention pass at a time across processes).
 */
export function deletionReceiptsMigration(dialect: Dialect) {
  const bigint = dialect === 'sqlite' ? 'integer' : 'bigint';
  return {
    async up(db: Kysely<any>) {
      const sequence =
        dialect === 'sqlite'
          ? db.schema
              .createTable('deletion_receipts')
              .addColumn('sequence', 'integer', (c) => c.primaryKey().autoIncrement())
          : db.schema
              .createTable('deletion_receipts')
              .addColumn('sequence', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity());
      await sequence
        .addColumn('operation_id', 'text', (c) => c.notNull().unique())
        .addColumn('origin', 'text', (c) => c.notNull())
        .addColumn('intent', 'text', (c) => c.notNull())
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('profile', 'text', (c) => c.notNull())
        .addColumn('actor_kind', 'text', (c) => c.notNull())
        .addColumn('actor_id', 'text', (c) => c.notNull())
        .addColumn('created_at', bigint, (c) => c.notNull())
        .addColumn('counts', 'text', (c) => c.notNull())
        .addColumn('identities', 'text', (c) => c.notNull())
        .addColumn('prev_hash', 'text', (c) => c.notNull())
        .addColumn('hash', 'text', (c) => c.notNull())
        .execute();
      await sql`create index deletion_receipts_profile_idx on deletion_receipts (profile, sequence)`.execute(db);

      await db.schema
        .createTable('receipt_consumers')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('cursor', bigint, (c) => c.notNull())
        .addColumn('principal', 'text', (c) => c.notNull())
        .addColumn('updated_at', bigint, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('store_meta')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('retention_policies')
        .addColumn('profile', 'text', (c) =>
          c.primaryKey().references('profiles.name').onDelete('cascade').onUpdate('cascade'),
        )
        .addColumn('retention_days', 'integer', (c) => c.notNull())
        .addColumn('updated_at', bigint, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('job_leases')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('expires_at', bigint, (c) => c.notNull())
        .execute();

      await sql`create index sessions_ended_idx on sessions (ended_at) where ended_at is not null`.execute(db);
    },
    async down(db: Kysely<any>) {
      await sql`drop index if exists sessions_ended_idx`.execute(db);
      for (const table of [
        'job_leases',
        'retention_policies',
        'store_meta',
        'receipt_consumers',
        'deletion_receipts',
      ]) {
        await db.schema.dropTable(table).ifExists().execute();
      }
    },
  };
}
