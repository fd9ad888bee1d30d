import type { Metadata } from 'next';
import { ApiErrorAlert, Card, EmptyState, PageHeader, QueryIssuesAlert } from '@/app/ui/common';
import { SearchForm } from '@/app/ui/search/SearchForm';
import { SearchResults } from '@/app/ui/search/SearchResults';
import { getSessionFacets, searchMessages } from '@/lib/api';
import { attempt } from '@/lib/attempt';
import { choicesOf } from '@/lib/facets';
import type { RawSearchParams } from '@/lib/paths';
import { parseSearchState } from '@/lib/search-state';

export const metadata: Metadata = { title: 'Search' };

/** Full-text search over every visible message the principal can see. */
export default async function SearchPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const state = parseSearchState(await searchParams);
  const { raw } = state;
  const [result, facets] = await Promise.all([
    raw.q && state.ok ? attempt(() => searchMessages(state.query)) : null,
    attempt(() => getSessionFacets({ profile: raw.profile })),
  ]);

  return (
    <>
      <PageHeader
        title="Search"
        description={`Every visible message${raw.profile ? ` in profile ${raw.profile}` : ''}: words, phrases, or any fragment of Chinese, Japanese or Korean text.`}
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
