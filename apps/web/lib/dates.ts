const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Date filters are days in the viewer's time zone, the zone every time on the page is shown in.
 * The browser names its zone in the form (`tz`, an IANA name such as `America/New_York`, filled in
 * by DayZoneField); a picked day then means that zone's midnight to midnight. Without it (no
 * JavaScript, or an unknown name) days are UTC days, and the form says so.
 */
export const UTC_ZONE = 'UTC';

/** `value` when it is a time zone this runtime knows (IANA name), otherwise UTC. */
export function zoneOf(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 64) return UTC_ZONE;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    return UTC_ZONE;
  }
}

/** How far the zone's wall clock is ahead of UTC at `instant` (milliseconds). */
function offsetMs(instant: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(instant));
  const part = (type: string) => Number(parts.find((entry) => entry.type === type)?.value);
  const wall = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
  return wall - instant;
}

/** The instant a calendar day starts in `timeZone` (two passes settle an offset that changes that night). */
function dayStartMs(date: string, timeZone: string): number {
  const utcMidnight = Date.parse(`${date}T00:00:00Z`);
  const first = utcMidnight - offsetMs(utcMidnight, timeZone);
  return utcMidnight - offsetMs(first, timeZone);
}

/**
 * A date picked as the start of a range: that day's first instant in the viewer's zone. Anything
 * else is passed on as given, for the API's schema to judge.
 */
export function dayStart(value: unknown, zone: unknown): unknown {
  if (typeof value !== 'string' || !DATE_ONLY.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`))) {
    return value;
  }
  const timeZone = zoneOf(zone);
  if (timeZone === UTC_ZONE) return value;
  return new Date(dayStartMs(value, timeZone)).toISOString();
}

/**
 * A date picked as the end of a range includes that day: the API's bound is exclusive, so ask for
 * the next day's start in the viewer's zone. Anything else is passed on as given.
 */
export function inclusiveEnd(value: unknown, zone?: unknown): unknown {
  if (typeof value !== 'string' || !DATE_ONLY.test(value)) return value;
  const next = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(next.getTime())) return value;
  next.setUTCDate(next.getUTCDate() + 1);
  return dayStart(next.toISOString().slice(0, 10), zone);
}
