import { type LineageResponse, LineageResponseSchema } from '@statehouse/contracts';
import { request, sessionPath } from './client';

/** `/v1/sessions/:id/lineage`: the bounded lineage tree around one session. */
export function getLineage(id: string): Promise<LineageResponse> {
  return request(`${sessionPath(id)}/lineage`, LineageResponseSchema);
}
