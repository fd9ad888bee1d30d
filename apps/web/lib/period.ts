import { bucketForRange, type StatsBucket } from '@statehouse/contracts';
import { dayStart, inclusiveEnd, UTC_ZONE, zoneOf } from './dates';

/**
 * The period control the overview, the sessions list and search share (URL keys `period`, `from`,
 * `to`, `tz`): presets counted back from now in the viewer's time zone, "all time", or a custom
 * range of whole days. Presets of days begin at a local midnight (today counts as one day); the
 * bucket size of a chart follows the range's length (lib contracts `bucketForRange`).
 */
export const PERIOD_PRESETS = {
  '24h': { label: '24 hours', days: 0 },
  '7d': { label: '7 days', days: 7 },
  '14d': { label: '14 days', days: 14 },
  '30d': { label: '30 days', days: 30 },
  '90d': { label: '90 days', days: 90 },
  '1y': { label: '1 year', days: 365 },
  all: { label: 'All time', days: Number.POSITIVE_INFINITY },
} as const;
export type PeriodPreset = keyof typeof PERIOD_PRESETS;
export type PeriodKey = PeriodPreset | 'custom';
export const PERIOD_KEYS = ['period', 'from', 'to', 'tz'] as const;
export type PeriodRaw = Partial<Record<(typeof PERIOD_KEYS)[number], string>>;

const HOUR_MS = 3_600_000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

export interface Period {
  key: PeriodKey;
  /** Custom range: the days picked (`to` inclusive), as in the URL. */
  fromDate?: string;
  toDate?: string;
  /** The viewer's zone as the URL names it (UTC until the browser said). */
  timeZone: string;
  /** What the URL asked for that cannot be used, in words. */
  issues: string[];
}

const isPreset = (value: string | undefined): value is PeriodPreset =>
  value !== undefined && Object.hasOwn(PERIOD_PRESETS, value);
const validDate = (value: string | undefined) =>
  value !== undefined && DATE_ONLY.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`));

/**
 * The period a URL names. Dates without `period` mean a custom range (a form that only sent
 * dates); an unknown period or date falls back to `fallback`, and says so.
 */
export function parsePeriod(raw: PeriodRaw, fallback: PeriodPreset): Period {
  const timeZone = zoneOf(raw.tz);
  const issues: string[] = [];
  if (raw.tz && timeZone === UTC_ZONE && raw.tz !== UTC_ZONE) issues.push(`“${raw.tz}” is not a time zone; using UTC.`);
  const wantsCustom = raw.period === 'custom' || (!raw.period && (raw.from || raw.to));
  if (wantsCustom) {
    const fromDate = validDate(raw.from) ? raw.from : undefined;
    const toDate = validDate(raw.to) ? raw.to : undefined;
    if (raw.from && !fromDate) issues.push(`“${raw.from}” is not a date (from).`);
    if (raw.to && !toDate) issues.push(`“${raw.to}” is not a date (until).`);
    if (fromDate && toDate && fromDate > toDate) {
      issues.push('The range ends before it begins; showing the default period.');
      return { key: fallback, timeZone, issues };
    }
    if (fromDate || toDate) return { key: 'custom', fromDate, toDate, timeZone, issues };
    return { key: fallback, timeZone, issues };
  }
  if (raw.period && !isPreset(raw.period)) {
    issues.push(`“${raw.period}” is not a period this page offers; showing ${PERIOD_PRESETS[fallback].label}.`);
    return { key: fallback, timeZone, issues };
  }
  return { key: raw.period && isPreset(raw.period) ? raw.period : fallback, timeZone, issues };
}

/**
 * The instants a period covers: `from` inclusive, `to` exclusive; undefined = unbounded (all
 * time, or a custom range open at one end). `now` ends the presets.
 */
export function periodInstants(period: Period, now: number): { from?: number; to?: number } {
  if (period.key === 'custom') {
    const from = period.fromDate ? Date.parse(String(dayStart(period.fromDate, period.timeZone))) : undefined;
    const to = period.toDate ? Date.parse(String(inclusiveEnd(period.toDate, period.timeZone))) : undefined;
    return { from: fromIso(from), to: fromIso(to) };
  }
  if (period.key === 'all') return {};
  if (period.key === '24h') return { from: now - 24 * HOUR_MS, to: now };
  // N days ending today: from the local midnight N − 1 days before today's.
  const today = localDate(now, period.timeZone);
  const first = new Date(`${today}T00:00:00Z`);
  first.setUTCDate(first.getUTCDate() - (PERIOD_PRESETS[period.key].days - 1));
  return { from: Date.parse(String(dayStart(first.toISOString().slice(0, 10), period.timeZone))), to: now };
}

/** Both ends as ISO instants (for the API), leaving out an open one. */
export function periodIso(period: Period, now: number): { from?: string; to?: string } {
  const { from, to } = periodInstants(period, now);
  return {
    from: from === undefined ? undefined : new Date(from).toISOString(),
    to: to === undefined ? undefined : new Date(to).toISOString(),
  };
}

const fromIso = (value: number | undefined) => (value === undefined || Number.isNaN(value) ? undefined : value);

function localDate(at: number, timeZone: string): string {
  // en-CA writes dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    new Date(at),
  );
}

/** A chart's range: the period's instants, an open start taken from where the figures begin. */
export function chartRange(
  period: Period,
  now: number,
  firstFigure: string | null | undefined,
): { from: string; to: string; bucket: StatsBucket; timeZone: string } {
  const { from, to } = periodInstants(period, now);
  const end = to ?? now;
  const start = Math.min(from ?? (firstFigure ? Date.parse(firstFigure) : end - 24 * HOUR_MS), end - HOUR_MS);
  return {
    from: new Date(start).toISOString(),
    to: new Date(end).toISOString(),
    bucket: bucketForRange(start, end),
    timeZone: period.timeZone,
  };
}

/** "the last 7 days", "all time", "1 Mar 2026 – 5 Mar 2026": for a page's description. */
export function periodLabel(period: Period): string {
  if (period.key === 'custom') {
    const day = (value: string) =>
      new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(
        new Date(`${value}T00:00:00Z`),
      );
    if (period.fromDate && period.toDate) return `${day(period.fromDate)} – ${day(period.toDate)}`;
    return period.fromDate ? `since ${day(period.fromDate)}` : `until ${day(period.toDate!)}`;
  }
  if (period.key === 'all') return 'all time';
  return `the last ${PERIOD_PRESETS[period.key].label}`;
}

/** The URL keys of a period (defaults left out: `fallback` needs no key, UTC needs no zone unless named). */
export function periodParams(period: Period, fallback: PeriodPreset): PeriodRaw {
  return {
    period: period.key === fallback || period.key === 'custom' ? undefined : period.key,
    from: period.key === 'custom' ? period.fromDate : undefined,
    to: period.key === 'custom' ? period.toDate : undefined,
    tz: period.timeZone === UTC_ZONE ? undefined : period.timeZone,
  };
}
