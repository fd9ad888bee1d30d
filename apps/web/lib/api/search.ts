import { type SearchQuery, type SearchResponse, SearchResponseSchema } from '@statehouse/contracts';
import { request, wireQuery } from './client';

/** `/v1/search`: full-text search over visible messages. */

/** The dashboard narrows by one surface and one role; the list forms (`sources`, `roles`) are for runtimes. */
export type SearchParams = Partial<Omit<SearchQuery, 'sources' | 'excludeSources' | 'roles'>> & Pick<SearchQuery, 'q'>;

export function searchMessages(params: SearchParams): Promise<SearchResponse> {
  const { source, excludeSource, label, ...rest } = params;
  // Surface lists travel comma-separated; `excludeSource: []` (exclude none) is sent as an empty value.
  const excluded = excludeSource === undefined ? undefined : excludeSource.length ? excludeSource.join(',') : ',';
  const query = wireQuery({ ...rest, source: source?.join(','), excludeSource: excluded, label: label?.join(',') });
  return request('GET /v1/search', SearchResponseSchema, (api) => api.GET('/v1/search', { params: { query } }));
}
