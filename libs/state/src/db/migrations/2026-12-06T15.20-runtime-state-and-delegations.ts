import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Frozen. Runtime state a gateway keeps beside the transcript (docs/domain.md §2.2.11, §12):
 * - `sessions.tool_names` (JSON array of the tools the session was offered), and the compression
 *   anti-thrash deadline `compression_retry_after` (epoch ms) with its `compression_retry_reason`;
 * - `delegations`: the ledger of async sub-agent work and the wake-up it owes its origin session
 *   (claim lease like `deliveries`), indexed for the origin's due list, the claim queue and the
 *   deletion participant's lookups by origin and by child.
 */
export function runtimeStateAndDelegationsMigration(dialect: Dialect) {
  const bigint = dialect === 'sqlite' ? 'integer' : 'bigint';
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('sessions').addColumn('tool_names', 'text').execute();
      await db.schema.alterTable('sessions').addColumn('compression_retry_after', bigint).execute();
      await db.schema.alterTable('sessions').addColumn('compression_retry_reason', 'text').execute();

      await db.schema
        .createTable('delegations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('profile', 'text', (c) => c.notNull())
        .addColumn('origin_session_id', 'text', (c) => c.notNull())
        .addColumn('child_session_id', 'text')
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('task', 'text')
        .addColumn('result_summary', 'text')
        .addColumn('error', 'text')
        .addColumn('abandoned_reason', 'text')
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('wake_attempts', bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('claim_id', 'text')
        .addColumn('claim_holder', 'text')
        .addColumn('claim_expires_at', bigint)
        .addColumn('created_at', bigint, (c) => c.notNull())
        .addColumn('updated_at', bigint, (c) => c.notNull())
        .addColumn('completed_at', bigint)
        .addColumn('delivered_at', bigint)
        .execute();
      await sql`create index delegations_origin_idx on delegations (origin_session_id, created_at, id)`.execute(db);
      await sql`create index delegations_child_idx on delegations (child_session_id) where child_session_id is not null`.execute(
        db,
      );
      // The wake-up queue: finished, undelivered ones of a profile, oldest finished first.
      await sql`create index delegations_due_idx on delegations (profile, state, completed_at, id)`.execute(db);
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('delegations').execute();
      await db.schema.alterTable('sessions').dropColumn('compression_retry_reason').execute();
      await db.schema.alterTable('sessions').dropColumn('compression_retry_after').execute();
      await db.schema.alterTable('sessions').dropColumn('tool_names').execute();
    },
  };
}
