import {
  type ApiToken,
  ApiTokenSchema,
  type CreatedToken,
  CreatedTokenSchema,
  type CreateTokenRequest,
} from '@statehouse/contracts';
import { arrayOf, request, send } from './client';

/** `/v1/tokens`: API tokens for agent runtimes and gateways (administrators only). */

export function listTokens(): Promise<ApiToken[]> {
  return request('GET /v1/tokens', arrayOf(ApiTokenSchema), (api) => api.GET('/v1/tokens'));
}

/** The secret is in this answer only; the API keeps its hash. */
export function createToken(body: CreateTokenRequest): Promise<CreatedToken> {
  return request('POST /v1/tokens', CreatedTokenSchema, (api) => api.POST('/v1/tokens', { body }));
}

export async function revokeToken(id: string): Promise<void> {
  await send((api) => api.DELETE('/v1/tokens/{id}', { params: { path: { id } } }));
}
