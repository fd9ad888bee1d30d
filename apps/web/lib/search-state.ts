import { type SearchHit, type SearchQuery, SearchQuerySchema } from '@statehouse/contracts';
import { inclusiveEnd } from './dates';
import { listState, type QueryState } from './params';

/** The search page's URL: the query, its filters (dates included) and the cursor. */
export const SEARCH_KEYS = ['q', 'profile', 'source', 'role', 'mode', 'from', 'to', 'cursor'] as const;
export type SearchKey = (typeof SEARCH_KEYS)[number];
export type SearchRaw = Partial<Record<SearchKey, string>>;
export type SearchState = QueryState<SearchKey, SearchQuery>;

const search = listState('/search', SEARCH_KEYS, SearchQuerySchema, {
  labels: { q: 'Search for', source: 'Source', role: 'Role', mode: 'Match', from: 'From', to: 'Until', cursor: 'Page' },
  prepare: (raw) => ({ ...raw, to: inclusiveEnd(raw.to) }),
});
export const parseSearchState = search.parse;
export const searchHref = search.href;

export interface HitGroup {
  /** The conversation (its compression tip) the hits belong to. */
  tipSessionId: string;
  title: string | null;
  hits: SearchHit[];
}

/** Hits of one page grouped by conversation, in the order each conversation first appears (by rank). */
export function groupHits(hits: SearchHit[]): HitGroup[] {
  const groups = new Map<string, HitGroup>();
  for (const hit of hits) {
    let group = groups.get(hit.tipSessionId);
    if (!group) {
      group = { tipSessionId: hit.tipSessionId, title: hit.tipSessionTitle ?? hit.sessionTitle, hits: [] };
      groups.set(hit.tipSessionId, group);
    }
    group.hits.push(hit);
  }
  return [...groups.values()];
}
