import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Frozen. The gateway runtime contract (docs/domain.md §10–§11):
 * - `gateways`: one row per gateway process identity, with its last heartbeat and incarnation
 *   (`started_at`), so a sweep can tell a dead runtime from a live sibling;
 * - sessions record their owning gateway and its incarnation, and when the handoff state last
 *   moved (a `running` handoff expires);
 * - `deliveries`: obligations a gateway owes a chat (claim lease, attempts, abandoned on delete);
 * - indexes for recovery by key and by chat identity, the orphan sweep and the handoff probe;
 * - a CHECK constraint on stored retention windows. Rows that already break it are kept (PostgreSQL:
 *   NOT VALID; SQLite: copied with checks off) so an administrator sees and fixes them, and the
 *   scheduler skips them.
 */
export function gatewaysAndDeliveriesMigration(dialect: Dialect) {
  const bigint = dialect === 'sqlite' ? 'integer' : 'bigint';
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('gateways')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('profile', 'text', (c) => c.notNull().references('profiles.name'))
        .addColumn('host', 'text', (c) => c.notNull())
        .addColumn('pid', bigint, (c) => c.notNull())
        .addColumn('started_at', bigint, (c) => c.notNull())
        .addColumn('registered_at', bigint, (c) => c.notNull())
        .addColumn('last_seen_at', bigint, (c) => c.notNull())
        .addColumn('heartbeats', bigint, (c) => c.notNull().defaultTo(0))
        .execute();
      await sql`create index gateways_profile_seen_idx on gateways (profile, last_seen_at desc, id)`.execute(db);

      await db.schema.alterTable('sessions').addColumn('gateway_id', 'text').execute();
      await db.schema.alterTable('sessions').addColumn('gateway_started_at', bigint).execute();
      await db.schema.alterTable('sessions').addColumn('handoff_updated_at', bigint).execute();
      // Recovery by exact key, newest first, from the index alone: with only (profile, session_key)
      // SQLite prefers walking the profile's recency index for the ORDER BY … LIMIT, a scan.
      await sql`drop index if exists sessions_key_idx`.execute(db);
      await sql`create index sessions_key_recent_idx on sessions (profile, session_key, last_activity_at desc, id desc) where session_key is not null`.execute(
        db,
      );
      // Recovery by chat identity: the chat id is the selective part of the peer tuple; the rest of
      // the tuple filters the few rows of one chat, newest first.
      await sql`create index sessions_peer_idx on sessions (profile, chat_id, last_activity_at desc, id desc) where chat_id is not null`.execute(
        db,
      );
      // The orphan sweep walks open rows only, oldest activity first (never the ended majority).
      await sql`create index sessions_open_idx on sessions (last_activity_at, id) where ended_at is null`.execute(db);
      // The handoff probe and the expiry sweep read live handoffs only.
      await sql`create index sessions_handoff_idx on sessions (handoff_state, last_activity_at desc, id desc) where handoff_state is not null`.execute(
        db,
      );

      await db.schema
        .createTable('deliveries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('profile', 'text', (c) => c.notNull())
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('transport_profile', 'text')
        .addColumn('payload', 'text')
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('attempts', bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('max_attempts', bigint, (c) => c.notNull())
        .addColumn('claim_id', 'text')
        .addColumn('claim_holder', 'text')
        .addColumn('claim_expires_at', bigint)
        .addColumn('last_error', 'text')
        .addColumn('abandoned_reason', 'text')
        .addColumn('created_at', bigint, (c) => c.notNull())
        .addColumn('updated_at', bigint, (c) => c.notNull())
        .addColumn('delivered_at', bigint)
        .execute();
      await sql`create index deliveries_session_idx on deliveries (session_id)`.execute(db);
      await sql`create index deliveries_queue_idx on deliveries (profile, state, created_at, id)`.execute(db);

      if (dialect === 'postgres') {
        await sql`alter table retention_policies add constraint retention_policies_days_check check (retention_days >= 0) not valid`.execute(
          db,
        );
      } else {
        // SQLite cannot add a constraint to a table: rebuild it, keeping every row as it was.
        await sql`pragma ignore_check_constraints = 1`.execute(db);
        await sql`create table retention_policies_next (
          profile text primary key references profiles (name) on delete cascade on update cascade,
          retention_days integer not null constraint retention_policies_days_check check (retention_days >= 0),
          updated_at integer not null)`.execute(db);
        await sql`insert into retention_policies_next (profile, retention_days, updated_at) select profile, retention_days, updated_at from retention_policies`.execute(
          db,
        );
        await sql`drop table retention_policies`.execute(db);
        await sql`alter table retention_policies_next rename to retention_policies`.execute(db);
        await sql`pragma ignore_check_constraints = 0`.execute(db);
      }
    },
    async down(db: Kysely<any>) {
      if (dialect === 'postgres') {
        await sql`alter table retention_policies drop constraint if exists retention_policies_days_check`.execute(db);
      } else {
        await sql`create table retention_policies_prev (
          profile text primary key references profiles (name) on delete cascade on update cascade,
          retention_days integer not null,
          updated_at integer not null)`.execute(db);
        await sql`insert into retention_policies_prev select profile, retention_days, updated_at from retention_policies`.execute(
          db,
        );
        await sql`drop table retention_policies`.execute(db);
        await sql`alter table retention_policies_prev rename to retention_policies`.execute(db);
      }
      await db.schema.dropTable('deliveries').ifExists().execute();
      for (const index of [
        'sessions_handoff_idx',
        'sessions_open_idx',
        'sessions_peer_idx',
        'sessions_key_recent_idx',
      ]) {
        await sql`drop index if exists ${sql.raw(index)}`.execute(db);
      }
      await sql`create index sessions_key_idx on sessions (profile, session_key) where session_key is not null`.execute(
        db,
      );
      await db.schema.alterTable('sessions').dropColumn('handoff_updated_at').execute();
      await db.schema.alterTable('sessions').dropColumn('gateway_started_at').execute();
      await db.schema.alterTable('sessions').dropColumn('gateway_id').execute();
      await db.schema.dropTable('gateways').ifExists().execute();
    },
  };
}
