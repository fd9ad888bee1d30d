import { z } from 'zod';
import {
  CursorSchema,
  IdSchema,
  IsoDateSchema,
  JsonObjectSchema,
  LimitSchema,
  ProfileNameSchema,
  pageOf,
  QueryBooleanSchema,
  utf8Bytes,
} from './common.schema.js';

/**
 * Async delegations (docs/domain.md §12): sub-agent work started asynchronously, whose outcome must
 * wake the session that started it (the origin) — exactly once, across restarts.
 *
 * `running` → `done` | `failed` (the work's outcome) → `delivered` (the origin's gateway
 * acknowledged the wake-up). `abandoned` when the origin session is deleted before it was woken.
 */
export const DELEGATION_STATES = ['running', 'done', 'failed', 'delivered', 'abandoned'] as const;
export const DelegationStateSchema = z.enum(DELEGATION_STATES);
export type DelegationState = z.infer<typeof DelegationStateSchema>;
/** Not yet delivered to the origin: what a deletion of the origin abandons. */
export const DELEGATION_OWED_STATES = ['running', 'done', 'failed'] as const;
/** Finished and not yet delivered: due to wake the origin. */
export const DELEGATION_DUE_STATES = ['done', 'failed'] as const;
export const DELEGATION_ABANDONED_REASONS = ['origin_deleted'] as const;
/** The error a delegation fails with when its child session is deleted before it was delivered. */
export const DELEGATION_CHILD_DELETED = 'child_deleted';

export const DELEGATION_SUMMARY_MAX_LENGTH = 16_000;
export const DELEGATION_ERROR_MAX_LENGTH = 2000;
export const DELEGATION_TASK_MAX_BYTES = 16 * 1024;
export const DELEGATION_LEASE_DEFAULT_SECONDS = 60;

const TaskSchema = JsonObjectSchema.refine((value) => utf8Bytes(JSON.stringify(value)) <= DELEGATION_TASK_MAX_BYTES, {
  message: `task must serialise to at most ${DELEGATION_TASK_MAX_BYTES} bytes`,
}).describe('what was asked of the sub-agent (goal, context, toolsets, …), kept as given');

export const CreateDelegationRequestSchema = z
  .object({
    id: IdSchema.describe('caller-chosen: a retry with the same id and content returns the existing delegation'),
    originSessionId: IdSchema.describe('the session the outcome must wake (the delegation belongs to its profile)'),
    childSessionId: IdSchema.optional().describe('the sub-agent session doing the work, when it exists already'),
    task: TaskSchema.optional(),
  })
  .strict();
export type CreateDelegationRequest = z.infer<typeof CreateDelegationRequestSchema>;

export const DelegationSchema = z.object({
  id: IdSchema,
  profile: z.string(),
  originSessionId: z.string(),
  childSessionId: z.string().nullable(),
  state: DelegationStateSchema,
  task: JsonObjectSchema.nullable().describe('null once erased with the origin session'),
  resultSummary: z
    .string()
    .nullable()
    .describe('what the sub-agent produced (bounded); erased when the origin or the child session is deleted'),
  error: z.string().nullable().describe('why it failed (`child_deleted`: its child session was deleted first)'),
  abandonedReason: z
    .enum(DELEGATION_ABANDONED_REASONS)
    .nullable()
    .describe('origin_deleted: the origin session was deleted before it was woken'),
  due: z.boolean().describe('finished (done or failed), not delivered, and no live claim: the origin is to be woken'),
  wakeAttempts: z.number().int().describe('claims taken to wake the origin so far'),
  claim: z
    .object({ claimId: z.string(), holder: z.string(), expiresAt: IsoDateSchema })
    .nullable()
    .describe('the live claim of the wake-up, if any'),
  createdAt: IsoDateSchema.describe('when the work was dispatched'),
  updatedAt: IsoDateSchema,
  completedAt: IsoDateSchema.nullable(),
  deliveredAt: IsoDateSchema.nullable(),
});
export type Delegation = z.infer<typeof DelegationSchema>;

export const ListDelegationsQuerySchema = z.object({
  profile: ProfileNameSchema.optional(),
  originSessionId: IdSchema.optional(),
  childSessionId: IdSchema.optional(),
  state: DelegationStateSchema.optional(),
  due: QueryBooleanSchema.optional().describe('true: only those due to wake their origin (oldest finished first)'),
  limit: LimitSchema,
  cursor: CursorSchema.optional(),
});
export type ListDelegationsQuery = z.infer<typeof ListDelegationsQuerySchema>;
export const DelegationPageSchema = pageOf(DelegationSchema);
export type DelegationPage = z.infer<typeof DelegationPageSchema>;

export const CompleteDelegationRequestSchema = z
  .object({
    childSessionId: IdSchema.optional().describe('the sub-agent session, if not named before'),
    resultSummary: z.string().max(DELEGATION_SUMMARY_MAX_LENGTH).optional(),
  })
  .strict();
export type CompleteDelegationRequest = z.infer<typeof CompleteDelegationRequestSchema>;

export const FailDelegationRequestSchema = z
  .object({
    childSessionId: IdSchema.optional().describe('the sub-agent session, if not named before'),
    error: z.string().min(1).max(DELEGATION_ERROR_MAX_LENGTH),
  })
  .strict();
export type FailDelegationRequest = z.infer<typeof FailDelegationRequestSchema>;

const LeaseSeconds = z.number().int().min(1).max(3600).default(DELEGATION_LEASE_DEFAULT_SECONDS);
const Holder = z.string().min(1).max(128).describe('who wakes the origin (gateway id, worker id, host:pid, …)');

export const ClaimDelegationRequestSchema = z.object({ holder: Holder, leaseSeconds: LeaseSeconds }).strict();
export type ClaimDelegationRequest = z.infer<typeof ClaimDelegationRequestSchema>;

export const ClaimDueDelegationsRequestSchema = z
  .object({
    holder: Holder,
    leaseSeconds: LeaseSeconds,
    profile: ProfileNameSchema.optional(),
    originSessionId: IdSchema.optional().describe('only wake-ups of this origin session'),
    limit: z.number().int().min(1).max(100).default(10),
  })
  .strict();
export type ClaimDueDelegationsRequest = z.infer<typeof ClaimDueDelegationsRequestSchema>;
export const ClaimedDelegationsSchema = z.object({ items: z.array(DelegationSchema) });
export type ClaimedDelegations = z.infer<typeof ClaimedDelegationsSchema>;

export const SettleDelegationRequestSchema = z.object({ claimId: z.string().min(1).max(128) }).strict();
export type SettleDelegationRequest = z.infer<typeof SettleDelegationRequestSchema>;
