import { describe, expect, it } from 'vitest';
import { ValidationError } from '../shared/errors.js';
import { assertValidTiming, firstDue, nextCronMatch, nextDueAfterFiring } from './schedule-timing.js';

const MINUTE = 60_000;
const interval = (seconds: number) => ({
  kind: 'interval' as const,
  intervalSeconds: seconds,
  cron: null,
  timeZone: null,
});
const cron = (expression: string, timeZone: string | null = null) => ({
  kind: 'cron' as const,
  intervalSeconds: null,
  cron: expression,
  timeZone,
});

describe('schedule timing', () => {
  it('[schedules.next-tick] an interval skips missed ticks and keeps its phase; a due time in the future stands', () => {
    const due = Date.UTC(2026, 0, 1, 12, 0);
    expect(nextDueAfterFiring(interval(60), due, due)).toBe(due + MINUTE);
    expect(nextDueAfterFiring(interval(60), due, due + 30_000)).toBe(due + MINUTE);
    // Away for 3½ intervals: one firing, then the old beat.
    expect(nextDueAfterFiring(interval(60), due, due + 3.5 * MINUTE)).toBe(due + 4 * MINUTE);
    expect(nextDueAfterFiring(interval(60), due, due + 4 * MINUTE)).toBe(due + 5 * MINUTE);
    expect(nextDueAfterFiring(interval(60), due + 10 * MINUTE, due)).toBe(due + 10 * MINUTE);
    expect(firstDue(interval(90), due)).toBe(due + 90_000);
  });

  it('[schedules.next-tick] cron goes to its next match strictly after now, in its time zone, across DST', () => {
    const now = Date.UTC(2026, 0, 1, 12, 0);
    expect(nextDueAfterFiring(cron('*/15 * * * *'), now - 40 * MINUTE, now)).toBe(now + 15 * MINUTE);
    expect(nextCronMatch('0 9 * * *', 'Europe/Berlin', now)).toBe(Date.UTC(2026, 0, 2, 8, 0));
    // Berlin moves to summer time on 29 March 2026: 09:00 is 07:00 UTC from then on.
    expect(nextCronMatch('0 9 * * *', 'Europe/Berlin', Date.UTC(2026, 2, 28, 12))).toBe(Date.UTC(2026, 2, 29, 7, 0));
    expect(firstDue(cron('0 0 1 1 *'), now)).toBe(Date.UTC(2027, 0, 1));
  });

  it('[schedules.definition] refuses timings that do not hold together', () => {
    expect(() => assertValidTiming(interval(60))).not.toThrow();
    expect(() => assertValidTiming(cron('*/5 9-17 * * 1-5', 'America/New_York'))).not.toThrow();
    for (const timing of [
      { ...interval(60), timeZone: 'UTC' },
      { ...interval(60), cron: '* * * * *' },
      { ...cron('* * * * *'), intervalSeconds: 60 },
      cron('* * * *'),
      cron('0 0 30 2 *'),
      cron('a b c d e'),
    ]) {
      expect(() => assertValidTiming(timing)).toThrow(ValidationError);
    }
  });
});
