import { DATE_TIME_OPTIONS } from './format';

/**
 * Times in the viewer's own time zone (browser code only: the server renders UTC). English
 * wording like the rest of the dashboard; the zone is whatever the browser runs in.
 */
const timeFormat = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit' });
const fullFormat = new Intl.DateTimeFormat('en-GB', { dateStyle: 'full', timeStyle: 'long' });
const dayFormat = new Intl.DateTimeFormat('en-GB', { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });
const dateTimeFormat = new Intl.DateTimeFormat('en-GB', DATE_TIME_OPTIONS);

export const localTime = (iso: string) => timeFormat.format(new Date(iso));
export const localFull = (iso: string) => fullFormat.format(new Date(iso));
export const localDay = (iso: string) => dayFormat.format(new Date(iso));
export const localDateTime = (iso: string) => dateTimeFormat.format(new Date(iso));

/** The calendar day in the viewer's zone, comparable between two instants. */
export function localDayKey(iso: string): string {
  const date = new Date(iso);
  return `${date.getFullYear()}-${date.getMonth()}-${date.getDate()}`;
}
