import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/** The additive figures of one usage bucket (docs/stats.md), in column order. */
export const USAGE_COUNTERS = [
  'conversations',
  'sessions',
  'messages',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'cost_usd',
] as const;

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * Frozen. Usage and deletion rollups for the overview (docs/stats.md):
 * - `session_usage`: what each session contributed per UTC hour, surface and model — written by the
 *   services in the same transaction as the messages and usage they count; removed with the session.
 * - `usage_daily`: the same summed per UTC day, profile, surface and model, kept equal to
 *   `session_usage` by triggers (like the search postings), so charts over months read a few
 *   thousand rows at any store size.
 * - `deletion_rollups`: receipts per UTC hour, profile and origin, written with each receipt.
 * Existing data is backfilled.
 */
export function usageRollupsMigration(dialect: Dialect) {
  const bigint = dialect === 'sqlite' ? 'integer' : 'bigint';
  const real = dialect === 'sqlite' ? 'real' : 'double precision';

  return {
    async up(db: Kysely<any>) {
      let sessionUsage = db.schema
        .createTable('session_usage')
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('hour_start', bigint, (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('model', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('profile', 'text', (c) => c.notNull());
      let daily = db.schema
        .createTable('usage_daily')
        .addColumn('day_start', bigint, (c) => c.notNull())
        .addColumn('profile', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('model', 'text', (c) => c.notNull().defaultTo(''));
      for (const counter of USAGE_COUNTERS) {
        const type = counter === 'cost_usd' ? real : bigint;
        sessionUsage = sessionUsage.addColumn(counter, type, (c) => c.notNull().defaultTo(0));
        daily = daily.addColumn(counter, type, (c) => c.notNull().defaultTo(0));
      }
      await sessionUsage
        .addPrimaryKeyConstraint('session_usage_pk', ['session_id', 'hour_start', 'source', 'model'])
        .execute();
      await sql`create index session_usage_hour_idx on session_usage (hour_start)`.execute(db);
      await daily.addPrimaryKeyConstraint('usage_daily_pk', ['day_start', 'profile', 'source', 'model']).execute();

      await db.schema
        .createTable('deletion_rollups')
        .addColumn('hour_start', bigint, (c) => c.notNull())
        .addColumn('profile', 'text', (c) => c.notNull())
        .addColumn('origin', 'text', (c) => c.notNull())
        .addColumn('operations', bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('sessions', bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('messages', bigint, (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('deletion_rollups_pk', ['hour_start', 'profile', 'origin'])
        .execute();

      if (dialect === 'sqlite') await createSqliteTriggers(db);
      else await createPostgresTriggers(db);
      await backfill(db, dialect);
    },

    async down(db: Kysely<any>) {
      if (dialect === 'sqlite') {
        for (const trigger of [
          'sessions_usage_ai',
          'sessions_usage_au',
          'sessions_usage_ad',
          'sessions_usage_mv',
          'session_usage_daily_ai',
          'session_usage_daily_au',
          'session_usage_daily_mv',
          'session_usage_daily_ad',
        ]) {
          await sql`drop trigger if exists ${sql.raw(trigger)}`.execute(db);
        }
      } else {
        await sql`drop trigger if exists sessions_usage on sessions`.execute(db);
        await sql`drop function if exists sessions_usage_apply()`.execute(db);
        await sql`drop trigger if exists session_usage_daily on session_usage`.execute(db);
        await sql`drop function if exists session_usage_daily_apply()`.execute(db);
      }
      for (const table of ['deletion_rollups', 'usage_daily', 'session_usage']) {
        await db.schema.dropTable(table).ifExists().execute();
      }
    },
  };
}

const DAILY_COLUMNS = `day_start, profile, source, model, ${USAGE_COUNTERS.join(', ')}`;
const DAILY_ADD = USAGE_COUNTERS.map((c) => `${c} = usage_daily.${c} + excluded.${c}`).join(', ');

/** One upsert into usage_daily of `row`'s counters, each multiplied by `sign` (or new − old). */
function dailyUpsert(key: 'new' | 'old', counters: (counter: string) => string): string {
  return `insert into usage_daily (${DAILY_COLUMNS})
    values (${key}.hour_start - ${key}.hour_start % ${DAY_MS}, ${key}.profile, ${key}.source, ${key}.model,
      ${USAGE_COUNTERS.map(counters).join(', ')})
    on conflict (day_start, profile, source, model) do update set ${DAILY_ADD};`;
}

async function createSqliteTriggers(db: Kysely<any>) {
  const added = dailyUpsert('new', (c) => `new.${c}`);
  const removed = dailyUpsert('old', (c) => `-old.${c}`);
  const delta = dailyUpsert('new', (c) => `new.${c} - old.${c}`);
  await sql.raw(`create trigger session_usage_daily_ai after insert on session_usage begin ${added} end`).execute(db);
  // The hot path (an append adding to its hour's row) is one upsert of the difference; a profile
  // move takes the row out of the old profile's day and puts it into the new one's.
  await sql
    .raw(
      `create trigger session_usage_daily_au after update on session_usage when old.profile = new.profile begin ${delta} end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger session_usage_daily_mv after update on session_usage when old.profile <> new.profile begin ${removed} ${added} end`,
    )
    .execute(db);
  await sql.raw(`create trigger session_usage_daily_ad after delete on session_usage begin ${removed} end`).execute(db);
  await sql.raw(`create trigger sessions_usage_ai after insert on sessions begin ${SESSION_STARTED} end`).execute(db);
  await sql
    .raw(`create trigger sessions_usage_ad after delete on sessions begin ${SESSION_REMOVED('old.id')} end`)
    .execute(db);
  await sql
    .raw(
      `create trigger sessions_usage_mv after update of profile on sessions when old.profile <> new.profile begin ${SESSION_MOVED} end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger sessions_usage_au after update of ${APPEND_COUNTERS.join(', ')} on sessions
       when ${APPENDED('new', 'old')} begin ${SESSION_APPENDED('max')} end`,
    )
    .execute(db);
}

const SESSION_USAGE_ADD = `on conflict (session_id, hour_start, source, model) do update set ${USAGE_COUNTERS.map(
  (c) => `${c} = session_usage.${c} + excluded.${c}`,
).join(', ')}`;

/**
 * A new session counts as a started segment (and as a conversation unless it continues one by
 * compression or helps as a sub-agent) in its start hour; counters it was created with (an import)
 * count at its last activity. Every insert path gets this, whichever service wrote the row.
 */
const SESSION_STARTED = `
  insert into session_usage (session_id, hour_start, source, model, profile, conversations, sessions)
  values (new.id, new.started_at - new.started_at % ${HOUR_MS}, new.source, coalesce(new.model, ''), new.profile,
    case when new.delegated = 0 and coalesce(new.lineage_kind, '') <> 'compression' then 1 else 0 end, 1)
  ${SESSION_USAGE_ADD};
  insert into session_usage (session_id, hour_start, source, model, profile,
    input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd)
  select new.id, new.last_activity_at - new.last_activity_at % ${HOUR_MS}, new.source, coalesce(new.model, ''),
    new.profile, new.input_tokens, new.output_tokens, new.cache_read_tokens, new.cache_write_tokens,
    new.reasoning_tokens, new.estimated_cost_usd
  where new.input_tokens + new.output_tokens + new.cache_read_tokens + new.cache_write_tokens
    + new.reasoning_tokens > 0 or new.estimated_cost_usd > 0
  ${SESSION_USAGE_ADD};`;
/** A removed session's usage leaves the figures with it (usage_daily follows by its own trigger). */
const SESSION_REMOVED = (id: string) => `delete from session_usage where session_id = ${id};`;
/** A session moved to another profile (rename, repair) takes its usage along. */
const SESSION_MOVED = 'update session_usage set profile = new.profile where session_id = new.id;';

/** The session counters an append moves, and the rollup columns they feed. */
const APPEND_COUNTERS = [
  'message_count',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'estimated_cost_usd',
];
const APPEND_ROLLUP_COLUMNS = [
  'messages',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'cost_usd',
];
/**
 * An append: the one counter update that also bumps the revision (creation, copies and imports
 * apply counters without a bump and record their own contributions) and adds something.
 */
const APPENDED = (row: string, before: string) =>
  `${row}.revision > ${before}.revision and (${APPEND_COUNTERS.map((c) => `${row}.${c} > ${before}.${c}`).join(' or ')})`;
/**
 * What an append added, in the hour of the session's last activity (the write): the hot path
 * keeps its rollup without a statement of its own. An append whose messages carry other times
 * moves the difference to their hours in the same transaction (MessageService).
 */
const SESSION_APPENDED = (greatest: 'max' | 'greatest') => `
  insert into session_usage (session_id, hour_start, source, model, profile, ${APPEND_ROLLUP_COLUMNS.join(', ')})
  values (new.id, new.last_activity_at - new.last_activity_at % ${HOUR_MS}, new.source, coalesce(new.model, ''),
    new.profile, ${APPEND_COUNTERS.map((c) => `${greatest}(new.${c} - old.${c}, 0)`).join(', ')})
  ${SESSION_USAGE_ADD};`;

async function createPostgresTriggers(db: Kysely<any>) {
  const upsert = (key: 'new' | 'old', counters: (counter: string) => string) =>
    dailyUpsert(key, counters).replaceAll('new.', 'NEW.').replaceAll('old.', 'OLD.');
  await sql
    .raw(
      `create function session_usage_daily_apply() returns trigger language plpgsql as $$
       begin
         if tg_op = 'UPDATE' and OLD.profile = NEW.profile then
           ${upsert('new', (c) => `new.${c} - old.${c}`)}
           return null;
         end if;
         if tg_op in ('UPDATE', 'DELETE') then
           ${upsert('old', (c) => `-old.${c}`)}
         end if;
         if tg_op in ('UPDATE', 'INSERT') then
           ${upsert('new', (c) => `new.${c}`)}
         end if;
         return null;
       end $$`,
    )
    .execute(db);
  await sql`create trigger session_usage_daily after insert or update or delete on session_usage
    for each row execute function session_usage_daily_apply()`.execute(db);
  const upper = (body: string) => body.replaceAll('new.', 'NEW.').replaceAll('old.', 'OLD.');
  await sql
    .raw(
      `create function sessions_usage_apply() returns trigger language plpgsql as $$
       begin
         if tg_op = 'INSERT' then
           ${upper(SESSION_STARTED)}
         elsif tg_op = 'DELETE' then
           ${upper(SESSION_REMOVED('old.id'))}
         else
           if OLD.profile <> NEW.profile then
             ${upper(SESSION_MOVED)}
           end if;
           if ${upper(APPENDED('new', 'old'))} then
             ${upper(SESSION_APPENDED('greatest'))}
           end if;
         end if;
         return null;
       end $$`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger sessions_usage after insert or delete or update of profile, ${APPEND_COUNTERS.join(', ')} on sessions
       for each row execute function sessions_usage_apply()`,
    )
    .execute(db);
}

/**
 * Rollups of what is already stored: each session's start (by its creating surface), its visible
 * messages by their time — leaving out copies a branch or compression made (older than the
 * segment that holds them) — and its token and cost counters at its last activity. Receipts by
 * the hour they committed.
 */
async function backfill(db: Kysely<any>, dialect: Dialect) {
  const hourOf = (column: string) => sql.raw(`(${column} - ${column} % ${HOUR_MS})`);
  const conflict = sql.raw(
    `on conflict (session_id, hour_start, source, model) do update set ${USAGE_COUNTERS.map(
      (c) => `${c} = session_usage.${c} + excluded.${c}`,
    ).join(', ')}`,
  );
  // SQLite needs a WHERE before ON CONFLICT in INSERT … SELECT (its parsing ambiguity); harmless on PostgreSQL.
  await sql`insert into session_usage (session_id, hour_start, source, model, profile, conversations, sessions)
    select id, ${hourOf('started_at')}, created_source, coalesce(model, ''), profile,
      case when delegated = 0 and (lineage_kind is null or lineage_kind <> 'compression') then 1 else 0 end, 1
    from sessions where true ${conflict}`.execute(db);
  await sql`insert into session_usage (session_id, hour_start, source, model, profile, messages)
    select m.session_id, ${hourOf('m.timestamp')}, s.source, coalesce(s.model, ''), s.profile, count(*)
    from messages m join sessions s on s.id = m.session_id
    where m.display_kind <> 'hidden'
      and not (coalesce(s.lineage_kind, '') in ('compression', 'branch') and m.timestamp < s.started_at)
    group by m.session_id, ${hourOf('m.timestamp')}, s.source, coalesce(s.model, ''), s.profile
    ${conflict}`.execute(db);
  await sql`insert into session_usage (session_id, hour_start, source, model, profile,
      input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd)
    select id, ${hourOf('last_activity_at')}, source, coalesce(model, ''), profile,
      input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, estimated_cost_usd
    from sessions
    where input_tokens + output_tokens + cache_read_tokens + cache_write_tokens + reasoning_tokens > 0
      or estimated_cost_usd > 0
    ${conflict}`.execute(db);

  const count = (field: string) =>
    dialect === 'sqlite'
      ? sql.raw(`sum(coalesce(json_extract(counts, '$.${field}'), 0))`)
      : sql.raw(`sum(coalesce((counts::jsonb ->> '${field}')::bigint, 0))`);
  await sql`insert into deletion_rollups (hour_start, profile, origin, operations, sessions, messages)
    select ${hourOf('created_at')}, profile, origin, count(*), ${count('sessions')}, ${count('messages')}
    from deletion_receipts
    group by ${hourOf('created_at')}, profile, origin`.execute(db);
}
