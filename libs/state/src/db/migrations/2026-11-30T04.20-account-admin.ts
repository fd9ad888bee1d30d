import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Frozen. Account administration: users can be disabled and show their last sign-in; dashboard
 * sessions get a public id (never the cookie secret or its hash), the client that signed in and
 * when it was last seen, and an index to find a user's sessions.
 */
export function accountAdminMigration(dialect: Dialect) {
  const bigint = dialect === 'sqlite' ? 'integer' : 'bigint';
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('users').addColumn('disabled_at', bigint).execute();
      await db.schema.alterTable('users').addColumn('last_login_at', bigint).execute();
      await db.schema.alterTable('auth_sessions').addColumn('public_id', 'text').execute();
      await db.schema.alterTable('auth_sessions').addColumn('last_seen_at', bigint).execute();
      await db.schema.alterTable('auth_sessions').addColumn('user_agent', 'text').execute();
      await db.schema.alterTable('auth_sessions').addColumn('client_address', 'text').execute();
      const randomId = dialect === 'sqlite' ? sql`lower(hex(randomblob(16)))` : sql`md5(random()::text || id_hash)`;
      await sql`update auth_sessions set public_id = ${randomId}`.execute(db);
      await sql`create unique index auth_sessions_public_id_uq on auth_sessions (public_id)`.execute(db);
      await sql`create index auth_sessions_user_idx on auth_sessions (user_id, created_at)`.execute(db);
    },
    async down(db: Kysely<any>) {
      await sql`drop index if exists auth_sessions_user_idx`.execute(db);
      await sql`drop index if exists auth_sessions_public_id_uq`.execute(db);
      for (const column of ['client_address', 'user_agent', 'last_seen_at', 'public_id']) {
        await db.schema.alterTable('auth_sessions').dropColumn(column).execute();
      }
      await db.schema.alterTable('users').dropColumn('last_login_at').execute();
      await db.schema.alterTable('users').dropColumn('disabled_at').execute();
    },
  };
}
