import type { Metadata } from 'next';
import { Alert, PageHeader } from '@/app/ui/common';
import { OverviewCharts } from '@/app/ui/overview/OverviewCharts';
import { PeriodPicker } from '@/app/ui/overview/PeriodPicker';
import { SummaryCards } from '@/app/ui/overview/SummaryCards';
import { getMe } from '@/lib/api';
import { attempt } from '@/lib/attempt';
import { OVERVIEW_PERIODS, parseOverviewState } from '@/lib/overview';
import type { RawSearchParams } from '@/lib/paths';

export const metadata: Metadata = { title: 'Overview' };

/** Activity at a glance for a period and profile (both in the URL): figures, then charts. */
export default async function OverviewPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const state = parseOverviewState(await searchParams);
  const me = await attempt(getMe);
  const admin = me.ok && me.value.role === 'admin';
  return (
    <>
      <PageHeader
        title="Overview"
        description={
          <>
            The last {OVERVIEW_PERIODS[state.period].label}
            {state.profile ? (
              <>
                {' '}
                in profile <strong>{state.profile}</strong>
              </>
            ) : (
              ' across all your profiles'
            )}
            . Days and hours are UTC.
          </>
        }
        actions={<PeriodPicker period={state.period} profile={state.profile} />}
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
      <SummaryCards range={state.range} />
      <OverviewCharts range={state.range} admin={admin} />
    </>
  );
}
