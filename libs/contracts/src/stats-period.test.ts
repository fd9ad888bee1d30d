import { describe, expect, it } from 'vitest';
import { bucketBoundaries, bucketForRange, isTimeZone } from './stats-period.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (values: number[]) => values.map((ms) => new Date(ms).toISOString());

describe('calendar buckets in a time zone', () => {
  it('knows IANA zone names and refuses others', () => {
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Europe/Paris')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
  });

  it('lays out UTC days and Paris days (local midnight is 23:00 UTC in winter)', () => {
    const from = Date.UTC(2026, 2, 2, 9);
    const to = Date.UTC(2026, 2, 3, 12);
    expect(iso(bucketBoundaries(from, to, 'day', 'UTC'))).toEqual([
      '2026-03-02T00:00:00.000Z',
      '2026-03-03T00:00:00.000Z',
      '2026-03-04T00:00:00.000Z',
    ]);
    expect(iso(bucketBoundaries(from, to, 'day', 'Europe/Paris'))).toEqual([
      '2026-03-01T23:00:00.000Z',
      '2026-03-02T23:00:00.000Z',
      '2026-03-03T23:00:00.000Z',
    ]);
  });

  it('follows daylight saving time: a 23-hour day, months starting at 23:00 then 22:00 UTC', () => {
    const days = bucketBoundaries(Date.UTC(2026, 2, 28, 12), Date.UTC(2026, 2, 29, 12), 'day', 'Europe/Paris');
    expect(iso(days)).toEqual(['2026-03-27T23:00:00.000Z', '2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z']);
    const months = bucketBoundaries(Date.UTC(2026, 2, 10), Date.UTC(2026, 3, 10), 'month', 'Europe/Paris');
    expect(iso(months)).toEqual(['2026-02-28T23:00:00.000Z', '2026-03-31T22:00:00.000Z', '2026-04-30T22:00:00.000Z']);
  });

  it('starts weeks on Monday and rounds half-hour zones down to the UTC hour', () => {
    // Sunday 2026-03-08 → the week of Monday 2026-03-02.
    expect(iso(bucketBoundaries(Date.UTC(2026, 2, 8, 12), Date.UTC(2026, 2, 8, 13), 'week', 'UTC'))).toEqual([
      '2026-03-02T00:00:00.000Z',
      '2026-03-09T00:00:00.000Z',
    ]);
    // Kolkata is UTC+5:30: local midnight is 18:30 UTC, figures are kept per UTC hour.
    expect(iso(bucketBoundaries(Date.UTC(2026, 2, 2, 12), Date.UTC(2026, 2, 2, 13), 'day', 'Asia/Kolkata'))).toEqual([
      '2026-03-01T18:00:00.000Z',
      '2026-03-02T18:00:00.000Z',
    ]);
  });

  it('widens an hour range to whole hours and keeps an end on a boundary', () => {
    expect(bucketBoundaries(90 * 60_000, 3 * HOUR, 'hour', 'UTC')).toEqual([HOUR, 2 * HOUR, 3 * HOUR]);
  });

  it('chooses hours up to two days, days up to 92, weeks up to two years, then months', () => {
    expect(bucketForRange(0, DAY)).toBe('hour');
    expect(bucketForRange(0, 30 * DAY)).toBe('day');
    expect(bucketForRange(0, 365 * DAY)).toBe('week');
    expect(bucketForRange(0, 5 * 365 * DAY)).toBe('month');
  });
});
