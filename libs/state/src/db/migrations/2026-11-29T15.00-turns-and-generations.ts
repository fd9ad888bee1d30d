import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Frozen. Turn leases live on the session row, `delegated` marks sub-agent conversations for listing, so beginning a turn (lease + generation bump) is one
 * conditional UPDATE; conversation generations are per (source, session_key), increment-only and
 * never collected.
 */
export function turnsAndGenerationsMigration(dialect: Dialect) {
  const bigint = dialect === 'sqlite' ? 'integer' : 'bigint';
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('sessions').addColumn('lease_turn_id', 'text').execute();
      await db.schema.alterTable('sessions').addColumn('lease_holder', 'text').execute();
      await db.schema.alterTable('sessions').addColumn('lease_expires_at', bigint).execute();
      // 1 when the conversation is a sub-agent's (a delegate or a compression continuation of one).
      await db.schema
        .alterTable('sessions')
        .addColumn('delegated', dialect === 'sqlite' ? 'integer' : 'smallint', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.updateTable('sessions').set({ delegated: 1 }).where('lineage_kind', '=', 'delegate').execute();
      await db.schema
        .createTable('conversation_generations')
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('session_key', 'text', (c) => c.notNull())
        .addColumn('generation', bigint, (c) => c.notNull())
        .addColumn('updated_at', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('conversation_generations_pk', ['source', 'session_key'])
        .execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('conversation_generations').ifExists().execute();
      await db.schema.alterTable('sessions').dropColumn('delegated').execute();
      await db.schema.alterTable('sessions').dropColumn('lease_expires_at').execute();
      await db.schema.alterTable('sessions').dropColumn('lease_holder').execute();
      await db.schema.alterTable('sessions').dropColumn('lease_turn_id').execute();
    },
  };
}
