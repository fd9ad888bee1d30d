import {
  ACTIVE_NOW_WINDOW_MINUTES,
  bucketBoundaries,
  type DeletionStatsQuery,
  type DeletionStatsResponse,
  instantMs,
  type Principal,
  type ReplyLatencyGroup,
  type ReplyLatencyQuery,
  type ReplyLatencyStats,
  SESSION_FACET_LIMIT,
  type SessionFacets,
  type SessionFacetsQuery,
  STATS_DEFAULT_RANGE_DAYS,
  STATS_GROUP_LIMIT,
  STATS_MAX_RANGE_DAYS,
  STATS_OTHER_GROUP,
  type StatsBucket,
  type StatsExtent,
  type StatsExtentQuery,
  type StatsSummary,
  type StatsSummaryQuery,
  type UsageFigures,
  type UsageQuery,
  type UsageResponse,
} from '@statehouse/contracts';
import type { Db } from '../db/database.js';
import { chunk, type SqlDialect } from '../db/sql-dialect.js';
import { type HistogramBucket, latencyFigures, mergeHistograms } from '../domain/reply-latency.js';
import {
  type DeletionCounters,
  DeletionRollupRepository,
  ZERO_DELETIONS,
} from '../repositories/deletion-rollup.repository.js';
import { type LatencyRow, ReplyLatencyRepository } from '../repositories/reply-latency.repository.js';
import { SessionRepository } from '../repositories/session.repository.js';
import { SessionLeaseRepository } from '../repositories/session-lease.repository.js';
import {
  DAY_MS,
  HOUR_MS,
  sumCounters,
  type UsageCounters,
  type UsageDimension,
  UsageRollupRepository,
  type UsageRow,
  ZERO_USAGE,
} from '../repositories/usage-rollup.repository.js';
import { canAccessProfile, profileScope } from '../shared/access.js';
import { type Clock, toIso } from '../shared/clock.js';
import type { OperationContext } from '../shared/context.js';
import { ValidationError } from '../shared/errors.js';
import { toDomainError } from '../shared/store-errors.js';

interface ResolvedRange {
  from: number;
  to: number;
  bucket: StatsBucket;
  timeZone: string;
  /** Every bucket's start, then the range's end (epoch ms, whole UTC hours). */
  bounds: number[];
  profiles: string[] | null;
  profile: string | null;
}

/**
 * Usage and deletion figures for the overview (docs/stats.md), read from rollups kept in the
 * write transactions, owner-fenced like every read: a member sees its own profiles' figures only,
 * and a profile it may not read answers as an empty one.
 */
export class StatsService {
  private readonly usage = new UsageRollupRepository();
  private readonly deletions = new DeletionRollupRepository();
  private readonly latency: ReplyLatencyRepository;
  private readonly sessions: SessionRepository;
  private readonly leases: SessionLeaseRepository;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    dialect: SqlDialect,
  ) {
    this.sessions = new SessionRepository(dialect);
    this.latency = new ReplyLatencyRepository(dialect);
    this.leases = new SessionLeaseRepository(dialect);
  }

  async usageOverTime(ctx: OperationContext, query: UsageQuery): Promise<UsageResponse> {
    const range = this.resolve(ctx.principal, query.from, query.to, query.bucket, query.timeZone, query.profile);
    const rows = await this.read(() => this.usageRows(range, query.groupBy));
    const keyed = rows.map((row) => ({ ...row, key: query.groupBy === 'model' && row.key === '' ? null : row.key }));
    const series = groupSeries(
      range,
      keyed,
      ZERO_USAGE,
      sumCounters,
      (a, b) => b.messages - a.messages || b.costUsd - a.costUsd || b.sessions - a.sessions,
    );
    return {
      from: toIso(range.from),
      to: toIso(range.to),
      bucket: range.bucket,
      timeZone: range.timeZone,
      groupBy: query.groupBy,
      profile: range.profile,
      groups: series.groups.map(({ key, counters }) => ({ key, ...figures(counters) })),
      buckets: series.buckets.map((bucket) => ({
        start: toIso(bucket.start),
        total: figures(bucket.total),
        groups: bucket.groups.map(({ key, counters }) => ({ key, ...figures(counters) })),
      })),
      totals: figures(series.total),
    };
  }

  async deletionsOverTime(ctx: OperationContext, query: DeletionStatsQuery): Promise<DeletionStatsResponse> {
    const range = this.resolve(ctx.principal, query.from, query.to, query.bucket, query.timeZone, query.profile);
    // Folded into the range's buckets in SQL: a row per bucket and group, whatever the time zone.
    const rows = await this.read(() =>
      this.deletions.buckets(this.db, range, query.groupBy, range.bounds.slice(0, -1)),
    );
    const series = groupSeries(
      range,
      rows,
      ZERO_DELETIONS,
      sumDeletions,
      (a, b) => b.sessions - a.sessions || b.operations - a.operations,
    );
    const keyOf = (key: string | null) => key ?? STATS_OTHER_GROUP;
    return {
      from: toIso(range.from),
      to: toIso(range.to),
      bucket: range.bucket,
      timeZone: range.timeZone,
      groupBy: query.groupBy,
      profile: range.profile,
      groups: series.groups.map(({ key, counters }) => ({ key: keyOf(key), ...counters })),
      buckets: series.buckets.map((bucket) => ({
        start: toIso(bucket.start),
        total: bucket.total,
        groups: bucket.groups.map(({ key, counters }) => ({ key: keyOf(key), ...counters })),
      })),
      totals: series.total,
    };
  }

  /** The overview cards: usage and deletions over whole hours of the period, and activity right now. */
  async summary(ctx: OperationContext, query: StatsSummaryQuery): Promise<StatsSummary> {
    // Any range up to all time; without one, the last 30 days (a day-bucket chart's default).
    const range = this.resolve(ctx.principal, query.from, query.to, 'hour', 'UTC', query.profile, 'month', 'day');
    const now = this.clock.now();
    return this.read(async () => {
      const usage = await this.usage.total(this.db, range);
      const deletionRows = await this.deletions.buckets(this.db, range, 'profile', [range.from]);
      const deletions = deletionRows.reduce(sumDeletions, { ...ZERO_DELETIONS });
      const since = now - ACTIVE_NOW_WINDOW_MINUTES * 60_000;
      return {
        from: toIso(range.from),
        to: toIso(range.to),
        profile: range.profile,
        usage: figures(usage),
        deletions: { operations: deletions.operations, sessions: deletions.sessions, messages: deletions.messages },
        activeNow: {
          sessions: await this.sessions.countActiveSince(this.db, since, range.profiles),
          busy: await this.leases.countBusy(this.db, now, range.profiles),
          windowMinutes: ACTIVE_NOW_WINDOW_MINUTES,
          at: toIso(now),
        },
      };
    });
  }

  /**
   * How long assistant replies took over whole UTC hours of the period (docs/stats.md, "Reply
   * latency"): p50 and p95 of every reply, per model and per surface, from the latency histograms
   * (whole UTC days from the daily one, the hours at either end from the hourly one).
   */
  async replyLatency(ctx: OperationContext, query: ReplyLatencyQuery): Promise<ReplyLatencyStats> {
    const range = this.resolve(ctx.principal, query.from, query.to, 'hour', 'UTC', query.profile, 'month', 'day');
    const rows = await this.read(() => this.latency.histogram(this.db, range.from, range.to, range.profiles));
    return {
      from: toIso(range.from),
      to: toIso(range.to),
      profile: range.profile,
      overall: latencyFigures(mergeHistograms([rows])),
      byModel: latencyGroups(rows, (row) => (row.model === '' ? null : row.model)),
      bySource: latencyGroups(rows, (row) => row.source),
    };
  }

  /** The first and last UTC day with figures: where an "all time" range begins (imported history included). */
  async extent(ctx: OperationContext, query: StatsExtentQuery): Promise<StatsExtent> {
    const profiles = fence(ctx.principal, query.profile);
    return this.read(async () => {
      const usage = await this.usage.extent(this.db, profiles);
      const deletions = await this.deletions.extent(this.db, profiles);
      const firsts = [usage?.first, deletions?.first].filter((v): v is number => v !== undefined);
      const lasts = [usage?.last, deletions?.last].filter((v): v is number => v !== undefined);
      return {
        profile: query.profile ?? null,
        first: firsts.length ? toIso(Math.floor(Math.min(...firsts) / DAY_MS) * DAY_MS) : null,
        last: lasts.length ? toIso(Math.floor(Math.max(...lasts) / DAY_MS) * DAY_MS + DAY_MS) : null,
      };
    });
  }

  /**
   * Usage rows keyed by the instant they begin, each inside one bucket. Hour buckets read the
   * hours; longer ones read whole UTC days from `usage_daily` and, for the UTC days a bucket
   * boundary cuts (a local midnight that is not UTC midnight), those days' hours instead — so an
   * all-time range costs a read of the daily rollup plus a day of hours per boundary.
   */
  private async usageRows(range: ResolvedRange, dimension: UsageDimension): Promise<UsageRow[]> {
    if (range.bucket === 'hour') return this.usage.hourly(this.db, range, dimension);
    const cut = new Set<number>();
    for (const bound of range.bounds) if (bound % DAY_MS !== 0) cut.add(Math.floor(bound / DAY_MS) * DAY_MS);
    // Weeks and months fold their days in SQL (a row per bucket and key however long the range);
    // day buckets are the days themselves.
    const days =
      range.bucket === 'day'
        ? (await this.usage.daily(this.db, range, dimension)).filter((row) => !cut.has(row.bucket))
        : await this.usage.dailyByBucket(this.db, range, range.bounds.slice(0, -1), [...cut], dimension);
    const spans = mergeSpans(
      [...cut].sort((a, b) => a - b).map((day) => [Math.max(day, range.from), Math.min(day + DAY_MS, range.to)]),
    );
    // Long spans (every day cut: days in a non-UTC zone) as one range read each; the cut days of
    // weeks and months as lists of their hours, a few statements of index lookups in all — as one
    // OR of ranges the planner may scan the whole table, and a statement per day costs a round
    // trip each.
    const hours: UsageRow[] = [];
    const scattered: number[] = [];
    for (const [from, to] of spans) {
      if (to - from > 7 * DAY_MS) {
        hours.push(...(await this.usage.hourly(this.db, { from, to, profiles: range.profiles }, dimension)));
      } else {
        for (let hour = from; hour < to; hour += HOUR_MS) scattered.push(hour);
      }
    }
    const starts = range.bucket === 'day' ? undefined : range.bounds.slice(0, -1);
    for (const part of chunk(scattered, 2000)) {
      hours.push(...(await this.usage.hoursAt(this.db, part, range.profiles, dimension, starts)));
    }
    return [...days, ...hours];
  }

  /** Surfaces and models the list can be filtered by: every value seen in the profiles the caller reads. */
  async facets(ctx: OperationContext, query: SessionFacetsQuery): Promise<SessionFacets> {
    const profiles = fence(ctx.principal, query.profile);
    return this.read(async () => {
      const sources = await this.usage.facet(this.db, 'source', profiles, SESSION_FACET_LIMIT);
      const models = await this.usage.facet(this.db, 'model', profiles, SESSION_FACET_LIMIT);
      return {
        sources: sources.slice(0, SESSION_FACET_LIMIT),
        models: models
          .slice(0, SESSION_FACET_LIMIT)
          .map((row) => ({ ...row, value: row.value === '' ? null : row.value })),
        truncated: sources.length > SESSION_FACET_LIMIT || models.length > SESSION_FACET_LIMIT,
      };
    });
  }

  /**
   * The range as used: defaults from now, widened to whole buckets, bounded. `spanBucket` names
   * the bucket size whose longest range applies (the summary reads hours but may span days).
   */
  private resolve(
    principal: Principal,
    fromText: string | undefined,
    toText: string | undefined,
    bucket: StatsBucket,
    timeZone: string,
    profile: string | undefined,
    spanBucket: StatsBucket = bucket,
    defaultSpanBucket: StatsBucket = spanBucket,
  ): ResolvedRange {
    const rawTo = toText === undefined ? this.clock.now() : instantMs(toText);
    const rawFrom =
      fromText === undefined ? rawTo - STATS_DEFAULT_RANGE_DAYS[defaultSpanBucket] * DAY_MS : instantMs(fromText);
    if (!Number.isFinite(rawFrom) || !Number.isFinite(rawTo))
      throw new ValidationError('`from` and `to` must be valid instants');
    if (rawFrom >= rawTo) throw new ValidationError('`to` must be after `from`');
    if (rawTo - rawFrom > STATS_MAX_RANGE_DAYS[spanBucket] * DAY_MS) {
      throw new ValidationError(
        `a range of ${spanBucket} buckets may span at most ${STATS_MAX_RANGE_DAYS[spanBucket]} days`,
      );
    }
    const bounds = bucketBoundaries(rawFrom, rawTo, bucket, timeZone);
    return {
      from: bounds[0],
      to: bounds[bounds.length - 1],
      bucket,
      timeZone,
      bounds,
      profiles: fence(principal, profile),
      profile: profile ?? null,
    };
  }

  private async read<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw toDomainError(error);
    }
  }
}

/** The profiles a read may cover: the caller's scope, narrowed to `profile` (empty when it is not theirs). */
function fence(principal: Principal, profile: string | undefined): string[] | null {
  if (profile !== undefined) return canAccessProfile(principal, profile) ? [profile] : [];
  return profileScope(principal);
}

export function figures(counters: UsageCounters): UsageFigures {
  return {
    conversations: counters.conversations,
    sessions: counters.sessions,
    messages: counters.messages,
    inputTokens: counters.inputTokens,
    outputTokens: counters.outputTokens,
    cacheReadTokens: counters.cacheReadTokens,
    cacheWriteTokens: counters.cacheWriteTokens,
    reasoningTokens: counters.reasoningTokens,
    totalTokens: counters.inputTokens + counters.outputTokens,
    // Sums of floating-point costs: report to a millionth of a dollar, without float noise.
    costUsd: Math.round(counters.costUsd * 1e6) / 1e6,
  };
}

/**
 * Latency histogram rows → one group per key, most replies first (then by key), with the groups
 * past `STATS_GROUP_LIMIT` folded into `STATS_OTHER_GROUP` (histograms merge, so its percentiles
 * are those of its replies together).
 */
function latencyGroups(rows: readonly LatencyRow[], keyOf: (row: LatencyRow) => string | null): ReplyLatencyGroup[] {
  const byKey = new Map<string | null, HistogramBucket[]>();
  for (const row of rows) {
    const key = keyOf(row);
    const histogram = byKey.get(key) ?? [];
    histogram.push(row);
    byKey.set(key, histogram);
  }
  const ranked = [...byKey.entries()]
    .map(([key, histogram]) => ({ key, histogram: mergeHistograms([histogram]) }))
    .map((group) => ({ ...group, replies: group.histogram.reduce((sum, entry) => sum + entry.replies, 0) }))
    .sort((a, b) => b.replies - a.replies || String(a.key ?? '').localeCompare(String(b.key ?? '')));
  const fold = ranked.length > STATS_GROUP_LIMIT + 1;
  const kept = fold ? ranked.slice(0, STATS_GROUP_LIMIT) : ranked;
  const groups = kept.map(({ key, histogram }) => ({ key, ...latencyFigures(histogram) }));
  if (fold) {
    const rest = mergeHistograms(ranked.slice(STATS_GROUP_LIMIT).map((group) => group.histogram));
    groups.push({ key: STATS_OTHER_GROUP, ...latencyFigures(rest) });
  }
  return groups;
}

function sumDeletions(a: DeletionCounters, b: DeletionCounters): DeletionCounters {
  return {
    operations: a.operations + b.operations,
    sessions: a.sessions + b.sessions,
    messages: a.messages + b.messages,
  };
}

interface Keyed<C> {
  key: string | null;
  counters: C;
}

/**
 * Rows of (bucket, key, counters) → every bucket of the range in order (empty ones included),
 * groups ranked by `rank` with the ones past `STATS_GROUP_LIMIT` folded into `STATS_OTHER_GROUP`,
 * and the totals. Rows whose counters are all zero (usage of deleted sessions) are left out.
 */
function groupSeries<C extends object>(
  range: ResolvedRange,
  rows: readonly ({ bucket: number; key: string | null } & C)[],
  zero: C,
  add: (a: C, b: C) => C,
  rank: (a: C, b: C) => number,
) {
  const counterKeys = Object.keys(zero) as (keyof C)[];
  const countersOf = (row: C) => Object.fromEntries(counterKeys.map((k) => [k, row[k]])) as C;
  const live = rows.filter((row) => counterKeys.some((k) => Number(row[k]) !== 0));
  const totals = new Map<string | null, C>();
  for (const row of live) totals.set(row.key, add(totals.get(row.key) ?? zero, countersOf(row)));
  const ranked = [...totals.entries()].sort(
    ([keyA, a], [keyB, b]) => rank(a, b) || String(keyA ?? '').localeCompare(String(keyB ?? '')),
  );
  const fold = ranked.length > STATS_GROUP_LIMIT + 1;
  const kept = new Set(ranked.slice(0, fold ? STATS_GROUP_LIMIT : ranked.length).map(([key]) => key));
  const groupOf = (key: string | null) => (kept.has(key) ? key : STATS_OTHER_GROUP);
  const order = new Map<string | null, number>();
  const groups: Keyed<C>[] = [];
  for (const [key, counters] of ranked) {
    const group = groupOf(key);
    if (!order.has(group)) {
      order.set(group, groups.length);
      groups.push({ key: group, counters: zero });
    }
    const slot = groups[order.get(group)!];
    slot.counters = add(slot.counters, counters);
  }
  const starts = range.bounds.slice(0, -1);
  const buckets = starts.map((start) => ({ start, total: zero, groups: [] as Keyed<C>[] }));
  for (const row of live) {
    const at = bucketIndex(range.bounds, row.bucket);
    if (at === undefined) continue;
    const bucket = buckets[at];
    const counters = countersOf(row);
    bucket.total = add(bucket.total, counters);
    const group = groupOf(row.key);
    const existing = bucket.groups.find((g) => g.key === group);
    if (existing) existing.counters = add(existing.counters, counters);
    else bucket.groups.push({ key: group, counters });
  }
  for (const bucket of buckets) bucket.groups.sort((a, b) => order.get(a.key)! - order.get(b.key)!);
  const total = groups.reduce((sum, group) => add(sum, group.counters), zero);
  return { groups, buckets, total };
}

/** The bucket `at` falls in (`bounds`: starts then end, ascending); undefined outside the range. */
function bucketIndex(bounds: readonly number[], at: number): number | undefined {
  if (at < bounds[0] || at >= bounds[bounds.length - 1]) return undefined;
  let low = 0;
  let high = bounds.length - 2;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (bounds[mid] <= at) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** Ascending `[from, to)` spans with touching ones joined (empty ones dropped). */
function mergeSpans(spans: readonly (readonly [number, number])[]): [number, number][] {
  const merged: [number, number][] = [];
  for (const [from, to] of spans) {
    if (from >= to) continue;
    const last = merged[merged.length - 1];
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  return merged;
}
