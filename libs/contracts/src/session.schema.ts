import { z } from 'zod';
import {
  BoundedCountSchema,
  CursorSchema,
  IdSchema,
  IsoDateSchema,
  instantMs,
  JsonObjectSchema,
  LimitSchema,
  ProfileNameSchema,
  QueryBooleanSchema,
  QueryInstantSchema,
} from './common.schema.js';
import { LineageKindSchema } from './lineage.schema.js';
import { type MessageInput, WireMessageInputSchema } from './message.schema.js';
import { TurnLeaseSchema } from './turn.schema.js';

/** Surface labels are open-ended (docs/domain.md §2.2 lists examples), but bounded and printable. */
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

/** A list's total is counted up to this bound ("1,000+" beyond it). */
export const SESSION_LIST_TOTAL_BOUND = 1000;

const timeRange = (from: string | undefined, to: string | undefined) =>
  from === undefined || to === undefined || instantMs(from) < instantMs(to);

export const ListSessionsQuerySchema = z
  .object({
    profile: ProfileNameSchema.optional(),
    source: SourceSchema.optional(),
    status: z.enum(SESSION_STATUSES).default('all'),
    archived: z.enum(ARCHIVED_FILTERS).default('exclude'),
    q: z.string().max(200).optional(),
    model: z.string().min(1).max(256).optional().describe('exact model name (see GET /v1/sessions/facets)'),
    userId: z.string().min(1).max(256).optional().describe('exact platform user id'),
    startedFrom: QueryInstantSchema.optional().describe('the row started at or after this instant'),
    startedTo: QueryInstantSchema.optional().describe('the row started before this instant'),
    activeFrom: QueryInstantSchema.optional().describe('last activity at or after this instant'),
    activeTo: QueryInstantSchema.optional().describe('last activity before this instant'),
    includeChildren: QueryBooleanSchema.default(false).describe('include delegate (sub-agent) sessions'),
    includeHidden: QueryBooleanSchema.default(false).describe('include sessions flagged hidden'),
    limit: LimitSchema,
    cursor: CursorSchema.optional().describe('a `nextCursor` or `prevCursor` of an earlier page'),
    order: z
      .enum(SESSION_ORDERS)
      .default('recent')
      .describe('recent: by last activity; started: by start (both newest first, both keyset-indexed)'),
    handoff: HandoffStateSchema.optional().describe(
      'only sessions in this handoff state (`pending`: the cheap probe of gateways that pick up handoffs)',
    ),
  })
  .refine((query) => timeRange(query.startedFrom, query.startedTo), {
    message: '`startedTo` must be after `startedFrom`',
    path: ['startedTo'],
  })
  .refine((query) => timeRange(query.activeFrom, query.activeTo), {
    message: '`activeTo` must be after `activeFrom`',
    path: ['activeTo'],
  });
export type ListSessionsQuery = z.infer<typeof ListSessionsQuerySchema>;

/** Token and cost counters of a whole conversation: every segment of its compression chain. */
export const ConversationUsageSchema = z.object({
  segments: z.number().int().describe('sessions in the compression chain (1 when never compressed)'),
  messageCount: z
    .number()
    .int()
    .describe("messages of every segment (the row's own `messageCount` is its tip segment's only)"),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  cacheReadTokens: z.number().int(),
  cacheWriteTokens: z.number().int(),
  reasoningTokens: z.number().int(),
  totalTokens: z.number().int().describe('inputTokens + outputTokens'),
  estimatedCostUsd: z.number(),
});
export type ConversationUsage = z.infer<typeof ConversationUsageSchema>;

/** One row per logical conversation: a compression chain is shown as its tip (docs/domain.md §3). */
export const SessionListItemSchema = SessionSchema.extend({
  rootId: IdSchema.describe('first segment of the compression chain this row stands for'),
  conversationStartedAt: IsoDateSchema.describe("the chain root's start"),
  preview: z.string().nullable().describe('first visible user message of the conversation'),
  lastActiveAt: IsoDateSchema,
  durationMs: z
    .number()
    .int()
    .describe('from the conversation start to its end (or, while open, to its last activity)'),
  conversationUsage: ConversationUsageSchema,
});
export type SessionListItem = z.infer<typeof SessionListItemSchema>;
export const SessionListResponseSchema = z.object({
  items: z.array(SessionListItemSchema),
  nextCursor: z.string().nullable().describe('the next (older) page; null on the last page'),
  prevCursor: z.string().nullable().describe('the previous (newer) page; null on the first page'),
  total: BoundedCountSchema.describe(`rows matching the filters, counted up to ${SESSION_LIST_TOTAL_BOUND}`),
});
export type SessionListResponse = z.infer<typeof SessionListResponseSchema>;

/** Known values for the list's choice filters (from the usage rollups: every surface and model seen). */
export const SESSION_FACET_LIMIT = 100;
export const SessionFacetsQuerySchema = z.object({ profile: ProfileNameSchema.optional() });
export type SessionFacetsQuery = z.infer<typeof SessionFacetsQuerySchema>;
export const FacetValueSchema = z.object({
  value: z.string().nullable().describe('null: sessions without a recorded model'),
  sessions: z.number().int().describe('sessions started with this value'),
});
export const SessionFacetsSchema = z.object({
  sources: z.array(FacetValueSchema).describe(`most used first, at most ${SESSION_FACET_LIMIT}`),
  models: z.array(FacetValueSchema).describe(`most used first, at most ${SESSION_FACET_LIMIT}`),
  truncated: z.boolean().describe('more values exist than were returned'),
});
export type SessionFacets = z.infer<typeof SessionFacetsSchema>;

export const SessionIdParamSchema = IdSchema;
