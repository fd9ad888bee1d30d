/**
 * Calendar buckets in a named time zone (docs/stats.md, "Ranges and buckets"): the API lays its
 * buckets out with these, and the dashboard picks the bucket size for a range with them, so both
 * agree on where a day, a week (Monday first) or a month begins. Figures are kept per UTC hour, so
 * a boundary is the start of the UTC hour it falls in: exact in every zone whose offset is whole
 * hours, rounded down by the half or quarter hour elsewhere.
 */
export const STATS_BUCKET_SIZES = ['hour', 'day', 'week', 'month'] as const;
export type StatsBucketSize = (typeof STATS_BUCKET_SIZES)[number];

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, format);
  }
  return format;
}

/** Whether the runtime knows this IANA zone name ("UTC", "Europe/Paris"). */
export function isTimeZone(name: string): boolean {
  try {
    formatter(name);
    return true;
  } catch {
    return false;
  }
}

interface LocalDate {
  year: number;
  month: number;
  day: number;
}

function localParts(ms: number, timeZone: string): LocalDate & { hour: number; minute: number; second: number } {
  const parts: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(ms))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year,
    month: parts.month,
    day: parts.day,
    hour: parts.hour,
    minute: parts.minute,
    second: parts.second,
  };
}

function utcParts(ms: number): LocalDate {
  const d = new Date(ms);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** The zone's offset from UTC at `ms`, in milliseconds. */
function offsetAt(ms: number, timeZone: string): number {
  const p = localParts(ms, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - (ms - (((ms % 1000) + 1000) % 1000));
}

/**
 * Local midnights already worked out, per zone and date: each costs two `formatToParts` calls, and
 * a 90-day chart asks for 91 of them on every request. A zone's rules do not change while the
 * process runs; the cap only bounds memory (cleared whole when reached).
 */
const midnights = new Map<string, number>();
const MIDNIGHTS_KEPT = 20_000;

/** The instant local midnight of a date is (the first instant of that date where midnight is skipped). */
function localMidnight(date: LocalDate, timeZone: string): number {
  const wall = Date.UTC(date.year, date.month - 1, date.day);
  if (timeZone === 'UTC') return wall;
  const key = `${timeZone} ${wall}`;
  const known = midnights.get(key);
  if (known !== undefined) return known;
  let at = wall - offsetAt(wall, timeZone);
  const second = wall - offsetAt(at, timeZone);
  if (second !== at) at = Math.min(at, second);
  if (midnights.size >= MIDNIGHTS_KEPT) midnights.clear();
  midnights.set(key, at);
  return at;
}

const floorHour = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;

/** A calendar date moved by days or months (day-of-month kept for months: callers pass day 1). */
function shift(date: LocalDate, days: number, months = 0): LocalDate {
  const d = new Date(Date.UTC(date.year, date.month - 1 + months, date.day + days));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** The local calendar date on which the bucket holding `ms` begins. */
function bucketDate(ms: number, bucket: Exclude<StatsBucketSize, 'hour'>, timeZone: string): LocalDate {
  const p = timeZone === 'UTC' ? utcParts(ms) : localParts(ms, timeZone);
  const date = { year: p.year, month: p.month, day: p.day };
  if (bucket === 'day') return date;
  if (bucket === 'month') return { ...date, day: 1 };
  const weekday = (new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay() + 6) % 7;
  return shift(date, -weekday);
}

/**
 * The starts of every bucket covering `[from, to)`, then the end of the last one: `from` widened
 * down to the start of its bucket, `to` up to the end of its own. At least two values.
 */
export function bucketBoundaries(from: number, to: number, bucket: StatsBucketSize, timeZone: string): number[] {
  if (bucket === 'hour') {
    const bounds: number[] = [];
    for (let at = floorHour(from); ; at += HOUR_MS) {
      bounds.push(at);
      if (at >= to) return bounds;
    }
  }
  let date = bucketDate(from, bucket, timeZone);
  const bounds: number[] = [];
  for (;;) {
    const at = floorHour(localMidnight(date, timeZone));
    // A zone that skipped a whole day (e.g. Pacific/Apia in 2011) may repeat a boundary: keep one.
    if (bounds.length === 0 || at > bounds[bounds.length - 1]) bounds.push(at);
    if (at >= to && bounds.length >= 2) return bounds;
    date = bucket === 'day' ? shift(date, 1) : bucket === 'week' ? shift(date, 7) : shift(date, 0, 1);
  }
}

/** The longest range each bucket size is chosen for (the dashboard's choice; the API bounds are wider). */
const AUTO_BUCKET_SPAN_DAYS: [StatsBucketSize, number][] = [
  ['hour', 2],
  ['day', 92],
  ['week', 731],
];

/** A bucket size that shows a range in a readable number of bars (≤ 48 hours, ≤ 92 days, ≤ 105 weeks, then months). */
export function bucketForRange(from: number, to: number): StatsBucketSize {
  for (const [bucket, days] of AUTO_BUCKET_SPAN_DAYS) if (to - from <= days * DAY_MS) return bucket;
  return 'month';
}
