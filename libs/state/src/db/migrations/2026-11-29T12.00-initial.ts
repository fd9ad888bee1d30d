import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Frozen: never edit a migration that has shipped; add a new one.
 * Shared DDL is Kysely; FTS5 (SQLite) and tsvector/pg_trgm (PostgreSQL) sit behind one explicit branch.
 */
export function initialMigration(dialect: Dialect) {
  const bigint = dialect === 'sqlite' ? 'integer' : 'bigint';
  const flag = dialect === 'sqlite' ? 'integer' : 'smallint';
  const real = dialect === 'sqlite' ? 'real' : 'double precision';

  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('profiles')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('created_at', bigint, (c) => c.notNull())
        .execute();

      let sessions = db.schema
        .createTable('sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('profile', 'text', (c) => c.notNull().references('profiles.name'))
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('created_source', 'text', (c) => c.notNull());
      for (const column of [
        'session_key',
        'user_id',
        'chat_id',
        'chat_type',
        'thread_id',
        'display_name',
        'origin',
        'transport_profile',
        'model',
        'model_config',
        'title',
        'title_source',
        'parent_session_id',
        'lineage_kind',
      ]) {
        sessions = sessions.addColumn(column, 'text');
      }
      sessions = sessions
        .addColumn('started_at', bigint, (c) => c.notNull())
        .addColumn('ended_at', bigint)
        .addColumn('end_reason', 'text')
        .addColumn('last_activity_at', bigint, (c) => c.notNull())
        .addColumn('archived', flag, (c) => c.notNull().defaultTo(0))
        .addColumn('pinned', flag, (c) => c.notNull().defaultTo(0))
        .addColumn('hidden', flag, (c) => c.notNull().defaultTo(0));
      for (const counter of [
        'message_count',
        'tool_call_count',
        'input_tokens',
        'output_tokens',
        'cache_read_tokens',
        'cache_write_tokens',
        'reasoning_tokens',
      ]) {
        sessions = sessions.addColumn(counter, bigint, (c) => c.notNull().defaultTo(0));
      }
      await sessions
        .addColumn('estimated_cost_usd', real, (c) => c.notNull().defaultTo(0))
        .addColumn('handoff_state', 'text')
        .addColumn('handoff_platform', 'text')
        .addColumn('handoff_error', 'text')
        .addColumn('preview', 'text')
        .addColumn('revision', bigint, (c) => c.notNull().defaultTo(1))
        .addColumn('generation', bigint, (c) => c.notNull().defaultTo(0))
        .execute();

      await sql`create index sessions_recent_idx on sessions (last_activity_at desc, id desc)`.execute(db);
      await sql`create index sessions_profile_recent_idx on sessions (profile, last_activity_at desc, id desc)`.execute(
        db,
      );
      await sql`create index sessions_started_idx on sessions (started_at desc, id desc)`.execute(db);
      await sql`create index sessions_profile_started_idx on sessions (profile, started_at desc, id desc)`.execute(db);
      await sql`create index sessions_parent_idx on sessions (parent_session_id, lineage_kind) where parent_session_id is not null`.execute(
        db,
      );
      await sql`create unique index sessions_title_uq on sessions (profile, title) where title is not null`.execute(db);
      await sql`create index sessions_key_idx on sessions (profile, session_key) where session_key is not null`.execute(
        db,
      );

      const messageId =
        dialect === 'sqlite'
          ? db.schema.createTable('messages').addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
          : db.schema
              .createTable('messages')
              .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity());
      await messageId
        .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('content', 'text')
        .addColumn('content_json', 'text')
        .addColumn('tool_call_id', 'text')
        .addColumn('tool_calls', 'text')
        .addColumn('tool_name', 'text')
        .addColumn('timestamp', bigint, (c) => c.notNull())
        .addColumn('token_count', bigint)
        .addColumn('finish_reason', 'text')
        .addColumn('reasoning', 'text')
        .addColumn('display_kind', 'text', (c) => c.notNull().defaultTo('visible'))
        .addColumn('active', flag, (c) => c.notNull().defaultTo(1))
        .addColumn('compacted', flag, (c) => c.notNull().defaultTo(0))
        .addColumn('platform_message_id', 'text')
        .addColumn('substring_indexed', flag, (c) => c.notNull().defaultTo(1))
        .execute();
      await sql`create index messages_session_idx on messages (session_id, id)`.execute(db);
      await sql`create unique index messages_platform_uq on messages (session_id, platform_message_id) where platform_message_id is not null`.execute(
        db,
      );

      await db.schema
        .createTable('api_tokens')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('profiles', 'text', (c) => c.notNull())
        .addColumn('created_at', bigint, (c) => c.notNull())
        .addColumn('last_used_at', bigint)
        .addColumn('revoked_at', bigint)
        .execute();

      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('username', 'text', (c) => c.notNull().unique())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('profiles', 'text', (c) => c.notNull())
        .addColumn('created_at', bigint, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('auth_sessions')
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', bigint, (c) => c.notNull())
        .addColumn('expires_at', bigint, (c) => c.notNull())
        .execute();
      await sql`create index auth_sessions_expiry_idx on auth_sessions (expires_at)`.execute(db);

      const failureId =
        dialect === 'sqlite'
          ? db.schema.createTable('login_failures').addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
          : db.schema
              .createTable('login_failures')
              .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity());
      await failureId
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('at', bigint, (c) => c.notNull())
        .execute();
      await sql`create index login_failures_subject_idx on login_failures (subject, at)`.execute(db);

      await db.schema
        .createTable('idempotency_keys')
        .addColumn('principal_key', 'text', (c) => c.notNull())
        .addColumn('idempotency_key', 'text', (c) => c.notNull())
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('status', 'integer', (c) => c.notNull())
        .addColumn('body', 'text')
        .addColumn('created_at', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('idempotency_keys_pk', ['principal_key', 'idempotency_key'])
        .execute();
      await sql`create index idempotency_keys_created_idx on idempotency_keys (created_at)`.execute(db);

      if (dialect === 'sqlite') {
        await createSqliteSearch(db);
      } else {
        await createPostgresSearch(db);
      }
    },

    async down(db: Kysely<any>) {
      if (dialect === 'sqlite') {
        for (const trigger of ['messages_search_ai', 'messages_search_ad', 'messages_search_au']) {
          await sql`drop trigger if exists ${sql.raw(trigger)}`.execute(db);
        }
        await sql`drop table if exists messages_fts`.execute(db);
        await sql`drop table if exists messages_trgm`.execute(db);
      }
      for (const table of [
        'idempotency_keys',
        'login_failures',
        'auth_sessions',
        'users',
        'api_tokens',
        'messages',
        'sessions',
        'profiles',
      ]) {
        await db.schema.dropTable(table).ifExists().execute();
      }
    },
  };
}

/** A message is in the word index when shown to people: not hidden, and active or compacted. */
const WORD_INDEXED = (row: 'new' | 'old') =>
  `${row}.display_kind <> 'hidden' and (${row}.active = 1 or ${row}.compacted = 1)`;
const SUBSTRING_INDEXED = (row: 'new' | 'old') => `${row}.substring_indexed = 1 and ${WORD_INDEXED(row)}`;

async function createSqliteSearch(db: Kysely<any>) {
  // External-content tables: the text lives once, in messages; triggers keep postings in the
  // writing transaction, so a deleted or rewound message is unsearchable the moment it commits.
  await sql`create virtual table messages_fts using fts5(content, tool_name, tool_calls, content='messages', content_rowid='id', tokenize='unicode61 remove_diacritics 2')`.execute(
    db,
  );
  await sql`create virtual table messages_trgm using fts5(content, content='messages', content_rowid='id', tokenize='trigram')`.execute(
    db,
  );
  const ftsInsert = (row: 'new' | 'old') =>
    `insert into messages_fts(rowid, content, tool_name, tool_calls) select ${row}.id, ${row}.content, ${row}.tool_name, ${row}.tool_calls where ${WORD_INDEXED(row)};
     insert into messages_trgm(rowid, content) select ${row}.id, ${row}.content where ${SUBSTRING_INDEXED(row)};`;
  const ftsDelete = (row: 'new' | 'old') =>
    `insert into messages_fts(messages_fts, rowid, content, tool_name, tool_calls) select 'delete', ${row}.id, ${row}.content, ${row}.tool_name, ${row}.tool_calls where ${WORD_INDEXED(row)};
     insert into messages_trgm(messages_trgm, rowid, content) select 'delete', ${row}.id, ${row}.content where ${SUBSTRING_INDEXED(row)};`;
  await sql.raw(`create trigger messages_search_ai after insert on messages begin ${ftsInsert('new')} end`).execute(db);
  await sql.raw(`create trigger messages_search_ad after delete on messages begin ${ftsDelete('old')} end`).execute(db);
  await sql
    .raw(
      `create trigger messages_search_au after update of content, tool_name, tool_calls, display_kind, active, compacted, substring_indexed on messages begin ${ftsDelete('old')} ${ftsInsert('new')} end`,
    )
    .execute(db);
}

/** Word-index input on PostgreSQL is capped (tsvector has a 1 MB limit); documented in docs/search.md. */
export const PG_WORD_INDEX_CHARS = 200_000;

async function createPostgresSearch(db: Kysely<any>) {
  await sql`create extension if not exists pg_trgm`.execute(db);
  // A stored generated column is computed by the very statement that writes the message.
  await sql
    .raw(
      `alter table messages add column search_vector tsvector generated always as (to_tsvector('simple'::regconfig, left(coalesce(content, '') || ' ' || coalesce(tool_name, '') || ' ' || coalesce(tool_calls, ''), ${PG_WORD_INDEX_CHARS}))) stored`,
    )
    .execute(db);
  await sql
    .raw(`create index messages_search_vector_idx on messages using gin (search_vector) where ${WORD_INDEXED_ROW}`)
    .execute(db);
  await sql
    .raw(
      `create index messages_content_trgm_idx on messages using gin (content gin_trgm_ops) where substring_indexed = 1 and ${WORD_INDEXED_ROW}`,
    )
    .execute(db);
}

const WORD_INDEXED_ROW = `display_kind <> 'hidden' and (active = 1 or compacted = 1)`;
