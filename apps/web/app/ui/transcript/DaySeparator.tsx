'use client';

import { formatRelative } from '@/lib/format';
import { localDay, localDayKey } from '@/lib/local-time';
import { useNow } from '@/lib/use-now';
import './transcript.css';

/**
 * "Friday, 20 November 2026 · 3 d ago" before the first message of each calendar day in the
 * viewer's time zone. Days depend on the zone, which only the browser knows: nothing is drawn
 * until it runs.
 */
export function DaySeparator({ iso, previousIso }: { iso: string; previousIso: string | null }) {
  const now = useNow();
  if (now === null) return null;
  if (previousIso !== null && localDayKey(previousIso) === localDayKey(iso)) return null;
  return (
    <p className="day-separator" data-day-separator>
      <time dateTime={iso}>{localDay(iso)}</time>
      <span className="day-separator__relative">{formatRelative(iso, now, () => '')}</span>
    </p>
  );
}
