'use client';

import { formatDateTime, formatTime } from '@/lib/format';
import { localFull, localTime } from '@/lib/local-time';
import { useNow } from '@/lib/use-now';

/** The time of day a message was written, in the viewer's zone (UTC until the browser takes over). */
export function MessageTime({ iso }: { iso: string }) {
  const now = useNow();
  return (
    <time dateTime={iso} title={now === null ? formatDateTime(iso) : localFull(iso)}>
      {now === null ? `${formatTime(iso)} UTC` : localTime(iso)}
    </time>
  );
}
