import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Frozen. Per-session scheduled wake-ups (docs/domain.md §13): `schedules`, one row per heartbeat
 * or loop of a session. The row goes with its session (foreign key, cascade — the deletion engine
 * removes them first anyway), follows it into compression and reset children and to another profile.
 *
 * `schedules_due_idx` makes "claim due" a range read: a gateway's claim walks one profile's enabled
 * rows whose `wake_at` (the next tick, or the lease expiry while claimed) has passed, oldest first,
 * and stops at its limit — it never reads the schedules that are not due, however many are stored.
 */
export function sessionSchedulesMigration(dialect: Dialect) {
  const bigint = dialect === 'sqlite' ? 'integer' : 'bigint';
  const flag = dialect === 'sqlite' ? 'integer' : 'smallint';
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('schedules')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('profile', 'text', (c) => c.notNull())
        .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('interval_seconds', bigint)
        .addColumn('cron', 'text')
        .addColumn('time_zone', 'text')
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('enabled', flag, (c) => c.notNull().defaultTo(1))
        .addColumn('next_due_at', bigint, (c) => c.notNull())
        .addColumn('last_fired_at', bigint)
        .addColumn('wake_at', bigint, (c) => c.notNull())
        .addColumn('claim_generation', bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('claim_holder', 'text')
        .addColumn('claim_expires_at', bigint)
        .addColumn('claimed_due_at', bigint)
        .addColumn('revision', bigint, (c) => c.notNull().defaultTo(1))
        .addColumn('created_at', bigint, (c) => c.notNull())
        .addColumn('updated_at', bigint, (c) => c.notNull())
        .execute();
      await sql`create index schedules_due_idx on schedules (profile, enabled, wake_at, id)`.execute(db);
      await sql`create index schedules_session_idx on schedules (session_id, id)`.execute(db);
      await sql`create index schedules_profile_idx on schedules (profile, id)`.execute(db);
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('schedules').ifExists().execute();
    },
  };
}
