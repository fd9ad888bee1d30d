'use client';

import { Button } from '@/app/ui/common/Button';
import { cx } from '@/app/ui/common/cx';
import type { FeedStatus } from './use-feed';
import './live.css';

const STATUS_LABELS: Record<FeedStatus, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  paused: 'Paused',
  reconnecting: 'Reconnecting…',
  unavailable: 'Live updates unavailable',
};

interface LiveStatusProps {
  status: FeedStatus;
  paused: boolean;
  onToggle: () => void;
  /** What has arrived so far ("2 new messages"), said politely with the status. */
  news: string | null;
  detail: string | null;
  /** What the feed follows, for the toggle's name ("transcript", "sessions"). */
  subject: string;
  testId: string;
}

/** The "live" state of a page fed by a live feed: a polite status, what arrived, and pause/resume. */
export function LiveStatus({ status, paused, onToggle, news, detail, subject, testId }: LiveStatusProps) {
  return (
    <div className={cx('live-status', `live-status--${status}`)} data-testid={testId}>
      <span className="live-status__dot" aria-hidden="true" />
      <span className="live-status__text" role="status" aria-live="polite" data-testid={`${testId}-status`}>
        <strong>{STATUS_LABELS[status]}</strong>
        {news ? <span> · {news}</span> : null}
        {detail && status === 'unavailable' ? <span> · {detail}</span> : null}
      </span>
      {status !== 'unavailable' ? (
        <Button size="sm" variant="secondary" aria-pressed={paused} onClick={onToggle}>
          {paused ? `Resume live ${subject}` : `Pause live ${subject}`}
        </Button>
      ) : null}
    </div>
  );
}
