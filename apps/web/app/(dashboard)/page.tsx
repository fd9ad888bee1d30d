import type { Metadata } from 'next';
import { Alert, PageHeader } from '@/app/ui/common';
import { OverviewCharts } from '@/app/ui/overview/OverviewCharts';
import { SummaryCards } from '@/app/ui/overview/SummaryCards';
import { PeriodControl } from '@/app/ui/period/PeriodControl';
import { getMe, getStatsExtent } from '@/lib/api';
import { attempt } from '@/lib/attempt';
import { DEFAULT_PERIOD, overviewRange, parseOverviewState } from '@/lib/overview';
import type { RawSearchParams } from '@/lib/paths';
import { periodInstants, periodLabel } from '@/lib/period';

export const metadata: Metadata = { title: 'Overview' };

/** Activity at a glance for a period and profile (both in the URL): figures, then charts. */
export default async function OverviewPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const state = parseOverviewState(await searchParams);
  const now = Date.now();
  // An open start ("all time", a custom range without a first day) begins where the figures do.
  const openStart = periodInstants(state.period, now).from === undefined;
  const [me, extent] = await Promise.all([
    attempt(getMe),
    openStart ? attempt(() => getStatsExtent({ profile: state.profile })) : null,
  ]);
  const admin = me.ok && me.value.role === 'admin';
  const range = overviewRange(state, now, extent?.ok ? extent.value.first : null);
  return (
    <>
      <PageHeader
        title="Overview"
        description={
          <>
            {periodLabel(state.period).replace(/^./, (first) => first.toUpperCase())}
            {state.profile ? (
              <>
                {' '}
                in profile <strong>{state.profile}</strong>
              </>
            ) : (
              ' across all your profiles'
            )}
            , by {range.bucket} in {range.timeZone}.
          </>
        }
      />
      <PeriodControl
        period={state.period}
        fallback={DEFAULT_PERIOD}
        action="/"
        keep={{ profile: state.profile }}
        urlZone={state.raw.tz}
      />
      {state.issues.length > 0 ? (
        <Alert tone="warning" title="Part of this address was ignored">
          <ul>
            {state.issues.map((issue) => (
              <li key={issue}>{issue}</li>
            ))}
          </ul>
        </Alert>
      ) : null}
      <SummaryCards range={range} />
      <OverviewCharts range={range} admin={admin} />
    </>
  );
}
