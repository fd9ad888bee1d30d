'use client';

import { useEffect, useState } from 'react';
import { UTC_ZONE } from '@/lib/dates';

/**
 * Sends the browser's time zone with a filter form (`tz`), so the dates picked are days in the
 * zone the page shows times in, and says which zone that is. The server renders the zone the URL
 * named (UTC when none): without JavaScript the days are UTC days, and the hint says so.
 */
export function DayZoneField({
  zone,
  hintId,
  testId = 'date-zone',
}: {
  zone: string | undefined;
  hintId: string;
  /** Tests find the hint by this (a page with two date forms names them apart). */
  testId?: string;
}) {
  const [current, setCurrent] = useState(zone ?? UTC_ZONE);
  useEffect(() => {
    const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (browserZone) setCurrent(browserZone);
  }, []);
  return (
    <>
      <input type="hidden" name="tz" value={current} />
      <p className="field__hint date-zone-hint" id={hintId} data-testid={testId}>
        Dates are whole days in {current === UTC_ZONE ? 'UTC' : `your time zone (${current})`}; “until” includes that
        day.
      </p>
    </>
  );
}
