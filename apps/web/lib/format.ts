/**
 * Display formatting. The server renders times in UTC and says so (an operator comparing the
 * dashboard with logs should never have to guess the zone); in the browser, clocks switch to the
 * viewer's zone (lib/local-time.ts) with the same formats.
 */

/** Day, month, year, hours and minutes; `timeZone` undefined: the runtime's own zone. */
export const DATE_TIME_OPTIONS: Intl.DateTimeFormatOptions = {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
};
const dateTimeFormat = new Intl.DateTimeFormat('en-GB', { ...DATE_TIME_OPTIONS, timeZone: 'UTC' });
const timeFormat = new Intl.DateTimeFormat('en-GB', {
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  timeZone: 'UTC',
});
const numberFormat = new Intl.NumberFormat('en-US');

export function formatDateTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${dateTimeFormat.format(date)} UTC`;
}

export function formatTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : timeFormat.format(date);
}

/** "just now", "12 min ago", "3 h ago", "5 d ago", then the date (`absolute`: UTC unless given). */
export function formatRelative(iso: string, now: number = Date.now(), absolute = formatDateTime): string {
  const time = new Date(iso).getTime();
  if (Number.isNaN(time)) return iso;
  const seconds = Math.round((now - time) / 1000);
  if (seconds < 0) return absolute(iso);
  if (seconds < 60) return 'just now';
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.floor(hours / 24);
  if (days < 30) return `${days} d ago`;
  return absolute(iso);
}

export function formatNumber(value: number): string {
  return numberFormat.format(value);
}

export function formatCost(usd: number): string {
  if (usd === 0) return '$0.00';
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** One model call's cost: cents and up to four decimals below a dollar ("$0.0125", "$0.25", "$1.40"). */
export function formatCallCost(usd: number): string {
  if (usd >= 1) return `$${usd.toFixed(2)}`;
  if (usd > 0 && usd < 0.00005) return 'under $0.0001';
  return `$${usd.toFixed(4).replace(/(\.\d\d\d*?)0+$/, '$1')}`;
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatNumber(count)} ${count === 1 ? one : many}`;
}

/** `snake_case` reasons and kinds as words: `cli_close` → "cli close". */
export function humanize(value: string): string {
  return value.replaceAll('_', ' ');
}

/** An API detail as a sentence ("profile x already exists" → "Profile x already exists."). */
export function sentence(text: string): string {
  const trimmed = text.trim();
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/** A span of time in its two largest units: "45 s", "12 min", "3 h 20 min", "2 d 4 h". */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${days} d ${hours % 24} h` : `${days} d`;
}

/**
 * A reply latency: "850 ms" under a second, "1.5 s" (tenths) under ten seconds, "12 s" under a
 * minute, then "2 min 5 s".
 */
export function formatLatency(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 9_950) return `${(ms / 1000).toFixed(1).replace(/\.0$/, '')} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return seconds % 60 ? `${Math.floor(seconds / 60)} min ${seconds % 60} s` : `${seconds / 60} min`;
  return formatDuration(ms);
}

/** A bounded count: `{count: 1000, exact: false}` reads "1,000+". */
export function formatBounded(total: { count: number; exact: boolean }): string {
  return `${formatNumber(total.count)}${total.exact ? '' : '+'}`;
}
