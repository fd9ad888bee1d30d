'use client';

import { useRouter } from 'next/navigation';
import { useEffect } from 'react';

/**
 * The server renders periods in the zone the URL names (`tz`); a first visit names none, so the
 * browser's own zone is put in the URL once (a replace, not a new history entry). A URL that names
 * a zone is kept as it is: a shared link shows what it says.
 */
export function ZoneSync({ zone }: { zone: string | undefined }) {
  const router = useRouter();
  useEffect(() => {
    if (zone) return;
    const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (!browserZone || browserZone === 'UTC') return;
    const url = new URL(window.location.href);
    if (url.searchParams.has('tz')) return;
    url.searchParams.set('tz', browserZone);
    router.replace(`${url.pathname}${url.search}${url.hash}`, { scroll: false });
  }, [zone, router]);
  return null;
}
