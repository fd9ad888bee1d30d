// cron-parser (MIT, github.com/harrisiirak/cron-parser) reads the 5-field expressions: maintained
// (5.10.x released through November 2026), `engines: node >= 18` so it runs on the Node 20 we ship,
// CommonJS with its own type declarations, and time zones and DST transitions through its one
// dependency, luxon. It was chosen over hand-written field matching because DST gaps and overlaps
// in a named zone are exactly where a home-made cron goes wrong.
import { CronExpressionParser } from 'cron-parser';
import { ValidationError } from '../shared/errors.js';

/** The timing part of a schedule, as stored. */
export interface ScheduleTiming {
  kind: 'interval' | 'cron';
  intervalSeconds: number | null;
  cron: string | null;
  timeZone: string | null;
}

/**
 * Checks a schedule's timing as a whole (docs/domain.md §13.1): an interval schedule carries
 * seconds and no expression or zone; a cron schedule carries a 5-field expression the parser
 * accepts (and that matches at least once), optionally a zone, and no interval.
 */
export function assertValidTiming(timing: ScheduleTiming): void {
  if (timing.kind === 'interval') {
    if (timing.intervalSeconds === null) throw invalid('intervalSeconds', 'an interval schedule needs intervalSeconds');
    if (timing.cron !== null) throw invalid('cron', 'an interval schedule has no cron expression');
    if (timing.timeZone !== null) throw invalid('timeZone', 'a time zone applies to cron schedules only');
    return;
  }
  if (timing.cron === null) throw invalid('cron', 'a cron schedule needs a cron expression');
  if (timing.intervalSeconds !== null) throw invalid('intervalSeconds', 'a cron schedule has no interval');
  if (timing.cron.trim().split(/\s+/).length !== 5) {
    throw invalid('cron', 'must be a 5-field cron expression (minute hour day-of-month month day-of-week)');
  }
  try {
    nextCronMatch(timing.cron, timing.timeZone, Date.UTC(2000, 0, 1));
  } catch (error) {
    throw invalid('cron', `not a cron expression this server can read: ${(error as Error).message}`);
  }
}

/** The first tick of a new (or re-timed) schedule: one interval from now, or the next cron match after now. */
export function firstDue(timing: ScheduleTiming, now: number): number {
  return timing.kind === 'interval'
    ? now + timing.intervalSeconds! * 1000
    : nextCronMatch(timing.cron!, timing.timeZone, now);
}

/**
 * Where a schedule goes after a tick fired (docs/domain.md §13.5). A due time still in the future
 * (moved by a change while the tick was claimed) stands. Otherwise an interval schedule advances
 * from its due time by whole intervals to the first tick after now — missed ticks are skipped, never
 * fired as a burst, and the phase is kept; a cron schedule goes to its next match after now.
 */
export function nextDueAfterFiring(timing: ScheduleTiming, dueAt: number, now: number): number {
  if (dueAt > now) return dueAt;
  if (timing.kind === 'interval') {
    const step = timing.intervalSeconds! * 1000;
    return dueAt + (Math.floor((now - dueAt) / step) + 1) * step;
  }
  return nextCronMatch(timing.cron!, timing.timeZone, now);
}

/** The first minute strictly after `after` that the expression matches, read in `timeZone` (UTC when null). */
export function nextCronMatch(expression: string, timeZone: string | null, after: number): number {
  const parsed = CronExpressionParser.parse(expression, {
    currentDate: new Date(after),
    tz: timeZone ?? 'UTC',
  });
  return parsed.next().getTime();
}

function invalid(path: string, message: string): ValidationError {
  return new ValidationError(message, [{ path, message }]);
}
