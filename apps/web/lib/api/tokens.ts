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
  return request('/v1/tokens', arrayOf(ApiTokenSchema));
}

/** The secret is in this answer only; the API keeps its hash. */
export function createToken(body: CreateTokenRequest): Promise<CreatedToken> {
  return request('/v1/tokens', CreatedTokenSchema, { method: 'POST', body });
}

export async function revokeToken(id: string): Promise<void> {
  await send(`/v1/tokens/${encodeURIComponent(id)}`, { method: 'DELETE' });
}
