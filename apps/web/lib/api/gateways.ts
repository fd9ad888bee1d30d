import { type GatewayPage, GatewayPageSchema, type ListGatewaysQuery } from '@statehouse/contracts';
import { request } from './client';

/** `/v1/gateways`: gateway processes with last-seen and liveness (docs/domain.md §10), keyset paged. */

export type GatewayListParams = Partial<ListGatewaysQuery>;

export function listGateways(params: GatewayListParams): Promise<GatewayPage> {
  return request('GET /v1/gateways', GatewayPageSchema, (api) =>
    api.GET('/v1/gateways', { params: { query: params } }),
  );
}
