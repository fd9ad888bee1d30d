import { type ListRoutesQuery, type RoutePage, RoutePageSchema } from '@statehouse/contracts';
import { request } from './client';

/** `/v1/routes`: the gateway routing index, keyset paged. */

export type RouteListParams = Partial<ListRoutesQuery>;

export function listRoutes(params: RouteListParams): Promise<RoutePage> {
  return request('GET /v1/routes', RoutePageSchema, (api) => api.GET('/v1/routes', { params: { query: params } }));
}
