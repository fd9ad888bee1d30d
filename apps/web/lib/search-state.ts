import { type SearchQuery, SearchQuerySchema } from '@statehouse/contracts';
import { parseQueryState, type QueryState } from './params';
import { hrefWith, type RawSearchParams } from './paths';

/** The search page's URL: the query, its filters and the cursor. */
export const SEARCH_KEYS = ['q', 'profile', 'source', 'role', 'mode', 'cursor'] as const;
export type SearchKey = (typeof SEARCH_KEYS)[number];
export type SearchRaw = Partial<Record<SearchKey, string>>;
export type SearchState = QueryState<SearchKey, SearchQuery>;

export function parseSearchState(searchParams: RawSearchParams): SearchState {
  return parseQueryState(searchParams, SEARCH_KEYS, SearchQuerySchema);
}

/** The search URL with some keys changed; `null` removes a key. */
export function searchHref(raw: SearchRaw, changes: Partial<Record<SearchKey, string | null>> = {}) {
  return hrefWith('/search', { ...raw, ...changes });
}
