import { type ListRoutesQuery, ListRoutesQuerySchema } from '@statehouse/contracts';
import { parseQueryState, type QueryState } from './params';
import { hrefWith, type RawSearchParams } from './paths';

/** The routes page's URL: profile, an optional session, page size and cursor. */
export const ROUTE_LIST_KEYS = ['profile', 'sessionId', 'limit', 'cursor'] as const;
export type RouteListKey = (typeof ROUTE_LIST_KEYS)[number];
export type RouteListRaw = Partial<Record<RouteListKey, string>>;
export type RouteListState = QueryState<RouteListKey, ListRoutesQuery>;

export function parseRouteListState(searchParams: RawSearchParams): RouteListState {
  return parseQueryState(searchParams, ROUTE_LIST_KEYS, ListRoutesQuerySchema);
}

/** The list URL with some keys changed; `null` removes a key. */
export function routeListHref(raw: RouteListRaw, changes: Partial<Record<RouteListKey, string | null>> = {}) {
  return hrefWith('/routes', { ...raw, ...changes });
}
