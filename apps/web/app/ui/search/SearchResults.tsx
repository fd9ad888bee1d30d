import type { SearchQuery, SearchResponse } from '@statehouse/contracts';
import { Alert, Badge, ButtonLink, EmptyState, Pagination, ResultsCard } from '@/app/ui/common';
import { groupHits, type SearchRaw, searchHref, searchSummary } from '@/lib/search-state';
import { HitGroupItem } from './HitGroupItem';
import './search.css';

/** One page of hits, with the index that answered and a warning while search is degraded. */
export function SearchResults({
  raw,
  query,
  response,
}: {
  raw: SearchRaw;
  query: SearchQuery;
  response: SearchResponse;
}) {
  return (
    <ResultsCard
      liveToolbar
      toolbar={
        <>
          <span data-testid="search-summary">
            {searchSummary(response, query.q, Boolean(raw.cursor || response.nextCursor))}
          </span>
          <Badge title="The index that answered">{response.mode === 'word' ? 'word index' : 'substring index'}</Badge>
        </>
      }
      pager={
        raw.cursor || response.nextCursor ? (
          <Pagination
            label="Search result pages"
            firstHref={raw.cursor ? searchHref(raw, { cursor: null }) : null}
            nextHref={response.nextCursor ? searchHref(raw, { cursor: response.nextCursor }) : null}
            firstLabel="First results"
            nextLabel="More results →"
          />
        ) : null
      }
    >
      {response.degraded ? (
        <div className="results-toolbar">
          <Alert tone="warning" title="Search is degraded">
            The search index is being rebuilt; results come from a bounded scan and may be incomplete.
          </Alert>
        </div>
      ) : null}
      {response.items.length === 0 ? (
        <EmptyState
          icon="⌕"
          title="No messages match"
          description="Try fewer words, another match mode, or all roles and profiles."
          action={
            raw.role || raw.source || raw.profile || raw.from || raw.to ? (
              <ButtonLink href={searchHref({ q: raw.q, mode: raw.mode })}>Search everywhere</ButtonLink>
            ) : null
          }
        />
      ) : (
        <ol className="hit-groups" aria-label="Conversations with results">
          {groupHits(response.items).map((group) => (
            <HitGroupItem key={group.tipSessionId} group={group} showProfile={!raw.profile} />
          ))}
        </ol>
      )}
    </ResultsCard>
  );
}
