import { type ExpressionBuilder, type RawBuilder, sql } from 'kysely';
import type { DB, Executor } from '../db/database.js';
import { PreparedQuery } from '../db/prepared.js';
import { chunk } from '../db/sql-dialect.js';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** The additive figures of a rollup row (zero when absent). */
export interface UsageCounters {
  conversations: number;
  sessions: number;
  messages: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  costUsd: number;
}

export const ZERO_USAGE: UsageCounters = {
  conversations: 0,
  sessions: 0,
  messages: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  costUsd: 0,
};

/** What one write adds to a session's hour on one surface with one model ('' = none recorded). */
export interface UsageContribution extends Partial<UsageCounters> {
  sessionId: string;
  hourStart: number;
  source: string;
  model: string;
  profile: string;
}

export type UsageDimension = 'source' | 'profile' | 'model';

export interface UsageRange {
  /** Inclusive bucket start, exclusive end (epoch ms, aligned to the grain). */
  from: number;
  to: number;
  /** null = every profile; otherwise the fence (already intersected with a requested profile). */
  profiles: string[] | null;
}

export interface UsageRow extends UsageCounters {
  bucket: number;
  key: string;
}

const COLUMNS = {
  conversations: 'conversations',
  sessions: 'sessions',
  messages: 'messages',
  inputTokens: 'input_tokens',
  outputTokens: 'output_tokens',
  cacheReadTokens: 'cache_read_tokens',
  cacheWriteTokens: 'cache_write_tokens',
  reasoningTokens: 'reasoning_tokens',
  costUsd: 'cost_usd',
} as const satisfies Record<keyof UsageCounters, string>;
type CounterColumn = (typeof COLUMNS)[keyof typeof COLUMNS];
const COUNTER_KEYS = Object.keys(COLUMNS) as (keyof UsageCounters)[];

type RecordParam = 'sessionId' | 'hourStart' | 'source' | 'model' | 'profile' | keyof UsageCounters;

/** Adds the incoming row's counters to the stored ones (`excluded` is the row that conflicted). */
const addExcluded = () =>
  Object.fromEntries(
    Object.values(COLUMNS).map((column) => [
      column,
      sql<number>`${sql.ref(`session_usage.${column}`)} + ${sql.ref(`excluded.${column}`)}`,
    ]),
  ) as Record<CounterColumn, RawBuilder<number>>;

/**
 * Usage rollups (docs/stats.md). Writers record contributions per session, hour, surface and
 * model; `usage_daily` follows by trigger, and session inserts, deletes and profile moves are
 * applied by triggers on `sessions` (migration 2026-11-30T04.00). On PostgreSQL a `usage_daily`
 * key may have several rows (stripes, migration 2026-12-01T03.10), so every read of it sums
 * grouped by the columns it reports — never a row taken as the key's figure.
 */
export class UsageRollupRepository {
  /** The append hot path: one prepared upsert. */
  private readonly recordOne = new PreparedQuery<RecordParam, unknown>((db, param) =>
    db
      .insertInto('session_usage')
      .values({
        session_id: param('sessionId'),
        hour_start: param('hourStart'),
        source: param('source'),
        model: param('model'),
        profile: param('profile'),
        ...Object.fromEntries(COUNTER_KEYS.map((key) => [COLUMNS[key], param(key)])),
      })
      .onConflict((oc) => oc.columns(['session_id', 'hour_start', 'source', 'model']).doUpdateSet(addExcluded)),
  );

  /**
   * Takes a session's contributions out (usage_daily follows by trigger). For a session written
   * hidden: the insert trigger counted its start, which must wait until it becomes visible.
   */
  async removeSession(db: Executor, sessionId: string): Promise<void> {
    await db.deleteFrom('session_usage').where('session_id', '=', sessionId).execute();
  }

  async record(db: Executor, contributions: readonly UsageContribution[]): Promise<void> {
    if (contributions.length === 0) return;
    if (contributions.length === 1) {
      const [one] = contributions;
      await this.recordOne.execute(db, { ...one, ...withZeros(one) });
      return;
    }
    // One row per key (a batch may repeat an hour): an upsert may not touch a row twice.
    const merged = new Map<string, UsageContribution>();
    for (const contribution of contributions) {
      const key = [contribution.sessionId, contribution.hourStart, contribution.source, contribution.model].join('\n');
      const current = merged.get(key);
      merged.set(
        key,
        current ? { ...current, ...sumCounters(withZeros(current), withZeros(contribution)) } : contribution,
      );
    }
    for (const part of chunk([...merged.values()], 200)) {
      await db
        .insertInto('session_usage')
        .values(
          part.map((one) => {
            const counters = withZeros(one);
            return {
              session_id: one.sessionId,
              hour_start: one.hourStart,
              source: one.source,
              model: one.model,
              profile: one.profile,
              ...Object.fromEntries(COUNTER_KEYS.map((key) => [COLUMNS[key], counters[key]])),
            };
          }),
        )
        .onConflict((oc) => oc.columns(['session_id', 'hour_start', 'source', 'model']).doUpdateSet(addExcluded))
        .execute();
    }
  }

  /** Per day (from `usage_daily`) and group: every (day, key) with a row in the range. */
  async daily(db: Executor, range: UsageRange, dimension: UsageDimension): Promise<UsageRow[]> {
    if (range.profiles !== null && range.profiles.length === 0) return [];
    let query = db
      .selectFrom('usage_daily')
      .select((eb) => [eb.ref('day_start').as('bucket'), eb.ref(dimension).as('key'), ...sums(eb)])
      .where('day_start', '>=', range.from)
      .where('day_start', '<', range.to);
    if (range.profiles !== null) query = query.where('profile', 'in', range.profiles);
    const rows = await query.groupBy(['day_start', dimension]).execute();
    return rows.map(toUsageRow);
  }

  /**
   * Per calendar bucket and group from `usage_daily`: each day is laid into its bucket in SQL, so a
   * long range answers a row per (bucket, key), not one per (day, key) for the caller to fold.
   * `starts`: the buckets' starts, ascending (a day at or after a start and before the next one is
   * that bucket's); the UTC days in `skip` (those a bucket boundary cuts) are left out — the caller
   * reads their hours. The starts are the service's own numbers, inlined as literals.
   */
  async dailyByBucket(
    db: Executor,
    range: UsageRange,
    starts: readonly number[],
    skip: readonly number[],
    dimension: UsageDimension,
  ): Promise<UsageRow[]> {
    if (starts.length === 0 || (range.profiles !== null && range.profiles.length === 0)) return [];
    const bucket = bucketOf('day_start', starts);
    let query = db
      .selectFrom('usage_daily')
      .select((eb) => [bucket.as('bucket'), eb.ref(dimension).as('key'), ...sums(eb)])
      .where('day_start', '>=', range.from)
      .where('day_start', '<', range.to);
    if (skip.length > 0) query = query.where('day_start', 'not in', [...skip]);
    if (range.profiles !== null) query = query.where('profile', 'in', range.profiles);
    const rows = await query.groupBy([bucket, dimension]).execute();
    return rows.map(toUsageRow);
  }

  /** Per hour (from `session_usage`) and group. */
  async hourly(db: Executor, range: UsageRange, dimension: UsageDimension): Promise<UsageRow[]> {
    if (range.profiles !== null && range.profiles.length === 0) return [];
    let query = db
      .selectFrom('session_usage')
      .select((eb) => [eb.ref('hour_start').as('bucket'), eb.ref(dimension).as('key'), ...sums(eb)])
      .where('hour_start', '>=', range.from)
      .where('hour_start', '<', range.to);
    if (range.profiles !== null) query = query.where('profile', 'in', range.profiles);
    const rows = await query.groupBy(['hour_start', dimension]).execute();
    return rows.map(toUsageRow);
  }

  /** Per hour and group at these hour starts (the hours of the days a calendar bucket boundary cuts). */
  async hoursAt(
    db: Executor,
    hours: readonly number[],
    profiles: string[] | null,
    dimension: UsageDimension,
    starts?: readonly number[],
  ): Promise<UsageRow[]> {
    if (hours.length === 0 || (profiles !== null && profiles.length === 0)) return [];
    // With bucket starts, the hours fold into their buckets here, as `dailyByBucket` folds days.
    const bucket = starts ? bucketOf('hour_start', starts) : sql<number>`hour_start`;
    let query = db
      .selectFrom('session_usage')
      .select((eb) => [bucket.as('bucket'), eb.ref(dimension).as('key'), ...sums(eb)])
      .where('hour_start', 'in', [...hours]);
    if (profiles !== null) query = query.where('profile', 'in', profiles);
    const rows = await query.groupBy([bucket, dimension]).execute();
    return rows.map(toUsageRow);
  }

  /** The first and last day with figures left (rows of deleted sessions' usage are zeros). */
  async extent(db: Executor, profiles: string[] | null): Promise<{ first: number; last: number } | undefined> {
    if (profiles !== null && profiles.length === 0) return undefined;
    let query = db
      .selectFrom('usage_daily')
      .select((eb) => [eb.fn.min<number>('day_start').as('first'), eb.fn.max<number>('day_start').as('last')])
      .where((eb) => eb.or([eb('sessions', '<>', 0), eb('messages', '<>', 0), eb('cost_usd', '<>', 0)]));
    if (profiles !== null) query = query.where('profile', 'in', profiles);
    const row = await query.executeTakeFirst();
    if (row?.first === null || row?.first === undefined) return undefined;
    return { first: Number(row.first), last: Number(row.last) };
  }

  /** Sums over whole hours `[from, to)`: whole days from `usage_daily`, the hours around them from `session_usage`. */
  async total(db: Executor, range: UsageRange): Promise<UsageCounters> {
    if (range.profiles !== null && range.profiles.length === 0) return { ...ZERO_USAGE };
    const firstDay = Math.ceil(range.from / DAY_MS) * DAY_MS;
    const lastDay = Math.floor(range.to / DAY_MS) * DAY_MS;
    const parts: UsageCounters[] = [];
    const hours = async (from: number, to: number) => {
      if (from >= to) return;
      let query = db
        .selectFrom('session_usage')
        .select((eb) => sums(eb))
        .where('hour_start', '>=', from)
        .where('hour_start', '<', to);
      if (range.profiles !== null) query = query.where('profile', 'in', range.profiles);
      parts.push(toCounters((await query.executeTakeFirst()) ?? {}));
    };
    if (firstDay < lastDay) {
      let query = db
        .selectFrom('usage_daily')
        .select((eb) => sums(eb))
        .where('day_start', '>=', firstDay)
        .where('day_start', '<', lastDay);
      if (range.profiles !== null) query = query.where('profile', 'in', range.profiles);
      parts.push(toCounters((await query.executeTakeFirst()) ?? {}));
      await hours(range.from, firstDay);
      await hours(lastDay, range.to);
    } else {
      await hours(range.from, range.to);
    }
    return parts.reduce(sumCounters, { ...ZERO_USAGE });
  }

  /** Known values of a dimension with the sessions started with each, most first (`limit` + 1 read). */
  async facet(
    db: Executor,
    dimension: 'source' | 'model',
    profiles: string[] | null,
    limit: number,
  ): Promise<{ value: string; sessions: number }[]> {
    if (profiles !== null && profiles.length === 0) return [];
    let query = db
      .selectFrom('usage_daily')
      .select((eb) => [eb.ref(dimension).as('value'), eb.fn.sum<number>('sessions').as('sessions')]);
    if (profiles !== null) query = query.where('profile', 'in', profiles);
    const rows = await query
      .groupBy(dimension)
      .having((eb) => eb.fn.sum('sessions'), '>', 0)
      .orderBy('sessions', 'desc')
      .orderBy(dimension)
      .limit(limit + 1)
      .execute();
    return rows.map((row) => ({ value: String(row.value), sessions: Number(row.sessions) }));
  }

  /**
   * PostgreSQL only (SQLite has no stripes): folds the stripes of days before `beforeDay` into
   * stripe 0, at most `limit` stripe rows per call; returns how many it folded (fewer than `limit`:
   * none left). Appends spread a busy key over up to 16 stripe rows (migration
   * 2026-12-01T03.10) and readers sum them; folding keeps that sum a read of one row per key
   * where days are no longer appended to. Rows another transaction holds are left for the next
   * pass (`skip locked`), so appends never wait on this; the sums are moved, never recomputed.
   */
  async foldStripes(db: Executor, beforeDay: number, limit: number): Promise<number> {
    const counters = Object.values(COLUMNS);
    const list = sql.raw(counters.join(', '));
    const summed = sql.raw(counters.map((c) => `sum(${c})`).join(', '));
    const added = sql.raw(counters.map((c) => `${c} = usage_daily.${c} + excluded.${c}`).join(', '));
    const { rows } = await sql<{ folded: number }>`
      with moved as (
        delete from usage_daily where ctid in (
          select ctid from usage_daily where stripe <> 0 and day_start < ${beforeDay}
          limit ${limit} for update skip locked)
        returning day_start, profile, source, model, ${list}
      ), folded as (
        insert into usage_daily (day_start, profile, source, model, stripe, ${list})
        select day_start, profile, source, model, 0, ${summed} from moved
        group by day_start, profile, source, model
        on conflict (day_start, profile, source, model, stripe) do update set ${added}
      )
      select count(*) as folded from moved`.execute(db);
    return Number(rows[0]?.folded ?? 0);
  }

  /** A session's rows (tests and the rebuild check). */
  async forSession(db: Executor, sessionId: string) {
    return db
      .selectFrom('session_usage')
      .selectAll()
      .where('session_id', '=', sessionId)
      .orderBy('hour_start')
      .execute();
  }
}

/**
 * The bucket a day or hour start falls in: the latest of `starts` (ascending) at or before it. The
 * starts are the service's own numbers, inlined as literals (a CASE of a few hundred at most: weeks
 * and months of the longest range). Starts a fixed step apart on multiples of it (UTC hours and
 * days) are a modulo instead: one arithmetic step per row, not a walk down the CASE.
 */
export function bucketOf(column: 'day_start' | 'hour_start', starts: readonly number[]): RawBuilder<number> {
  const step = starts.length > 1 ? starts[1] - starts[0] : 0;
  const evenlySpaced =
    step > 0 && starts.every((start, i) => start % step === 0 && (i === 0 || start - starts[i - 1] === step));
  if (evenlySpaced) {
    // Rows before the first start are outside the range the caller's WHERE keeps.
    return sql<number>`(${sql.ref(column)} - ${sql.ref(column)} % ${sql.lit(step)})`;
  }
  const whens = [...starts]
    .reverse()
    .map((start) => sql`when ${sql.ref(column)} >= ${sql.lit(start)} then ${sql.lit(start)}`);
  return sql<number>`case ${sql.join(whens, sql` `)} end`;
}

function sums(eb: ExpressionBuilder<DB, 'usage_daily' | 'session_usage'>) {
  return COUNTER_KEYS.map((key) => sql<number>`coalesce(sum(${eb.ref(COLUMNS[key] as 'messages')}), 0)`.as(key));
}

function withZeros(contribution: Partial<UsageCounters>): UsageCounters {
  const counters = { ...ZERO_USAGE };
  for (const key of COUNTER_KEYS) counters[key] = contribution[key] ?? 0;
  return counters;
}

export function sumCounters(a: UsageCounters, b: UsageCounters): UsageCounters {
  const sum = { ...ZERO_USAGE };
  for (const key of COUNTER_KEYS) sum[key] = a[key] + b[key];
  return sum;
}

function toCounters(row: Partial<Record<keyof UsageCounters, unknown>>): UsageCounters {
  const counters = { ...ZERO_USAGE };
  for (const key of COUNTER_KEYS) counters[key] = Number(row[key] ?? 0);
  return counters;
}

function toUsageRow(row: Record<string, unknown>): UsageRow {
  return { bucket: Number(row.bucket), key: String(row.key), ...toCounters(row) };
}
