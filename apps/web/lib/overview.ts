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
import type { RawSearchParams } from './paths';
import { chartRange, PERIOD_KEYS, type Period, type PeriodPreset, parsePeriod } from './period';

/**
 * The overview's URL state (period and profile) and the shapes its charts draw. Charts are data
 * computed here on the server — buckets, series, totals — so each chart's table fallback shows the
 * very numbers the chart draws.
 */

/** The overview's period when the URL names none. */
export const DEFAULT_PERIOD: PeriodPreset = '14d';
export const OVERVIEW_KEYS = ['profile', ...PERIOD_KEYS] as const;

export interface OverviewRange {
  from: string;
  to: string;
  bucket: StatsBucket;
  timeZone: string;
  profile?: string;
}

export interface OverviewState {
  period: Period;
  profile: string | undefined;
  /** The URL's keys as given (the period control keeps the profile, the profile switcher the period). */
  raw: Partial<Record<(typeof OVERVIEW_KEYS)[number], string>>;
  /** What the URL asked for that cannot be used, in words (the defaults are used instead). */
  issues: string[];
}

export function parseOverviewState(searchParams: RawSearchParams): OverviewState {
  const raw = pickParams(searchParams, OVERVIEW_KEYS);
  const period = parsePeriod(raw, DEFAULT_PERIOD);
  const issues = [...period.issues];
  let profile: string | undefined;
  if (raw.profile && ProfileNameSchema.safeParse(raw.profile).success) profile = raw.profile;
  else if (raw.profile) issues.push(`“${raw.profile}” is not a valid profile name; showing every profile.`);
  return { period, profile, raw, issues };
}

/**
 * The charts' range: the period's, "all time" (or an open custom start) beginning where the
 * figures do (`firstFigure`, GET /v1/stats/extent) — imported history of any age included.
 */
export function overviewRange(state: OverviewState, now: number, firstFigure?: string | null): OverviewRange {
  return { ...chartRange(state.period, now, firstFigure), profile: state.profile };
}

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

const LABEL_FORMATS: Record<StatsBucket, Intl.DateTimeFormatOptions> = {
  hour: { hour: '2-digit', minute: '2-digit' },
  day: { day: 'numeric', month: 'short' },
  week: { day: 'numeric', month: 'short', year: '2-digit' },
  month: { month: 'short', year: 'numeric' },
};

/** A bucket's axis label in the zone the buckets were laid out in (a week by its Monday). */
export function bucketLabel(iso: string, bucket: StatsBucket, timeZone = 'UTC'): string {
  const format = new Intl.DateTimeFormat('en-GB', { ...LABEL_FORMATS[bucket], timeZone });
  // A boundary rounded down to the UTC hour (half-hour zones) is labelled by the hour after it.
  const at = Date.parse(iso) + (bucket === 'hour' ? 0 : 3_600_000 - 1);
  return `${bucket === 'week' ? 'w/c ' : ''}${format.format(new Date(at))}`;
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
  timeZone?: string;
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
      label: bucketLabel(bucket.start, response.bucket, response.timeZone),
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
