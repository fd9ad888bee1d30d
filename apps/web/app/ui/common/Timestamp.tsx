'use client';

import { formatDateTime, formatRelative } from '@/lib/format';
import { localDateTime, localFull } from '@/lib/local-time';
import { useNow } from '@/lib/use-now';

/**
 * A machine-readable time. The server renders it in UTC; in the browser it becomes relative
 * ("12 min ago", kept current) or the viewer's local date and time, with the full local date,
 * time and zone as its tooltip.
 */
export function Timestamp({
  iso,
  relative = true,
  className,
}: {
  iso: string;
  relative?: boolean;
  className?: string;
}) {
  const now = useNow();
  if (now === null) {
    return (
      <time dateTime={iso} title={formatDateTime(iso)} className={className}>
        {formatDateTime(iso)}
      </time>
    );
  }
  return (
    <time dateTime={iso} title={localFull(iso)} className={className}>
      {relative ? formatRelative(iso, now, localDateTime) : localDateTime(iso)}
    </time>
  );
}
