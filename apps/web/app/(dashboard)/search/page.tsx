import type { Metadata } from 'next';
import { ApiErrorAlert, Card, EmptyState, PageHeader, QueryIssuesAlert } from '@/app/ui/common';
import { PeriodControl } from '@/app/ui/period/PeriodControl';
import { SearchForm } from '@/app/ui/search/SearchForm';
import { SearchResults } from '@/app/ui/search/SearchResults';
import { getSessionFacets, searchMessages } from '@/lib/api';
import { attempt } from '@/lib/attempt';
import { choicesOf } from '@/lib/facets';
import type { RawSearchParams } from '@/lib/paths';
import { periodLabel } from '@/lib/period';
import { parseSearchState, SEARCH_PERIOD, searchPeriod } from '@/lib/search-state';

export const metadata: Metadata = { title: 'Search' };

/** Full-text search over every visible message the principal can see. */
export default async function SearchPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const state = parseSearchState(await searchParams);
  const { raw } = state;
  const period = searchPeriod(raw);
  const { period: _period, from: _from, to: _to, tz: _tz, cursor: _cursor, ...kept } = raw;
  const [result, facets] = await Promise.all([
    raw.q && state.ok ? attempt(() => searchMessages(state.query)) : null,
    attempt(() => getSessionFacets({ profile: raw.profile })),
  ]);

  return (
    <>
      <PageHeader
        title="Search"
        description={`Every visible message${raw.profile ? ` in profile ${raw.profile}` : ''}${period.key === SEARCH_PERIOD ? '' : ` written in ${periodLabel(period)}`}: words, phrases, or any fragment of Chinese, Japanese or Korean text.`}
      />

      <PeriodControl
        period={period}
        fallback={SEARCH_PERIOD}
        action="/search"
        keep={kept}
        urlZone={raw.tz}
        zoneTestId="date-zone"
      />

      <Card>
        <SearchForm raw={raw} choices={choicesOf(facets.ok ? facets.value : null)} />
      </Card>

      {!raw.q ? (
        <Card>
          <EmptyState
            icon="⌕"
            title="Search every conversation"
            description="Matches are highlighted; open a result to read it in its transcript."
          />
        </Card>
      ) : !state.ok ? (
        <QueryIssuesAlert title="This search is not valid" issues={state.issues} />
      ) : result && !result.ok ? (
        <ApiErrorAlert error={result.error} title="Search failed" />
      ) : result?.ok ? (
        <SearchResults raw={raw} query={state.query} response={result.value} />
      ) : null}
    </>
  );
}
