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

/**
 * Per-session scheduled wake-ups — heartbeats and loops (docs/domain.md §13). A schedule belongs to
 * a session, fires at `nextDueAt`, and is claimed and completed by the gateway that owns the
 * session its chat's route points at.
 */
export const SCHEDULE_KINDS = ['interval', 'cron'] as const;
export const ScheduleKindSchema = z.enum(SCHEDULE_KINDS);
export type ScheduleKind = z.infer<typeof ScheduleKindSchema>;

/** Why a schedule is not active (docs/domain.md §13.2); null while it is. */
export const SCHEDULE_INACTIVE_REASONS = ['disabled', 'session_ended', 'session_archived'] as const;
export type ScheduleInactiveReason = (typeof SCHEDULE_INACTIVE_REASONS)[number];

/**
 * Who fires it (docs/domain.md §13.3): `owned` — a route points at the session and the session
 * names its gateway; `unowned` — routed, but no gateway owns the session yet; `unroutable` — no
 * route points at the session, so no gateway may fire it.
 */
export const SCHEDULE_OWNERSHIPS = ['owned', 'unowned', 'unroutable'] as const;
export const ScheduleOwnershipSchema = z.enum(SCHEDULE_OWNERSHIPS);
export type ScheduleOwnership = z.infer<typeof ScheduleOwnershipSchema>;

/** Bounds (docs/api.md, Schedules). */
export const SCHEDULE_PAYLOAD_MAX_BYTES = 16 * 1024;
export const SCHEDULES_PER_SESSION_MAX = 100;
export const SCHEDULE_INTERVAL_MAX_SECONDS = 366 * 24 * 3600;
export const SCHEDULE_LEASE_DEFAULT_SECONDS = 60;
export const SCHEDULE_CLAIM_LIMIT_MAX = 100;

const jsonBytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;

const SchedulePayloadSchema = z
  .record(z.string(), z.unknown())
  .refine((value) => jsonBytes(value) <= SCHEDULE_PAYLOAD_MAX_BYTES, {
    message: `must be at most ${SCHEDULE_PAYLOAD_MAX_BYTES} bytes of JSON`,
  })
  .describe(`what the wake-up carries to the gateway (a JSON object, at most ${SCHEDULE_PAYLOAD_MAX_BYTES} bytes)`);

const IntervalSecondsSchema = z
  .number()
  .int()
  .min(1)
  .max(SCHEDULE_INTERVAL_MAX_SECONDS)
  .describe('interval schedules: seconds between ticks (1 s to 366 days)');

/** Five whitespace-separated fields (minute hour day-of-month month day-of-week); parsed by the server. */
const CronSchema = z
  .string()
  .trim()
  .max(200)
  .regex(/^\S+(\s+\S+){4}$/, 'must be a 5-field cron expression (minute hour day-of-month month day-of-week)')
  .describe('cron schedules: a 5-field expression, e.g. `*/15 9-17 * * 1-5`');

const isTimeZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
};
const TimeZoneSchema = z
  .string()
  .min(1)
  .max(64)
  .refine(isTimeZone, { message: 'must be an IANA time zone, e.g. Europe/Berlin' })
  .describe('cron schedules: the IANA time zone the expression is read in (default UTC)');

export const CreateScheduleRequestSchema = z
  .object({
    id: IdSchema.optional().describe('caller-chosen (unique across the store); minted by the server when absent'),
    kind: ScheduleKindSchema,
    intervalSeconds: IntervalSecondsSchema.optional(),
    cron: CronSchema.optional(),
    timeZone: TimeZoneSchema.optional(),
    payload: SchedulePayloadSchema.default({}),
    enabled: z.boolean().default(true),
    nextDueAt: InstantSchema.optional().describe(
      'the first tick (default: one interval from now, or the next cron match after now)',
    ),
  })
  .strict();
export type CreateScheduleRequest = z.infer<typeof CreateScheduleRequestSchema>;

export const UpdateScheduleRequestSchema = z
  .object({
    kind: ScheduleKindSchema.optional(),
    intervalSeconds: IntervalSecondsSchema.optional(),
    cron: CronSchema.optional(),
    timeZone: TimeZoneSchema.nullable().optional(),
    payload: SchedulePayloadSchema.optional(),
    enabled: z.boolean().optional(),
    nextDueAt: InstantSchema.optional().describe(
      'move the next tick (default when the timing changes: recomputed from now)',
    ),
  })
  .strict()
  .refine((value) => Object.keys(value).length > 0, { message: 'nothing to change' });
export type UpdateScheduleRequest = z.infer<typeof UpdateScheduleRequestSchema>;

export const ScheduleClaimSchema = z.object({
  generation: z.number().int().describe('the fencing token of this claim: present it to complete'),
  holder: z.string(),
  expiresAt: IsoDateSchema,
  dueAt: IsoDateSchema.describe('the tick this claim fires'),
});
export type ScheduleClaim = z.infer<typeof ScheduleClaimSchema>;

export const ScheduleSchema = z.object({
  id: IdSchema,
  sessionId: z.string().describe('the session it wakes (follows the conversation into compression and reset children)'),
  profile: z.string(),
  kind: ScheduleKindSchema,
  intervalSeconds: z.number().int().nullable(),
  cron: z.string().nullable(),
  timeZone: z.string().nullable(),
  payload: z.record(z.string(), z.unknown()),
  enabled: z.boolean(),
  nextDueAt: IsoDateSchema,
  lastFiredAt: IsoDateSchema.nullable(),
  revision: z.number().int().describe('+1 on every change of the definition or of its timing (If-Match)'),
  createdAt: IsoDateSchema,
  updatedAt: IsoDateSchema,
  active: z.boolean().describe('enabled, and its session open or ended only automatically, and not archived'),
  inactiveReason: z.enum(SCHEDULE_INACTIVE_REASONS).nullable(),
  owner: z.object({
    ownership: ScheduleOwnershipSchema,
    gatewayId: z.string().nullable().describe('the gateway that owns the routed session (null unless owned)'),
  }),
  claim: ScheduleClaimSchema.nullable().describe('the live claim, if any (a lapsed claim reads as none)'),
});
export type Schedule = z.infer<typeof ScheduleSchema>;

export const ListSessionSchedulesQuerySchema = z.object({ limit: LimitSchema, cursor: CursorSchema.optional() });
export type ListSessionSchedulesQuery = z.infer<typeof ListSessionSchedulesQuerySchema>;
export const SchedulePageSchema = pageOf(ScheduleSchema);
export type SchedulePage = z.infer<typeof SchedulePageSchema>;

export const ListSchedulesQuerySchema = z.object({
  profile: ProfileNameSchema,
  gatewayId: IdSchema.optional().describe('only the schedules this gateway owns'),
  limit: LimitSchema,
  cursor: CursorSchema.optional(),
});
export type ListSchedulesQuery = z.infer<typeof ListSchedulesQuerySchema>;

export const DueSchedulesQuerySchema = z.object({
  profile: ProfileNameSchema,
  gatewayId: IdSchema.optional().describe('only the due schedules this gateway owns'),
  ownership: ScheduleOwnershipSchema.optional().describe('`unroutable`: due ticks nobody may fire'),
  limit: LimitSchema,
  cursor: CursorSchema.optional(),
});
export type DueSchedulesQuery = z.infer<typeof DueSchedulesQuerySchema>;

export const ClaimSchedulesRequestSchema = z
  .object({
    gatewayId: IdSchema.describe('the registered gateway claiming the due ticks it owns'),
    holder: z.string().min(1).max(128).optional().describe('who fires them (default: the gateway id)'),
    leaseSeconds: z.number().int().min(1).max(3600).default(SCHEDULE_LEASE_DEFAULT_SECONDS),
    limit: z.number().int().min(1).max(SCHEDULE_CLAIM_LIMIT_MAX).default(10),
  })
  .strict();
export type ClaimSchedulesRequest = z.infer<typeof ClaimSchedulesRequestSchema>;
export const ClaimedSchedulesSchema = z.object({ items: z.array(ScheduleSchema) });
export type ClaimedSchedules = z.infer<typeof ClaimedSchedulesSchema>;

export const CompleteScheduleRequestSchema = z
  .object({ generation: z.number().int().min(1).describe('the generation of the claim that fired the tick') })
  .strict();
export type CompleteScheduleRequest = z.infer<typeof CompleteScheduleRequestSchema>;
