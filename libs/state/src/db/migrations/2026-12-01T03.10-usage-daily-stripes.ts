import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/** The additive figures of a usage bucket, as in 2026-11-30T04.00 (frozen copy). */
const COUNTERS = [
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
const DAY_MS = 86_400_000;
/** Rows per (day, profile, source, model) a busy day can spread over. */
const STRIPES = 16;
const KEY = 'day_start, profile, source, model';

/**
 * Frozen. PostgreSQL only: appends stop waiting for each other on one `usage_daily` row
 * (docs/decisions/0016-usage-daily-stripes-on-postgresql.md).
 *
 * Every append adds to the `usage_daily` row of its (UTC day, profile, source, model) through the
 * `session_usage` trigger, and holds that row's lock until it commits: concurrent appends of the
 * same surface and model on the same day ran one after the other (most samples of
 * `pg_stat_activity` under 32 appending clients waited on `Lock: transactionid`). Here a key's
 * figures are spread over up to 16 rows (`stripe` 0–15, part of the key); readers sum them (they
 * already group by the key's other columns). The trigger adds a change to a stripe no other
 * transaction holds (`for update skip locked`, trying first the stripe `pg_backend_pid() % 16`, so
 * a connection keeps coming back to its own), creates a missing stripe when every existing one is
 * held, and waits only when all 16 exist and are held. Index maintenance folds past days back
 * into stripe 0 (UsageRollupRepository.foldStripes).
 *
 * SQLite: nothing to do — it has one writer at a time, so appends never wait on each other's row
 * locks, and the table keeps its old key (no `stripe` column).
 */
export function usageDailyStripesMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      await sql`alter table usage_daily add column stripe smallint not null default 0`.execute(db);
      await sql
        .raw(
          `alter table usage_daily drop constraint usage_daily_pk,
             add constraint usage_daily_pk primary key (${KEY}, stripe)`,
        )
        .execute(db);
      await sql.raw(USAGE_DAILY_ADD).execute(db);
      await sql.raw(applyFunction(STRIPED_APPLY)).execute(db);
    },

    async down(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      await sql.raw(applyFunction(SINGLE_ROW_APPLY)).execute(db);
      await sql`drop function if exists usage_daily_add`.execute(db);
      // Every key's stripes summed into its stripe 0, then the old key back.
      await sql
        .raw(
          `insert into usage_daily (${KEY}, stripe, ${COUNTERS.join(', ')})
           select ${KEY}, 0, ${COUNTERS.map((c) => `sum(${c})`).join(', ')}
           from usage_daily where stripe <> 0 group by ${KEY}
           on conflict (${KEY}, stripe) do update set ${COUNTERS.map((c) => `${c} = usage_daily.${c} + excluded.${c}`).join(', ')}`,
        )
        .execute(db);
      await sql`delete from usage_daily where stripe <> 0`.execute(db);
      await sql
        .raw(
          `alter table usage_daily drop constraint usage_daily_pk,
             add constraint usage_daily_pk primary key (${KEY})`,
        )
        .execute(db);
      await sql`alter table usage_daily drop column stripe`.execute(db);
    },
  };
}

const ARGS = COUNTERS.map((c) => `add_${c} ${c === 'cost_usd' ? 'double precision' : 'bigint'}`).join(', ');
const ADD_TO_ROW = COUNTERS.map((c) => `${c} = usage_daily.${c} + add_${c}`).join(', ');
const THIS_KEY = 'day_start = k_day and profile = k_profile and source = k_source and model = k_model';
const insertStripe = (stripe: string, conflict: string) =>
  `insert into usage_daily (${KEY}, stripe, ${COUNTERS.join(', ')})
   values (k_day, k_profile, k_source, k_model, ${stripe}, ${COUNTERS.map((c) => `add_${c}`).join(', ')})
   ${conflict};`;

/**
 * Adds a change to one stripe of a key. Row locks live in the rows (no lock-table entry per key,
 * so a bulk delete touching thousands of keys is as cheap as before).
 * 1. An existing stripe no other transaction holds, nearest to this connection's own: locked and
 *    updated. `skip locked` passes over held rows without waiting; rows this transaction already
 *    holds are not skipped.
 * 2. None free: a stripe that does not exist yet (the committed ones are read without locks),
 *    inserted. It waits only if another transaction is inserting the same new stripe right now
 *    (the first appends of a key), then moves on to the next.
 * 3. All stripes exist and are held: the old behaviour, waiting for this connection's own.
 */
const USAGE_DAILY_ADD = `
create function usage_daily_add(k_day bigint, k_profile text, k_source text, k_model text, ${ARGS})
returns void language plpgsql as $$
declare
  own int := pg_backend_pid() % ${STRIPES};
  chosen smallint;
  existing smallint[];
  candidate int;
begin
  select stripe into chosen from usage_daily
   where ${THIS_KEY}
   order by (stripe - own + ${STRIPES}) % ${STRIPES}
   limit 1
   for update skip locked;
  if found then
    update usage_daily set ${ADD_TO_ROW} where ${THIS_KEY} and stripe = chosen;
    return;
  end if;
  select array_agg(stripe) into existing from usage_daily where ${THIS_KEY};
  for step in 0 .. ${STRIPES - 1} loop
    candidate := (own + step) % ${STRIPES};
    if existing is null or not (candidate = any(existing)) then
      ${insertStripe('candidate', 'on conflict do nothing')}
      if found then
        return;
      end if;
    end if;
  end loop;
  ${insertStripe('own', `on conflict (${KEY}, stripe) do update set ${ADD_TO_ROW}`)}
end $$`;

/** `usage_daily`'s share of a `session_usage` row (OLD or NEW), each counter as `counter(c)`. */
const share = (row: 'OLD' | 'NEW', counter: (c: string) => string) =>
  `${row}.hour_start - ${row}.hour_start % ${DAY_MS}, ${row}.profile, ${row}.source, ${row}.model, ${COUNTERS.map(counter).join(', ')}`;

/** The trigger function's body per change: the same three paths as 2026-11-30T04.00's. */
interface ApplyPaths {
  delta: string;
  removed: string;
  added: string;
}

const STRIPED_APPLY: ApplyPaths = {
  delta: `perform usage_daily_add(${share('NEW', (c) => `NEW.${c} - OLD.${c}`)});`,
  removed: `perform usage_daily_add(${share('OLD', (c) => `-OLD.${c}`)});`,
  added: `perform usage_daily_add(${share('NEW', (c) => `NEW.${c}`)});`,
};

/** 2026-11-30T04.00's upserts into the one row of a key (what `down` restores). */
const singleUpsert = (row: 'OLD' | 'NEW', counter: (c: string) => string) =>
  `insert into usage_daily (${KEY}, ${COUNTERS.join(', ')}) values (${share(row, counter)})
   on conflict (${KEY}) do update set ${COUNTERS.map((c) => `${c} = usage_daily.${c} + excluded.${c}`).join(', ')};`;
const SINGLE_ROW_APPLY: ApplyPaths = {
  delta: singleUpsert('NEW', (c) => `NEW.${c} - OLD.${c}`),
  removed: singleUpsert('OLD', (c) => `-OLD.${c}`),
  added: singleUpsert('NEW', (c) => `NEW.${c}`),
};

/**
 * The `session_usage` trigger's function (the trigger itself is unchanged): an update within a
 * profile adds the difference; a profile move takes the row out of the old profile's day and puts
 * it into the new one's; an insert adds, a delete removes.
 */
function applyFunction(paths: ApplyPaths): string {
  return `create or replace function session_usage_daily_apply() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE' and OLD.profile = NEW.profile then
        ${paths.delta}
        return null;
      end if;
      if tg_op in ('UPDATE', 'DELETE') then
        ${paths.removed}
      end if;
      if tg_op in ('UPDATE', 'INSERT') then
        ${paths.added}
      end if;
      return null;
    end $$`;
}
