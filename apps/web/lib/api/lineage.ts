import { type LineageResponse, LineageResponseSchema } from '@statehouse/contracts';
import { request } from './client';

/** `/v1/sessions/:id/lineage`: the bounded lineage tree around one session. */
export function getLineage(id: string): Promise<LineageResponse> {
  return request('GET /v1/sessions/{id}/lineage', LineageResponseSchema, (api) =>
    api.GET('/v1/sessions/{id}/lineage', { params: { path: { id } } }),
  );
}
