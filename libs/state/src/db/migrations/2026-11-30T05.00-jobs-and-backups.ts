import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Frozen. Scheduled jobs run once per interval across processes: one row per (job, interval) is
 * the lease of that interval and, once done, its record. Backups record their outcome here so
 * every replica reports the last one. Deferred work lists long operations that continue in
 * bounded chunks after the transaction that started them (resumed after a crash).
 */
export function jobsAndBackupsMigration(dialect: Dialect) {
  const bigint = dialect === 'sqlite' ? 'integer' : 'bigint';
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('job_runs')
        .addColumn('job', 'text', (c) => c.notNull())
        .addColumn('interval_start', bigint, (c) => c.notNull())
        .addColumn('interval_end', bigint, (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('lease_expires_at', bigint, (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('started_at', bigint, (c) => c.notNull())
        .addColumn('finished_at', bigint)
        .addColumn('summary', 'text')
        .addColumn('error', 'text')
        .addPrimaryKeyConstraint('job_runs_pk', ['job', 'interval_start'])
        .execute();
      await sql`create index job_runs_recent_idx on job_runs (started_at)`.execute(db);

      await db.schema
        .createTable('backups')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('trigger', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('dialect', 'text', (c) => c.notNull())
        .addColumn('path', 'text', (c) => c.notNull())
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('started_at', bigint, (c) => c.notNull())
        .addColumn('finished_at', bigint)
        .addColumn('bytes', bigint)
        .addColumn('counts', 'text')
        .addColumn('error', 'text')
        .execute();
      await sql`create index backups_started_idx on backups (started_at)`.execute(db);

      await db.schema
        .createTable('deferred_work')
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('created_at', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('deferred_work_pk', ['kind', 'subject'])
        .execute();
    },
    async down(db: Kysely<any>) {
      await sql`drop index if exists backups_started_idx`.execute(db);
      await sql`drop index if exists job_runs_recent_idx`.execute(db);
      for (const table of ['deferred_work', 'backups', 'job_runs'])
        await db.schema.dropTable(table).ifExists().execute();
    },
  };
}
