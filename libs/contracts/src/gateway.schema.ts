import { z } from 'zod';
import {
  CursorSchema,
  IdSchema,
  InstantSchema,
  IsoDateSchema,
  LimitSchema,
  ProfileNameSchema,
  pageOf,
} from './common.schema.js';

/** `PUT /v1/gateways/:id/heartbeat`: a gateway process says it is alive (docs/domain.md §10). */
export const GatewayHeartbeatSchema = z
  .object({
    profile: ProfileNameSchema,
    host: z.string().min(1).max(255).describe('host name the process runs on'),
    pid: z
      .number()
      .int()
      .min(0)
      .max(2 ** 31),
    startedAt: InstantSchema.describe(
      'when this process started: a later value under the same id is a new incarnation, and rows owned by an older one are orphans',
    ),
  })
  .strict()
  .meta({ examples: [{ profile: 'alpha', host: 'gw-host-1', pid: 4242, startedAt: '2026-11-30T07:58:12Z' }] });
export type GatewayHeartbeat = z.infer<typeof GatewayHeartbeatSchema>;

export const GatewaySchema = z.object({
  id: IdSchema,
  profile: z.string(),
  host: z.string(),
  pid: z.number().int(),
  startedAt: IsoDateSchema,
  registeredAt: IsoDateSchema,
  lastSeenAt: IsoDateSchema,
  heartbeats: z.number().int(),
  alive: z.boolean().describe('a heartbeat arrived within the liveness window'),
  openSessions: z.number().int().describe('open sessions this gateway owns'),
});
export type Gateway = z.infer<typeof GatewaySchema>;

export const ListGatewaysQuerySchema = z.object({
  profile: ProfileNameSchema.optional(),
  limit: LimitSchema,
  cursor: CursorSchema.optional(),
});
export type ListGatewaysQuery = z.infer<typeof ListGatewaysQuerySchema>;
export const GatewayPageSchema = pageOf(GatewaySchema).extend({
  livenessWindowSeconds: z.number().int().describe('a gateway is alive while its last heartbeat is this recent'),
});
export type GatewayPage = z.infer<typeof GatewayPageSchema>;

/** What one liveness sweep did (both kinds of clean-up). */
export const LivenessSweepSchema = z.object({
  ran: z.boolean().describe('false when another process holds the sweep lease'),
  reapedIds: z.array(z.string()).describe('open sessions ended with startup_orphan_reap'),
  expiredHandoffIds: z.array(z.string()).describe('running handoffs marked failed (expired)'),
});
export type LivenessSweep = z.infer<typeof LivenessSweepSchema>;
