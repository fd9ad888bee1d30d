import type { Metadata } from 'next';
import { ApiErrorAlert, Card, PageHeader, QueryIssuesAlert } from '@/app/ui/common';
import { LabelFilter } from '@/app/ui/labels/LabelFilter';
import { LiveSessions } from '@/app/ui/live/LiveSessions';
import { PeriodControl } from '@/app/ui/period/PeriodControl';
import { SessionFilters } from '@/app/ui/sessions/SessionFilters';
import { SessionResults } from '@/app/ui/sessions/SessionResults';
import { getSessionFacets, listLabels, listSessions } from '@/lib/api';
import { attempt } from '@/lib/attempt';
import { choicesOf } from '@/lib/facets';
import type { RawSearchParams } from '@/lib/paths';
import { periodLabel } from '@/lib/period';
import {
  parseSessionListState,
  periodKeepOfList,
  SESSION_LIST_PERIOD,
  sessionListPeriod,
} from '@/lib/session-list-state';

export const metadata: Metadata = { title: 'Sessions' };

/** One row per logical conversation; filters, cursor and profile live in the URL. */
export default async function SessionsPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const state = parseSessionListState(await searchParams);
  const { raw } = state;
  const period = sessionListPeriod(raw);
  const profile = raw.profile;
  const [result, facets, labels] = await Promise.all([
    state.ok ? attempt(() => listSessions(state.query)) : null,
    attempt(() => getSessionFacets({ profile: raw.profile })),
    profile ? attempt(() => listLabels(profile)) : null,
  ]);
  const profileLabels = labels?.ok ? labels.value.items : [];

  return (
    <>
      <PageHeader
        title="Sessions"
        description={
          <>
            {raw.profile ? (
              <>
                Conversations in profile <strong>{raw.profile}</strong>
              </>
            ) : (
              'Conversations across all your profiles'
            )}
            , one row per logical conversation
            {period.key === SESSION_LIST_PERIOD ? '' : `, active in ${periodLabel(period)}`}.
          </>
        }
      />

      <PeriodControl
        period={period}
        fallback={SESSION_LIST_PERIOD}
        action="/sessions"
        keep={periodKeepOfList(raw)}
        urlZone={raw.tz}
      />
      <LiveSessions profile={raw.profile ?? null} />

      <Card>
        <SessionFilters raw={raw} choices={choicesOf(facets.ok ? facets.value : null)} />
        <LabelFilter raw={raw} labels={profileLabels} />
      </Card>

      {!state.ok ? (
        <QueryIssuesAlert
          title="These filters are not valid"
          issues={state.issues}
          reset={{ href: '/sessions', label: 'Reset filters' }}
        />
      ) : result && !result.ok ? (
        <ApiErrorAlert error={result.error} title="Sessions could not be loaded" />
      ) : result?.ok ? (
        <SessionResults page={result.value} raw={raw} labels={profileLabels} />
      ) : null}
    </>
  );
}
