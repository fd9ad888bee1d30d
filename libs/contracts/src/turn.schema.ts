import { z } from 'zod';
import { IdSchema, IsoDateSchema } from './common.schema.js';

export const TURN_TTL_DEFAULT_SECONDS = 60;
export const TURN_TTL_MAX_SECONDS = 3600;

/** The live turn lease shown on a session (null when no lease is live). */
export const TurnLeaseSchema = z.object({
  turnId: z.string(),
  holder: z.string(),
  expiresAt: IsoDateSchema,
});
export type TurnLease = z.infer<typeof TurnLeaseSchema>;

export const BeginTurnRequestSchema = z
  .object({
    holder: z.string().min(1).max(128).describe('who runs the turn (worker id, host:pid, …)'),
    ttlSeconds: z.number().int().min(1).max(TURN_TTL_MAX_SECONDS).default(TURN_TTL_DEFAULT_SECONDS),
    gatewayId: IdSchema.optional().describe('the registered gateway process running the turn: it becomes the owner'),
  })
  .strict()
  .meta({ examples: [{ holder: 'gw-eu-1:4242', ttlSeconds: 60, gatewayId: 'gw-eu-1' }] });
export type BeginTurnRequest = z.infer<typeof BeginTurnRequestSchema>;

export const RenewTurnRequestSchema = z
  .object({ ttlSeconds: z.number().int().min(1).max(TURN_TTL_MAX_SECONDS).default(TURN_TTL_DEFAULT_SECONDS) })
  .strict();
export type RenewTurnRequest = z.infer<typeof RenewTurnRequestSchema>;

export const TurnSchema = z
  .object({
    turnId: z.string(),
    holder: z.string(),
    generation: z.number().int().describe('the fencing token: present it as X-Expected-Generation'),
    revision: z.number().int(),
    expiresAt: IsoDateSchema,
  })
  .meta({
    examples: [
      {
        turnId: 'turn-01J9Z6Q4',
        holder: 'gw-eu-1:4242',
        generation: 3,
        revision: 8,
        expiresAt: '2026-11-30T08:01:00.000Z',
      },
    ],
  });
export type Turn = z.infer<typeof TurnSchema>;
