'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useEffect, useState, useTransition } from 'react';
import { cx } from '@/app/ui/common';
import './receipts.css';

interface ReceiptsLiveProps {
  /** The dashboard's proxy of the watch stream, from the high-water mark this page was rendered at. */
  streamHref: string;
  /** The page of receipts after `renderedHighWater` (what "Show" opens). */
  newHref: string;
  renderedHighWater: number;
}

type Status = 'connecting' | 'live' | 'reconnecting' | 'expired' | 'unavailable';

const STATUS_LABELS: Record<Status, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  expired: 'Cursor expired',
  unavailable: 'Live updates unavailable',
};

/**
 * "Live" indicator of the receipts page: an EventSource on the watch stream counts receipts written
 * since the page was rendered and follows the high-water mark (bookmarks when idle). It never
 * changes the table by itself; it offers to show the new receipts.
 */
export function ReceiptsLive({ streamHref, newHref, renderedHighWater }: ReceiptsLiveProps) {
  const router = useRouter();
  const [status, setStatus] = useState<Status>('connecting');
  const [highWater, setHighWater] = useState(renderedHighWater);
  const [fresh, setFresh] = useState(0);
  const [detail, setDetail] = useState<string | null>(null);
  const [refreshing, startRefresh] = useTransition();

  useEffect(() => {
    const source = new EventSource(streamHref);
    const seen = new Set<number>();
    source.onopen = () => setStatus('live');
    source.onerror = () => setStatus(source.readyState === EventSource.CLOSED ? 'unavailable' : 'reconnecting');
    source.addEventListener('receipt', (event) => {
      const receipt = JSON.parse((event as MessageEvent<string>).data) as { sequence: number };
      setStatus('live');
      if (receipt.sequence > renderedHighWater && !seen.has(receipt.sequence)) {
        seen.add(receipt.sequence);
        setFresh(seen.size);
      }
      setHighWater((current) => Math.max(current, receipt.sequence));
    });
    source.addEventListener('bookmark', (event) => {
      const { highWater: mark } = JSON.parse((event as MessageEvent<string>).data) as { highWater: number };
      setStatus('live');
      setHighWater((current) => Math.max(current, mark));
    });
    source.addEventListener('expired', (event) => {
      const { floor } = JSON.parse((event as MessageEvent<string>).data) as { floor: number };
      setStatus('expired');
      setDetail(`Receipts up to #${floor} were reclaimed.`);
      source.close();
    });
    source.addEventListener('unavailable', (event) => {
      const { detail: reason } = JSON.parse((event as MessageEvent<string>).data) as { detail: string };
      setStatus('unavailable');
      setDetail(reason);
      source.close();
    });
    return () => source.close();
  }, [streamHref, renderedHighWater]);

  return (
    <div className={cx('live-indicator', `live-indicator--${status}`)} data-testid="receipts-live">
      <span className="live-indicator__status">
        <span className="live-indicator__dot" aria-hidden="true" />
        <span data-testid="receipts-live-status">{STATUS_LABELS[status]}</span>
      </span>
      <span className="live-indicator__mark" title="The highest receipt sequence written so far">
        high-water <strong data-testid="receipts-high-water">#{highWater}</strong>
      </span>
      <span className="live-indicator__fresh" aria-live="polite">
        {fresh > 0 ? (
          <>
            <strong data-testid="receipts-new-count">{fresh}</strong> new {fresh === 1 ? 'receipt' : 'receipts'} ·{' '}
            <Link href={newHref}>Show</Link> ·{' '}
            <button
              type="button"
              className="link-button"
              disabled={refreshing}
              onClick={() => startRefresh(() => router.refresh())}
            >
              {refreshing ? 'Refreshing…' : 'Refresh'}
            </button>
          </>
        ) : status === 'live' ? (
          'no new receipts'
        ) : null}
      </span>
      {detail && status !== 'live' ? <span className="live-indicator__detail">{detail}</span> : null}
    </div>
  );
}
