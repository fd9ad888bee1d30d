import { type SearchQuery, SearchQuerySchema } from '@statehouse/contracts';
import { listState, type QueryState } from './params';

/** The search page's URL: the query, its filters and the cursor. */
export const SEARCH_KEYS = ['q', 'profile', 'source', 'role', 'mode', 'cursor'] as const;
export type SearchKey = (typeof SEARCH_KEYS)[number];
export type SearchRaw = Partial<Record<SearchKey, string>>;
export type SearchState = QueryState<SearchKey, SearchQuery>;

const search = listState('/search', SEARCH_KEYS, SearchQuerySchema);
export const parseSearchState = search.parse;
export const searchHref = search.href;
