import { z } from 'zod';
import {
  CursorSchema,
  IdSchema,
  IsoDateSchema,
  JsonObjectSchema,
  LimitSchema,
  ProfileNameSchema,
  pageOf,
} from './common.schema.js';
import { SourceSchema } from './session.schema.js';

export const SessionKeySchema = z.string().min(1).max(512);

export const RouteSchema = z.object({
  profile: z.string(),
  sessionKey: z.string(),
  sessionId: z.string(),
  origin: JsonObjectSchema.nullable(),
  suspended: z.boolean(),
  createdAt: IsoDateSchema,
  updatedAt: IsoDateSchema,
  session: z
    .object({
      title: z.string().nullable(),
      endedAt: IsoDateSchema.nullable(),
      endReason: z.string().nullable(),
      source: z.string(),
    })
    .nullable()
    .describe('the session the route points at (null if it no longer exists)'),
});
export type Route = z.infer<typeof RouteSchema>;

export const PutRouteRequestSchema = z
  .object({
    profile: ProfileNameSchema,
    sessionKey: SessionKeySchema,
    sessionId: IdSchema,
    origin: JsonObjectSchema.optional(),
    suspended: z.boolean().optional(),
  })
  .strict()
  .meta({ examples: [{ profile: 'alpha', sessionKey: 'agent:alpha:telegram:dm:42', sessionId: 's-20261130-0001' }] });
export type PutRouteRequest = z.infer<typeof PutRouteRequestSchema>;

export const ListRoutesQuerySchema = z.object({
  profile: ProfileNameSchema.optional(),
  sessionId: IdSchema.optional(),
  limit: LimitSchema,
  cursor: CursorSchema.optional(),
});
export type ListRoutesQuery = z.infer<typeof ListRoutesQuerySchema>;
export const RoutePageSchema = pageOf(RouteSchema);
export type RoutePage = z.infer<typeof RoutePageSchema>;

export const ResolveRequestSchema = z
  .object({
    profile: ProfileNameSchema,
    source: SourceSchema,
    sessionKey: SessionKeySchema.optional(),
    userId: z.string().max(256).optional(),
    chatId: z.string().max(256).optional(),
    chatType: z.string().max(64).optional(),
    threadId: z.string().max(256).optional(),
    transportProfile: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .describe("the caller's bot or adapter: a recovered row is re-stamped with it in the same transaction"),
    gatewayId: IdSchema.optional().describe('the registered gateway process asking: it becomes the owner of the row'),
  })
  .strict()
  .refine((body) => body.sessionKey !== undefined || (body.chatId !== undefined && body.chatType !== undefined), {
    message: 'give sessionKey, or chatType and chatId',
    path: ['sessionKey'],
  })
  .meta({
    examples: [
      {
        profile: 'alpha',
        source: 'telegram',
        chatType: 'dm',
        chatId: '42',
        userId: '42',
        transportProfile: 'telegram-main',
        gatewayId: 'gw-eu-1',
      },
    ],
  });
export type ResolveRequest = z.infer<typeof ResolveRequestSchema>;

export const ResolveResponseSchema = z
  .object({
    sessionId: z.string().nullable(),
    via: z
      .enum(['route', 'recovered', 'none'])
      .describe(
        'route: the live route; recovered: a revivable row of the peer (possibly ended); none: start a new session',
      ),
    sessionKey: z.string().describe('the routing key the chat resolves under'),
  })
  .meta({ examples: [{ sessionId: 's-20261130-0001', via: 'route', sessionKey: 'agent:alpha:telegram:dm:42' }] });
export type ResolveResponse = z.infer<typeof ResolveResponseSchema>;

export const RouteCheckSchema = z.object({
  ok: z.boolean(),
  checked: z.number().int(),
  problems: z.array(
    z.object({
      profile: z.string(),
      sessionKey: z.string(),
      sessionId: z.string(),
      problem: z.enum(['missing_session', 'not_tip', 'closed_boundary', 'profile_mismatch']),
    }),
  ),
});
export type RouteCheck = z.infer<typeof RouteCheckSchema>;

// ---- handoff ------------------------------------------------------------------------------------

export const RequestHandoffSchema = z.object({ platform: z.string().min(1).max(64) }).strict();
export type RequestHandoff = z.infer<typeof RequestHandoffSchema>;
export const FailHandoffSchema = z.object({ error: z.string().min(1).max(2000) }).strict();
export type FailHandoff = z.infer<typeof FailHandoffSchema>;

// ---- profiles: rename, delete, repair move --------------------------------------------------------

export const RenameProfileRequestSchema = z
  .object({
    newName: ProfileNameSchema,
    dryRun: z.boolean().default(false).describe('run every check and count, then roll back'),
  })
  .strict();
export type RenameProfileRequest = z.infer<typeof RenameProfileRequestSchema>;

export const RenameCountsSchema = z.object({
  sessions: z.number().int(),
  routes: z.number().int(),
  sessionKeys: z.number().int(),
  origins: z.number().int(),
  conversationGenerations: z.number().int(),
  retentionPolicies: z.number().int(),
  tokens: z.number().int(),
  users: z.number().int(),
  gateways: z.number().int(),
  deliveries: z.number().int(),
  transportProfiles: z
    .number()
    .int()
    .describe("sessions' and delivery obligations' transport profiles that named the old profile, now the new one"),
  delegations: z.number().int().describe('async delegations of the profile (docs/domain.md §12)'),
  schedules: z.number().int().describe('scheduled wake-ups of the profile (docs/domain.md §13)'),
  metaEntries: z.number().int().describe("entries of the profile's key/value store"),
});
export type RenameCounts = z.infer<typeof RenameCountsSchema>;
export const RenameProfileResponseSchema = z.object({
  name: z.string(),
  dryRun: z.boolean(),
  counts: RenameCountsSchema,
});
export type RenameProfileResponse = z.infer<typeof RenameProfileResponseSchema>;

export const DeleteProfileQuerySchema = z.object({
  deleteSessions: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((value) => value === 'true' || value === '1'),
  dryRun: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((value) => value === 'true' || value === '1'),
});
export type DeleteProfileQuery = z.infer<typeof DeleteProfileQuerySchema>;

export const DeleteProfileResponseSchema = z.object({
  dryRun: z.boolean(),
  profileRemoved: z.boolean().describe('false when kept sessions still belong to it'),
  counts: z.object({
    routes: z.number().int(),
    tokens: z.number().int(),
    users: z.number().int(),
    retentionPolicies: z.number().int(),
    sessions: z.number().int(),
    messages: z.number().int(),
    gateways: z.number().int().describe('registered gateway processes of the profile, removed with its identity'),
    metaEntries: z.number().int().describe("entries of the profile's key/value store, removed with its identity"),
  }),
  receipt: z.object({ sequence: z.number().int(), operationId: z.string() }).nullable(),
  /** Every receipt written: a large profile's sessions go in chunks, each with its own receipt. */
  receipts: z.array(z.object({ sequence: z.number().int(), operationId: z.string() })),
});
export type DeleteProfileResponse = z.infer<typeof DeleteProfileResponseSchema>;

export const MoveSessionRequestSchema = z.object({ profile: ProfileNameSchema }).strict();
export type MoveSessionRequest = z.infer<typeof MoveSessionRequestSchema>;
export const MoveSessionResponseSchema = z.object({
  movedIds: z.array(z.string()),
  receipt: z.object({ sequence: z.number().int(), operationId: z.string() }).nullable(),
});
export type MoveSessionResponse = z.infer<typeof MoveSessionResponseSchema>;
