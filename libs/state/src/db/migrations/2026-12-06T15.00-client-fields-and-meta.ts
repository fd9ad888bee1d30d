import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/** The session columns this migration adds, text unless named in `numeric` below. */
const SESSION_TEXT_COLUMNS = [
  'cwd',
  'git_branch',
  'git_repo_root',
  'billing_provider',
  'billing_base_url',
  'billing_mode',
  'cost_status',
  'cost_source',
  'pricing_version',
  'end_reason_detail',
  'attributes',
] as const;

/**
 * Frozen. What agent runtimes keep with their sessions beyond the conversation itself
 * (docs/domain.md §2.2.16–2.2.18, §2.3.8, §14):
 * - `sessions`: the workspace (`cwd`, `git_branch`, `git_repo_root`), the billing route and usage
 *   accounting (`billing_*`, `api_call_count`, `actual_cost_usd`, `cost_status`, `cost_source`,
 *   `pricing_version`), the caller's own end reason when it is outside the taxonomy
 *   (`end_reason_detail`) and the client's attributes (a JSON object Statehouse never interprets);
 * - `session_prompts`: the system prompt snapshot, beside the row (tens of KB that no list or write
 *   of the session needs to carry), going with its session;
 * - `messages.replay_fields`: what an agent replays to its provider with a message (JSON: reasoning
 *   content, reasoning details, Codex items, observed, effect disposition), null for most rows;
 * - `profile_meta`: a small key/value store per profile, following renames and going with the profile.
 */
export function clientFieldsAndMetaMigration(dialect: Dialect) {
  const bigint = dialect === 'sqlite' ? 'integer' : 'bigint';
  const real = dialect === 'sqlite' ? 'real' : 'double precision';

  return {
    async up(db: Kysely<any>) {
      for (const column of SESSION_TEXT_COLUMNS) {
        await db.schema.alterTable('sessions').addColumn(column, 'text').execute();
      }
      await db.schema
        .alterTable('sessions')
        .addColumn('api_call_count', bigint, (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('sessions').addColumn('actual_cost_usd', real).execute();
      // cwd-prefix listings and the workspace summary read one profile's cwds.
      await sql`create index sessions_profile_cwd_idx on sessions (profile, cwd) where cwd is not null`.execute(db);

      await db.schema
        .createTable('session_prompts')
        .addColumn('session_id', 'text', (c) => c.primaryKey().references('sessions.id').onDelete('cascade'))
        .addColumn('prompt', 'text', (c) => c.notNull())
        .addColumn('updated_at', bigint, (c) => c.notNull())
        .execute();

      await db.schema.alterTable('messages').addColumn('replay_fields', 'text').execute();

      await sql`create table profile_meta (
        profile text not null references profiles (name) on delete cascade on update cascade,
        key text not null,
        value text not null,
        updated_at ${sql.raw(bigint)} not null,
        primary key (profile, key))`.execute(db);
    },

    async down(db: Kysely<any>) {
      await db.schema.dropTable('profile_meta').ifExists().execute();
      await db.schema.alterTable('messages').dropColumn('replay_fields').execute();
      await db.schema.dropTable('session_prompts').ifExists().execute();
      await sql`drop index if exists sessions_profile_cwd_idx`.execute(db);
      await db.schema.alterTable('sessions').dropColumn('actual_cost_usd').execute();
      await db.schema.alterTable('sessions').dropColumn('api_call_count').execute();
      for (const column of [...SESSION_TEXT_COLUMNS].reverse()) {
        await db.schema.alterTable('sessions').dropColumn(column).execute();
      }
    },
  };
}
