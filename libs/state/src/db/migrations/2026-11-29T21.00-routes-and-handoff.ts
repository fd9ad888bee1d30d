import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Frozen. The gateway routing index lives beside the sessions (so one transaction moves both), and
 * each session records the conversation generation of its peer at creation.
 */
export function routesMigration(dialect: Dialect) {
  const bigint = dialect === 'sqlite' ? 'integer' : 'bigint';
  const flag = dialect === 'sqlite' ? 'integer' : 'smallint';
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('routes')
        .addColumn('profile', 'text', (c) => c.notNull().references('profiles.name'))
        .addColumn('session_key', 'text', (c) => c.notNull())
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('origin', 'text')
        .addColumn('suspended', flag, (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', bigint, (c) => c.notNull())
        .addColumn('updated_at', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('routes_pk', ['profile', 'session_key'])
        .execute();
      await sql`create index routes_session_idx on routes (session_id)`.execute(db);
      await db.schema
        .alterTable('sessions')
        .addColumn('conversation_generation', bigint, (c) => c.notNull().defaultTo(0))
        .execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.alterTable('sessions').dropColumn('conversation_generation').execute();
      await db.schema.dropTable('routes').ifExists().execute();
    },
  };
}
