import { type SearchQuery, type SearchResponse, SearchResponseSchema } from '@statehouse/contracts';
import { request } from './client';

/** `/v1/search`: full-text search over visible messages. */

export type SearchParams = Partial<SearchQuery> & Pick<SearchQuery, 'q'>;

export function searchMessages(params: SearchParams): Promise<SearchResponse> {
  return request('/v1/search', SearchResponseSchema, { query: { ...params } });
}
