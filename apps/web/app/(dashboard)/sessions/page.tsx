import type { Metadata } from 'next';
import { ApiErrorAlert, Card, PageHeader, QueryIssuesAlert } from '@/app/ui/common';
import { SessionFilters } from '@/app/ui/sessions/SessionFilters';
import { SessionResults } from '@/app/ui/sessions/SessionResults';
import { getSessionFacets, listSessions } from '@/lib/api';
import { attempt } from '@/lib/attempt';
import { choicesOf } from '@/lib/facets';
import type { RawSearchParams } from '@/lib/paths';
import { parseSessionListState } from '@/lib/session-list-state';

export const metadata: Metadata = { title: 'Sessions' };

/** One row per logical conversation; filters, cursor and profile live in the URL. */
export default async function SessionsPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const state = parseSessionListState(await searchParams);
  const { raw } = state;
  const [result, facets] = await Promise.all([
    state.ok ? attempt(() => listSessions(state.query)) : null,
    attempt(() => getSessionFacets({ profile: raw.profile })),
  ]);

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
            , one row per logical conversation.
          </>
        }
      />

      <Card>
        <SessionFilters raw={raw} choices={choicesOf(facets.ok ? facets.value : null)} />
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
        <SessionResults page={result.value} raw={raw} />
      ) : null}
    </>
  );
}
