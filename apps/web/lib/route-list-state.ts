import { ListRoutesQuerySchema } from '@statehouse/contracts';
import { listState } from './params';

/** The routes page's URL: profile, an optional session, page size and cursor. */
export const ROUTE_LIST_KEYS = ['profile', 'sessionId', 'limit', 'cursor'] as const;
export type RouteListKey = (typeof ROUTE_LIST_KEYS)[number];
export type RouteListRaw = Partial<Record<RouteListKey, string>>;

const routeList = listState('/routes', ROUTE_LIST_KEYS, ListRoutesQuerySchema, {
  labels: { profile: 'Profile', sessionId: 'Session', limit: 'Page size', cursor: 'Page' },
});
export const parseRouteListState = routeList.parse;
export const routeListHref = routeList.href;
