import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Frozen. Login attempts are reserved before the password check (docs/security.md): one row per
 * attempt, `pending` until the check resolves it (a pending row counts as a failure, so parallel
 * guesses cannot all slip through), keyed by account and client address so the per-account,
 * per-address and per-pair limits read the same rows. Addresses an account signed in from are
 * remembered, so an attacker's failures elsewhere never lock the owner out of a known place.
 * Replaces `login_failures`, which was counted before and written after the check.
 */
export function loginThrottleMigration(dialect: Dialect) {
  const bigint = dialect === 'sqlite' ? 'integer' : 'bigint';
  return {
    async up(db: Kysely<any>) {
      const attempts =
        dialect === 'sqlite'
          ? db.schema.createTable('login_attempts').addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
          : db.schema
              .createTable('login_attempts')
              .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity());
      await attempts
        .addColumn('account', 'text', (c) => c.notNull())
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('at', bigint, (c) => c.notNull())
        .execute();
      await sql`create index login_attempts_account_idx on login_attempts (account, at)`.execute(db);
      await sql`create index login_attempts_address_idx on login_attempts (address, at)`.execute(db);
      await sql`create index login_attempts_at_idx on login_attempts (at)`.execute(db);

      await db.schema
        .createTable('login_known_addresses')
        .addColumn('account', 'text', (c) => c.notNull())
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('last_success_at', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('login_known_addresses_pk', ['account', 'address'])
        .execute();

      await db.schema.dropTable('login_failures').ifExists().execute();
    },

    async down(db: Kysely<any>) {
      await db.schema.dropTable('login_known_addresses').ifExists().execute();
      await db.schema.dropTable('login_attempts').ifExists().execute();
      const failures =
        dialect === 'sqlite'
          ? db.schema.createTable('login_failures').addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
          : db.schema
              .createTable('login_failures')
              .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity());
      await failures
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('at', bigint, (c) => c.notNull())
        .execute();
      await sql`create index login_failures_subject_idx on login_failures (subject, at)`.execute(db);
    },
  };
}
