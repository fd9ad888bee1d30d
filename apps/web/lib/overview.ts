import {
  type DeletionFigures,
  type DeletionStatsResponse,
  ProfileNameSchema,
  STATS_OTHER_GROUP,
  type StatsBucket,
  type UsageFigures,
  type UsageResponse,
} from '@statehouse/contracts';
import { pickParams } from './params';
import { hrefWith, type RawSearchParams } from './paths';

/**
 * The overview's URL state (period and profile) and the shapes its charts draw. Charts are data
 * computed here on the server — buckets, series, totals — so each chart's table fallback shows the
 * very numbers the chart draws.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export const OVERVIEW_PERIODS = {
  '24h': { label: '24 hours', bucket: 'hour', span: 24 },
  '7d': { label: '7 days', bucket: 'day', span: 7 },
  '14d': { label: '14 days', bucket: 'day', span: 14 },
  '30d': { label: '30 days', bucket: 'day', span: 30 },
  '90d': { label: '90 days', bucket: 'day', span: 90 },
} as const satisfies Record<string, { label: string; bucket: StatsBucket; span: number }>;
export type OverviewPeriod = keyof typeof OVERVIEW_PERIODS;
export const DEFAULT_PERIOD: OverviewPeriod = '14d';

export interface OverviewRange {
  from: string;
  to: string;
  bucket: StatsBucket;
  profile?: string;
}

export interface OverviewState {
  period: OverviewPeriod;
  profile: string | undefined;
  range: OverviewRange;
  /** What the URL asked for that cannot be used, in words (the defaults are used instead). */
  issues: string[];
}

const isPeriod = (value: string | undefined): value is OverviewPeriod =>
  value !== undefined && Object.hasOwn(OVERVIEW_PERIODS, value);

/** Whole buckets ending with the current one: the last N UTC days (or hours), today included. */
export function rangeOf(period: OverviewPeriod, now: number, profile?: string): OverviewRange {
  const { bucket, span } = OVERVIEW_PERIODS[period];
  const grain = bucket === 'day' ? DAY_MS : HOUR_MS;
  const end = Math.floor(now / grain) * grain + grain;
  return { from: new Date(end - span * grain).toISOString(), to: new Date(end).toISOString(), bucket, profile };
}

export function parseOverviewState(searchParams: RawSearchParams, now = Date.now()): OverviewState {
  const raw = pickParams(searchParams, ['period', 'profile'] as const);
  const issues: string[] = [];
  let period = DEFAULT_PERIOD;
  if (isPeriod(raw.period)) period = raw.period;
  else if (raw.period) issues.push(`“${raw.period}” is not a period this page offers; showing the last 14 days.`);
  let profile: string | undefined;
  if (raw.profile && ProfileNameSchema.safeParse(raw.profile).success) profile = raw.profile;
  else if (raw.profile) issues.push(`“${raw.profile}” is not a valid profile name; showing every profile.`);
  return { period, profile, range: rangeOf(period, now, profile), issues };
}

export const overviewHref = (period: OverviewPeriod, profile: string | undefined) =>
  hrefWith('/', { period: period === DEFAULT_PERIOD ? null : period, profile });

export type ValueFormat = 'count' | 'usd';

export interface ChartSeries {
  key: string;
  label: string;
}

export interface ChartBucket {
  /** Axis and table label of the bucket (UTC). */
  label: string;
  start: string;
  values: Record<string, number>;
  total: number;
}

/** One stacked-bar chart: buckets oldest first, series largest first, and the range's total. */
export interface ChartData {
  series: ChartSeries[];
  buckets: ChartBucket[];
  total: number;
  format: ValueFormat;
  bucket: StatsBucket;
}

const dayLabel = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
const hourLabel = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' });

export function bucketLabel(iso: string, bucket: StatsBucket): string {
  return (bucket === 'day' ? dayLabel : hourLabel).format(new Date(iso));
}

function seriesLabel(key: string | null): string {
  if (key === null) return 'no model recorded';
  if (key === STATS_OTHER_GROUP) return 'other';
  return key;
}

/** Series keys must be stable, non-empty strings (recharts data keys); `null` models get one. */
const seriesKey = (key: string | null) => (key === null ? '(none)' : key);

interface Grouped<F> {
  bucket: StatsBucket;
  groups: (F & { key: string | null })[];
  buckets: { start: string; total: F; groups: (F & { key: string | null })[] }[];
  totals: F;
}

function chartOf<F>(response: Grouped<F>, value: (figures: F) => number, format: ValueFormat): ChartData {
  const series = response.groups
    .filter((group) => value(group) > 0)
    .map((group) => ({ key: seriesKey(group.key), label: seriesLabel(group.key) }));
  const buckets = response.buckets.map((bucket) => {
    const values: Record<string, number> = {};
    for (const group of bucket.groups) {
      const amount = value(group);
      if (amount > 0) values[seriesKey(group.key)] = amount;
    }
    return {
      label: bucketLabel(bucket.start, response.bucket),
      start: bucket.start,
      values,
      total: value(bucket.total),
    };
  });
  return { series, buckets, total: value(response.totals), format, bucket: response.bucket };
}

export type UsageMetric = 'messages' | 'conversations' | 'totalTokens' | 'costUsd';
export const usageChart = (usage: UsageResponse, metric: UsageMetric): ChartData =>
  chartOf<UsageFigures>(usage, (figures) => figures[metric], metric === 'costUsd' ? 'usd' : 'count');

export type DeletionMetric = 'sessions' | 'messages' | 'operations';
export const deletionChart = (deletions: DeletionStatsResponse, metric: DeletionMetric): ChartData =>
  chartOf<DeletionFigures>(deletions, (figures) => figures[metric], 'count');
