import { z } from 'zod';
import { CursorSchema, IdSchema, IsoDateSchema, LimitSchema, ProfileNameSchema, pageOf } from './common.schema.js';

/** Delivery obligations: what a gateway owes a chat (docs/domain.md §11). */
export const DELIVERY_STATES = ['pending', 'claimed', 'delivered', 'abandoned'] as const;
export const DeliveryStateSchema = z.enum(DELIVERY_STATES);
export type DeliveryState = z.infer<typeof DeliveryStateSchema>;
export const DELIVERY_MAX_ATTEMPTS_DEFAULT = 5;
export const ABANDONED_REASONS = ['attempts_exhausted', 'permanent_failure', 'session_deleted', 'expired'] as const;
export type AbandonedReason = (typeof ABANDONED_REASONS)[number];
export const DELIVERY_LEASE_DEFAULT_SECONDS = 60;

export const CreateDeliveryRequestSchema = z
  .object({
    id: IdSchema.describe('caller-chosen: a retry with the same id and content returns the existing obligation'),
    sessionId: IdSchema,
    transportProfile: z.string().min(1).max(128).optional().describe('which bot or adapter must deliver it'),
    payload: z.record(z.string(), z.unknown()).describe('what to deliver (the reply, its platform target, …)'),
    maxAttempts: z.number().int().min(1).max(100).default(DELIVERY_MAX_ATTEMPTS_DEFAULT),
  })
  .strict()
  .meta({
    examples: [
      {
        id: 'reply-s-20261130-0001-1042',
        sessionId: 's-20261130-0001',
        transportProfile: 'telegram-main',
        payload: { chatId: '42', text: 'Two meetings: 09:00 stand-up and 14:00 design review.' },
      },
    ],
  });
export type CreateDeliveryRequest = z.infer<typeof CreateDeliveryRequestSchema>;

export const DeliverySchema = z.object({
  id: IdSchema,
  profile: z.string(),
  sessionId: z.string(),
  transportProfile: z.string().nullable(),
  payload: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe('null once abandoned because its session was deleted (the content goes with the session)'),
  state: DeliveryStateSchema.describe('`claimed` only while the claim is live; an expired claim reads as pending'),
  attempts: z.number().int().describe('claims taken so far'),
  maxAttempts: z.number().int(),
  claim: z
    .object({ claimId: z.string(), holder: z.string(), expiresAt: IsoDateSchema })
    .nullable()
    .describe('the live claim, if any'),
  lastError: z.string().nullable(),
  abandonedReason: z
    .enum(ABANDONED_REASONS)
    .nullable()
    .describe(
      'attempts_exhausted: the last allowed attempt failed; permanent_failure: a failure reported as not retryable; session_deleted: its session was deleted; expired: imported pending but older than the redelivery window',
    ),
  createdAt: IsoDateSchema,
  updatedAt: IsoDateSchema,
  deliveredAt: IsoDateSchema.nullable(),
});
export type Delivery = z.infer<typeof DeliverySchema>;

export const ListDeliveriesQuerySchema = z.object({
  profile: ProfileNameSchema.optional(),
  sessionId: IdSchema.optional(),
  state: DeliveryStateSchema.optional(),
  limit: LimitSchema,
  cursor: CursorSchema.optional(),
});
export type ListDeliveriesQuery = z.infer<typeof ListDeliveriesQuerySchema>;
export const DeliveryPageSchema = pageOf(DeliverySchema);
export type DeliveryPage = z.infer<typeof DeliveryPageSchema>;

const LeaseSeconds = z.number().int().min(1).max(3600).default(DELIVERY_LEASE_DEFAULT_SECONDS);
const Holder = z.string().min(1).max(128).describe('who delivers (worker id, host:pid, …)');

export const ClaimDeliveryRequestSchema = z.object({ holder: Holder, leaseSeconds: LeaseSeconds }).strict();
export type ClaimDeliveryRequest = z.infer<typeof ClaimDeliveryRequestSchema>;

export const ClaimNextDeliveriesRequestSchema = z
  .object({
    holder: Holder,
    leaseSeconds: LeaseSeconds,
    profile: ProfileNameSchema.optional(),
    transportProfile: z.string().min(1).max(128).optional().describe('only obligations for this bot or adapter'),
    limit: z.number().int().min(1).max(100).default(10),
  })
  .strict();
export type ClaimNextDeliveriesRequest = z.infer<typeof ClaimNextDeliveriesRequestSchema>;
export const ClaimedDeliveriesSchema = z.object({ items: z.array(DeliverySchema) });
export type ClaimedDeliveries = z.infer<typeof ClaimedDeliveriesSchema>;

export const SettleDeliveryRequestSchema = z.object({ claimId: z.string().min(1).max(128) }).strict();
export type SettleDeliveryRequest = z.infer<typeof SettleDeliveryRequestSchema>;

export const FailDeliveryRequestSchema = z
  .object({
    claimId: z.string().min(1).max(128),
    error: z.string().min(1).max(2000),
    retryable: z.boolean().default(true).describe('false abandons the obligation at once'),
  })
  .strict();
export type FailDeliveryRequest = z.infer<typeof FailDeliveryRequestSchema>;
