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
} from './common.schema.js';
import { LineageKindSchema } from './lineage.schema.js';
import { type MessageInput, WireMessageInputSchema } from './message.schema.js';
import { TurnLeaseSchema } from './turn.schema.js';

/** Surface labels are open-ended (SPEC §2.2 lists examples), but bounded and printable. */
export const SourceSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9_.-]*$/, 'lowercase label: [a-z0-9][a-z0-9_.-]*');

export const TITLE_SOURCES = ['derived', 'llm', 'user'] as const;
export const TitleSourceSchema = z.enum(TITLE_SOURCES);
export type TitleSource = z.infer<typeof TitleSourceSchema>;

export const HANDOFF_STATES = ['pending', 'running', 'completed', 'failed'] as const;
export const HandoffStateSchema = z.enum(HANDOFF_STATES);

const ShortText = (max: number) => z.string().max(max);

export const SessionSchema = z.object({
  id: IdSchema,
  profile: ProfileNameSchema,
  source: SourceSchema,
  createdSource: SourceSchema,
  sessionKey: z.string().nullable(),
  userId: z.string().nullable(),
  chatId: z.string().nullable(),
  chatType: z.string().nullable(),
  threadId: z.string().nullable(),
  displayName: z.string().nullable(),
  origin: JsonObjectSchema.nullable(),
  transportProfile: z.string().nullable(),
  model: z.string().nullable(),
  modelConfig: JsonObjectSchema.nullable(),
  title: z.string().nullable(),
  titleSource: TitleSourceSchema.nullable(),
  parentSessionId: z.string().nullable(),
  lineageKind: LineageKindSchema.nullable(),
  startedAt: IsoDateSchema,
  endedAt: IsoDateSchema.nullable(),
  endReason: z.string().nullable(),
  lastActivityAt: IsoDateSchema,
  archived: z.boolean(),
  pinned: z.boolean(),
  hidden: z.boolean(),
  messageCount: z.number().int(),
  toolCallCount: z.number().int(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  cacheReadTokens: z.number().int(),
  cacheWriteTokens: z.number().int(),
  reasoningTokens: z.number().int(),
  estimatedCostUsd: z.number(),
  handoffState: HandoffStateSchema.nullable(),
  handoffPlatform: z.string().nullable(),
  handoffError: z.string().nullable(),
  revision: z.number().int(),
  generation: z.number().int(),
  gatewayId: z
    .string()
    .nullable()
    .describe('the gateway process that owns this row (set by create, resolve and turns that name one)'),
  conversationGeneration: z
    .number()
    .int()
    .describe("the peer's conversation generation when this session began (each reset-class end adds one)"),
  turn: TurnLeaseSchema.nullable().describe(
    'the live turn lease: while set, destructive operations answer 409 session_busy',
  ),
});
export type Session = z.infer<typeof SessionSchema>;

export const CreateSessionRequestSchema = z
  .object({
    id: IdSchema.optional(),
    profile: ProfileNameSchema,
    source: SourceSchema,
    model: ShortText(256).optional(),
    modelConfig: JsonObjectSchema.optional(),
    title: ShortText(1000).optional(),
    titleSource: TitleSourceSchema.optional(),
    sessionKey: ShortText(512).optional(),
    userId: ShortText(256).optional(),
    chatId: ShortText(256).optional(),
    chatType: ShortText(64).optional(),
    threadId: ShortText(256).optional(),
    displayName: ShortText(256).optional(),
    transportProfile: ShortText(128).optional(),
    origin: JsonObjectSchema.optional(),
    parentSessionId: IdSchema.optional(),
    lineageKind: LineageKindSchema.optional(),
    gatewayId: IdSchema.optional().describe('the registered gateway process that owns the new session'),
    messages: z.array(WireMessageInputSchema).max(1000).optional(),
  })
  .strict()
  .refine((body) => (body.parentSessionId === undefined) === (body.lineageKind === undefined), {
    message: 'parentSessionId and lineageKind go together',
    path: ['lineageKind'],
  });
export type CreateSessionRequest = z.infer<typeof CreateSessionRequestSchema>;
/** What the state layer accepts: the wire request, or internal writers' messages of any display kind. */
export type CreateSessionCommand = Omit<CreateSessionRequest, 'messages'> & { messages?: MessageInput[] };

export const UpdateSessionRequestSchema = z
  .object({
    title: ShortText(1000).nullable().optional(),
    titleSource: TitleSourceSchema.optional(),
    archived: z.boolean().optional(),
    pinned: z.boolean().optional(),
    hidden: z.boolean().optional(),
    source: SourceSchema.optional(),
    transportProfile: ShortText(128)
      .nullable()
      .optional()
      .describe('re-stamp which bot or adapter delivers this conversation'),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'nothing to update' });
export type UpdateSessionRequest = z.infer<typeof UpdateSessionRequestSchema>;

export const SESSION_STATUSES = ['open', 'ended', 'all'] as const;
export const ARCHIVED_FILTERS = ['exclude', 'only', 'include'] as const;
export const SESSION_ORDERS = ['recent', 'started'] as const;

export const ListSessionsQuerySchema = z.object({
  profile: ProfileNameSchema.optional(),
  source: SourceSchema.optional(),
  status: z.enum(SESSION_STATUSES).default('all'),
  archived: z.enum(ARCHIVED_FILTERS).default('exclude'),
  q: z.string().max(200).optional(),
  includeChildren: QueryBooleanSchema.default(false).describe('include delegate (sub-agent) sessions'),
  includeHidden: QueryBooleanSchema.default(false).describe('include sessions flagged hidden'),
  limit: LimitSchema,
  cursor: CursorSchema.optional(),
  order: z.enum(SESSION_ORDERS).default('recent'),
  handoff: HandoffStateSchema.optional().describe(
    'only sessions in this handoff state (`pending`: the cheap probe of gateways that pick up handoffs)',
  ),
});
export type ListSessionsQuery = z.infer<typeof ListSessionsQuerySchema>;

/** One row per logical conversation: a compression chain is shown as its tip (SPEC §3). */
export const SessionListItemSchema = SessionSchema.extend({
  rootId: IdSchema.describe('first segment of the compression chain this row stands for'),
  conversationStartedAt: IsoDateSchema.describe("the chain root's start"),
  preview: z.string().nullable().describe('first visible user message of the conversation'),
  lastActiveAt: IsoDateSchema,
});
export type SessionListItem = z.infer<typeof SessionListItemSchema>;
export const SessionListResponseSchema = pageOf(SessionListItemSchema);
export type SessionListResponse = z.infer<typeof SessionListResponseSchema>;

export const SessionIdParamSchema = IdSchema;
