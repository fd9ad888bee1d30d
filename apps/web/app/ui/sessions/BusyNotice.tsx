import type { TurnLease } from '@statehouse/contracts';
import { Alert, Badge } from '@/app/ui/common';
import { formatDateTime, formatTime } from '@/lib/format';

/** A live turn lease: who holds it and until when (docs/domain.md §4, Turns). */
export function BusyNotice({ turn }: { turn: TurnLease }) {
  return (
    <Alert tone="warning" title="Busy — an agent turn is running" className="busy-notice">
      <p>
        Held by <code>{turn.holder}</code> until{' '}
        <time dateTime={turn.expiresAt} title={formatDateTime(turn.expiresAt)}>
          {formatTime(turn.expiresAt)} UTC
        </time>{' '}
        (lease <code>{turn.turnId}</code>). Deleting and other destructive operations are refused until the turn
        completes or its lease expires.
      </p>
    </Alert>
  );
}

/** The compact form, for list rows and headers. */
export function BusyBadge({ turn }: { turn: TurnLease }) {
  const until = formatDateTime(turn.expiresAt);
  return (
    <Badge tone="warning" dot title={`Turn held by ${turn.holder} until ${until}`}>
      Busy
      <span className="visually-hidden">
        {' '}
        (turn held by {turn.holder} until {until})
      </span>
    </Badge>
  );
}
