import type { Schedule } from '@statehouse/contracts';
import { ApiErrorAlert, Badge, type BadgeTone, Card, Timestamp } from '@/app/ui/common';
import type { Attempt } from '@/lib/attempt';
import './sessions.css';

const INACTIVE_LABELS: Record<NonNullable<Schedule['inactiveReason']>, string> = {
  disabled: 'Disabled',
  session_ended: 'Paused: session closed',
  session_archived: 'Paused: archived',
};

const OWNERSHIP_TONES: Record<Schedule['owner']['ownership'], BadgeTone> = {
  owned: 'success',
  unowned: 'warning',
  unroutable: 'danger',
};

/** "every 5 min", "0 9 * * 1-5 (Europe/Berlin)": what the schedule says, as its owner wrote it. */
export function scheduleTiming(schedule: Schedule): string {
  if (schedule.kind === 'cron') return `${schedule.cron}${schedule.timeZone ? ` (${schedule.timeZone})` : ' (UTC)'}`;
  return `every ${formatInterval(schedule.intervalSeconds ?? 0)}`;
}

function formatInterval(seconds: number): string {
  const units: [number, string][] = [
    [86_400, 'd'],
    [3600, 'h'],
    [60, 'min'],
    [1, 's'],
  ];
  const parts: string[] = [];
  let rest = seconds;
  for (const [size, unit] of units) {
    const count = Math.floor(rest / size);
    if (count > 0) parts.push(`${count} ${unit}`);
    rest -= count * size;
  }
  return parts.length > 0 ? parts.join(' ') : '0 s';
}

/**
 * The session's scheduled wake-ups (docs/domain.md §13): read-only — gateways keep them. A list,
 * not a table: the details column is narrow, and a list reflows where a table would scroll.
 */
export function ScheduleCard({ schedules }: { schedules: Attempt<Schedule[]> }) {
  return (
    <Card title="Scheduled wake-ups" headingLevel={2}>
      {!schedules.ok ? (
        <ApiErrorAlert error={schedules.error} title="Schedules could not be loaded" />
      ) : schedules.value.length === 0 ? (
        <p className="routing-card__empty">No heartbeats or loops are scheduled for this session.</p>
      ) : (
        <ul className="route-mini-list" aria-label="Scheduled wake-ups of this session">
          {schedules.value.map((schedule) => (
            <li key={schedule.id} className="route-mini">
              <span className="schedule-timing">
                <span className="schedule-timing__kind">{schedule.kind === 'cron' ? 'Cron' : 'Interval'}</span>{' '}
                <code className="route-mini__key">{scheduleTiming(schedule)}</code>
              </span>
              <span className="route-mini__meta meta-row">
                {schedule.active ? (
                  <Badge tone="success" dot>
                    {schedule.claim ? 'Firing' : 'Active'}
                  </Badge>
                ) : (
                  <Badge tone="neutral">{INACTIVE_LABELS[schedule.inactiveReason ?? 'disabled']}</Badge>
                )}
                <span>
                  next due <Timestamp iso={schedule.nextDueAt} />
                </span>
                <span>
                  {schedule.lastFiredAt ? (
                    <>
                      last fired <Timestamp iso={schedule.lastFiredAt} />
                    </>
                  ) : (
                    'never fired'
                  )}
                </span>
              </span>
              <span className="route-mini__meta meta-row schedule-owner">
                <span>owner</span>
                <Badge tone={OWNERSHIP_TONES[schedule.owner.ownership]}>{schedule.owner.ownership}</Badge>
                {schedule.owner.gatewayId ? <code>{schedule.owner.gatewayId}</code> : null}
              </span>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
