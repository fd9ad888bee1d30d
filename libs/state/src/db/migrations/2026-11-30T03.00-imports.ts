import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Frozen. Importing another store's history (a Hermes Agent `state.db`):
 * - `import_jobs`: one row per import run, its state, progress and report, so any API replica can
 *   answer for a run another one executes;
 * - `import_sessions` / `import_messages`: the import ledger — which source session and message
 *   became which row here, with fingerprints, so a repeated or resumed import is exact. Message
 *   entries go with their session (foreign key, cascade); a session entry outlives a deletion as a
 *   content-free tombstone, so a re-import does not bring back what was deleted here;
 * - `session_model_usage`: token and cost counters per (session, model, billing route, task) — a
 *   session may talk to several models, and usage by model must be queryable.
 */
export function importsMigration(dialect: Dialect) {
  const bigint = dialect === 'sqlite' ? 'integer' : 'bigint';
  const flag = dialect === 'sqlite' ? 'integer' : 'smallint';
  const real = dialect === 'sqlite' ? 'real' : 'double precision';
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('import_jobs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('dry_run', flag, (c) => c.notNull().defaultTo(0))
        .addColumn('profile', 'text')
        .addColumn('on_conflict', 'text', (c) => c.notNull())
        .addColumn('file_name', 'text')
        .addColumn('file_bytes', bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('progress', 'text', (c) => c.notNull())
        .addColumn('report', 'text', (c) => c.notNull())
        .addColumn('conversations', 'text', (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('holder', 'text')
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('created_at', bigint, (c) => c.notNull())
        .addColumn('started_at', bigint)
        .addColumn('finished_at', bigint)
        .addColumn('updated_at', bigint, (c) => c.notNull())
        .execute();
      await sql`create index import_jobs_created_idx on import_jobs (created_at desc, id desc)`.execute(db);

      await db.schema
        .createTable('import_sessions')
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('source_session_id', 'text', (c) => c.notNull())
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('identity', 'text', (c) => c.notNull())
        .addColumn('snapshot', 'text')
        .addColumn('messages_hash', 'text')
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('job_id', 'text')
        .addColumn('imported_at', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('import_sessions_pk', ['source', 'source_session_id'])
        .execute();
      await sql`create index import_sessions_session_idx on import_sessions (session_id)`.execute(db);

      await db.schema
        .createTable('import_messages')
        .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
        .addColumn('source_message_id', bigint, (c) => c.notNull())
        .addColumn('message_id', bigint, (c) => c.notNull())
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('active', flag, (c) => c.notNull())
        .addColumn('compacted', flag, (c) => c.notNull())
        .addPrimaryKeyConstraint('import_messages_pk', ['session_id', 'source_message_id'])
        .execute();

      let usage = db.schema
        .createTable('session_model_usage')
        .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('billing_provider', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('billing_base_url', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('billing_mode', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('task', 'text', (c) => c.notNull().defaultTo(''));
      for (const counter of [
        'api_call_count',
        'input_tokens',
        'output_tokens',
        'cache_read_tokens',
        'cache_write_tokens',
        'reasoning_tokens',
      ]) {
        usage = usage.addColumn(counter, bigint, (c) => c.notNull().defaultTo(0));
      }
      await usage
        .addColumn('estimated_cost_usd', real, (c) => c.notNull().defaultTo(0))
        .addColumn('actual_cost_usd', real)
        .addColumn('cost_status', 'text')
        .addColumn('cost_source', 'text')
        .addColumn('first_seen', bigint)
        .addColumn('last_seen', bigint)
        .addPrimaryKeyConstraint('session_model_usage_pk', [
          'session_id',
          'model',
          'billing_provider',
          'billing_base_url',
          'billing_mode',
          'task',
        ])
        .execute();
      await sql`create index session_model_usage_model_idx on session_model_usage (model, last_seen)`.execute(db);
    },
    async down(db: Kysely<any>) {
      for (const table of ['session_model_usage', 'import_messages', 'import_sessions', 'import_jobs']) {
        await db.schema.dropTable(table).ifExists().execute();
      }
    },
  };
}
