import type { Executor } from '../db/database.js';
import { GatewayRepository } from '../repositories/gateway.repository.js';
import { ValidationError } from '../shared/errors.js';

const gateways = new GatewayRepository();

/**
 * The owner stamp of a session taken over by a gateway (create, resolve, turns): the gateway id and
 * the incarnation it runs now. Only a gateway registered in the session's profile can own it.
 */
export async function gatewayOwnership(
  db: Executor,
  gatewayId: string,
  profile: string,
): Promise<{ gateway_id: string; gateway_started_at: number }> {
  const gateway = await gateways.find(db, gatewayId);
  if (!gateway || gateway.profile !== profile) {
    throw new ValidationError(
      `gateway ${gatewayId} is not registered in profile ${profile}: send its heartbeat (PUT /v1/gateways/${gatewayId}/heartbeat) first`,
    );
  }
  return { gateway_id: gateway.id, gateway_started_at: Number(gateway.started_at) };
}
