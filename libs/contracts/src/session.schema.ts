import { z } from 'zod';
import {
  BoundedCountSchema,
  CursorSchema,
  IdSchema,
  InstantSchema,
  IsoDateSchema,
  instantMs,
  JsonObjectSchema,
  LimitSchema,
  ProfileNameSchema,
  QueryBooleanSchema,
  QueryInstantSchema,
  utf8Bytes,
} from './common.schema.js';
import { LabelNameListSchema, SessionLabelSchema } from './label.schema.js';
import { LineageKindSchema } from './lineage.schema.js';
import {
  type MessageInput,
  SESSION_COST_MAX as SESSION_COST_COUNTER_MAX,
  SESSION_TOKENS_MAX as SESSION_TOKEN_COUNTER_MAX,
  WireMessageInputSchema,
} from './message.schema.js';
import { TurnLeaseSchema } from './turn.schema.js';

/** Surface labels are open-ended (docs/domain.md §2.2 lists examples), but bounded and printable. */
export const SourceSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9_.-]*$/, 'lowercase label: [a-z0-9][a-z0-9_.-]*');

/** Surfaces one `source`/`excludeSource` list may name at most. */
export const SOURCE_LIST_MAX = 32;

/**
 * A comma-separated list of surfaces (`cli,telegram`), as a query parameter: empty entries are
 * dropped and duplicates collapse; an empty value is an empty list. One shape for every parameter
 * that selects by surface.
 */
export const SourceListSchema = z
  .string()
  .max(SOURCE_LIST_MAX * 65)
  .transform((value) => [
    ...new Set(
      value
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean),
    ),
  ])
  .pipe(z.array(SourceSchema).max(SOURCE_LIST_MAX));

/**
 * Selecting by surface (`source` is the surface that holds a session now): `source` keeps only the
 * surfaces named, `excludeSource` leaves the named ones out — `subagent` there leaves out every
 * sub-agent session, delegates included whatever their surface. Both may be given (the include list,
 * minus the excluded). Search (docs/search.md) gives `excludeSource` a default; shared by every
 * query that selects by surface.
 */
export const SourceSelectionSchema = z.object({
  source: SourceListSchema.optional().describe('only these surfaces (comma-separated: cli,telegram)'),
  excludeSource: SourceListSchema.optional().describe(
    'leave these surfaces out (comma-separated; `subagent` also leaves out delegate sessions; empty: none)',
  ),
});
export type SourceSelection = z.infer<typeof SourceSelectionSchema>;

export const TITLE_SOURCES = ['derived', 'llm', 'user'] as const;
export const TitleSourceSchema = z.enum(TITLE_SOURCES);
export type TitleSource = z.infer<typeof TitleSourceSchema>;

export const HANDOFF_STATES = ['pending', 'running', 'completed', 'failed'] as const;
export const HandoffStateSchema = z.enum(HANDOFF_STATES);

const ShortText = (max: number) => z.string().max(max);

/**
 * Runtime state a gateway keeps on the session (docs/domain.md §2.2.11): the tools it was offered,
 * its model configuration and the compression anti-thrash deadline. All bounded.
 */
export const TOOL_NAMES_MAX = 512;
export const TOOL_NAME_MAX_LENGTH = 256;
export const MODEL_CONFIG_MAX_BYTES = 64 * 1024;
export const COMPRESSION_RETRY_REASON_MAX_LENGTH = 1000;

export const ToolNamesSchema = z
  .array(
    z
      .string()
      .min(1)
      .max(TOOL_NAME_MAX_LENGTH)
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
      .regex(/^[^\u0000-\u001F\u007F]+$/, 'no control characters'),
  )
  .max(TOOL_NAMES_MAX)
  .refine((names) => new Set(names).size === names.length, { message: 'tool names must be unique' })
  .describe(`the tools the session was offered, in the order offered (at most ${TOOL_NAMES_MAX}, unique)`);

/** A JSON object of at most MODEL_CONFIG_MAX_BYTES when serialised (UTF-8). */
export const ModelConfigSchema = JsonObjectSchema.refine(
  (value) => utf8Bytes(JSON.stringify(value)) <= MODEL_CONFIG_MAX_BYTES,
  { message: `modelConfig must serialise to at most ${MODEL_CONFIG_MAX_BYTES} bytes` },
);
/** A system prompt snapshot is runtime configuration, often tens of KB: bounded well below the body limit. */
export const SYSTEM_PROMPT_MAX = 1_000_000;
/** Client attributes are a small object: its JSON at most this many characters. */
export const ATTRIBUTES_MAX_CHARS = 16_384;
export const AttributesSchema = JsonObjectSchema.refine(
  (value) => JSON.stringify(value).length <= ATTRIBUTES_MAX_CHARS,
  {
    message: `attributes are a small object (at most ${ATTRIBUTES_MAX_CHARS} characters of JSON)`,
  },
).describe('client-owned attributes, stored as given and never interpreted');

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
  toolNames: z
    .array(z.string())
    .nullable()
    .describe('the tools the session was offered, in order (null: never pinned); re-pinned by PATCH'),
  compressionRetryAfter: IsoDateSchema.nullable().describe(
    'the compression anti-thrash deadline: do not compress this session before it (null: none; a past one is inert)',
  ),
  compressionRetryReason: z
    .string()
    .nullable()
    .describe('why compression is held back until `compressionRetryAfter` (the last failure, …)'),
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
  endReasonDetail: z
    .string()
    .nullable()
    .describe('the caller’s own end reason when it was outside the taxonomy (`endReason` is then `other`)'),
  cwd: z.string().nullable().describe('the working directory the agent ran in'),
  gitBranch: z.string().nullable(),
  gitRepoRoot: z.string().nullable(),
  billingProvider: z.string().nullable(),
  billingBaseUrl: z.string().nullable(),
  billingMode: z.string().nullable(),
  apiCallCount: z.number().int().describe('model calls accounted to the session'),
  actualCostUsd: z.number().nullable().describe('cost the provider reported, when it did'),
  costStatus: z.string().nullable(),
  costSource: z.string().nullable(),
  pricingVersion: z.string().nullable(),
  attributes: JsonObjectSchema.nullable().describe('the client’s own attributes, stored as given (never interpreted)'),
  systemPrompt: z
    .string()
    .nullable()
    .optional()
    .describe(
      'the system prompt snapshot the agent last stored: on the single-session read and PATCH answers, and on list rows with include=systemPrompt',
    ),
  importedAt: IsoDateSchema.nullable().describe('when an import last wrote this row (null: created here)'),
  awaitingClaim: z
    .boolean()
    .describe(
      'an imported row no Statehouse gateway or writer has claimed yet: it keeps the state the old store left (the liveness sweep leaves it alone) until a resolve with a gatewayId, a turn or an append claims it',
    ),
});
export type Session = z.infer<typeof SessionSchema>;

export const CreateSessionRequestSchema = z
  .object({
    id: IdSchema.optional(),
    profile: ProfileNameSchema,
    source: SourceSchema,
    model: ShortText(256).optional(),
    modelConfig: ModelConfigSchema.optional(),
    toolNames: ToolNamesSchema.optional(),
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
    systemPrompt: z.string().max(SYSTEM_PROMPT_MAX).optional(),
    cwd: ShortText(4096).optional(),
    gitBranch: ShortText(1024).optional(),
    gitRepoRoot: ShortText(4096).optional(),
    attributes: AttributesSchema.optional(),
    ifExists: z
      .enum(['conflict', 'fill'])
      .optional()
      .describe(
        'conflict (default): an existing id answers 409; fill: an existing session of the profile keeps every field it has, its empty ones are filled from this request, and it answers 200 (docs/domain.md §2.2.20)',
      ),
    messages: z.array(WireMessageInputSchema).max(1000).optional(),
    claimRoute: z
      .boolean()
      .optional()
      .describe(
        "a chat's first turn: point the sessionKey's route at the new session in the same transaction — or, when the route already points at an open session, answer that one (200) instead of creating a second",
      ),
  })
  .strict()
  .refine((body) => (body.parentSessionId === undefined) === (body.lineageKind === undefined), {
    message: 'parentSessionId and lineageKind go together',
    path: ['lineageKind'],
  })
  .refine((body) => !body.claimRoute || body.sessionKey !== undefined, {
    message: 'claimRoute needs a sessionKey',
    path: ['claimRoute'],
  })
  .meta({
    examples: [
      {
        id: 's-20261130-0001',
        profile: 'alpha',
        source: 'telegram',
        sessionKey: 'agent:alpha:telegram:dm:42',
        chatType: 'dm',
        chatId: '42',
        userId: '42',
        transportProfile: 'telegram-main',
        gatewayId: 'gw-eu-1',
        messages: [{ role: 'user', content: 'Hello!' }],
      },
    ],
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
    toolNames: ToolNamesSchema.nullable()
      .optional()
      .describe('re-pin the tools the session is offered (null unpins); fenced during another holder’s turn'),
    modelConfig: ModelConfigSchema.nullable()
      .optional()
      .describe('replace the model configuration as a whole (null clears); fenced during another holder’s turn'),
    compressionRetryAfter: InstantSchema.nullable()
      .optional()
      .describe('set (or with null clear) the compression anti-thrash deadline; a successful compression clears it'),
    compressionRetryReason: ShortText(COMPRESSION_RETRY_REASON_MAX_LENGTH)
      .nullable()
      .optional()
      .describe('why compression is held back; only together with a `compressionRetryAfter`'),
    systemPrompt: z
      .string()
      .max(SYSTEM_PROMPT_MAX)
      .nullable()
      .optional()
      .describe('store (or, null, clear) the snapshot'),
    model: ShortText(256).nullable().optional().describe('the model the conversation uses now (a switch)'),
    billingProvider: ShortText(256).nullable().optional(),
    billingBaseUrl: ShortText(2048).nullable().optional(),
    billingMode: ShortText(64).nullable().optional(),
    cwd: ShortText(4096).nullable().optional(),
    gitBranch: ShortText(1024).nullable().optional(),
    gitRepoRoot: ShortText(4096).nullable().optional(),
    attributes: AttributesSchema.nullable()
      .optional()
      .describe('merged into the stored attributes: a key set to null is removed; null clears them all'),
    sessionKey: ShortText(512).nullable().optional().describe('re-stamp the routing identity (a writer’s change)'),
    userId: ShortText(256).nullable().optional(),
    chatId: ShortText(256).nullable().optional(),
    chatType: ShortText(64).nullable().optional(),
    threadId: ShortText(256).nullable().optional(),
    displayName: ShortText(256).nullable().optional(),
    origin: JsonObjectSchema.nullable().optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'nothing to update' })
  .refine(
    (body) =>
      body.compressionRetryReason === undefined ||
      body.compressionRetryReason === null ||
      (body.compressionRetryAfter !== undefined && body.compressionRetryAfter !== null),
    { message: 'compressionRetryReason goes with a compressionRetryAfter deadline', path: ['compressionRetryReason'] },
  );
export type UpdateSessionRequest = z.infer<typeof UpdateSessionRequestSchema>;

export const SESSION_STATUSES = ['open', 'ended', 'all'] as const;
/**
 * tips: one row per conversation, a compression chain at its tip (docs/domain.md §3.4); roots: the
 * same without the projection — a chain at its root; all: every row.
 */
export const SESSION_VIEWS = ['tips', 'roots', 'all'] as const;

export const ARCHIVED_FILTERS = ['exclude', 'only', 'include'] as const;
/**
 * recent: last activity; started: start; messages, tokens (input + output), cost, duration (start
 * to end, or to the last activity while open): the row's own counters — a compression chain's tip
 * segment — largest first. Every order is newest/largest first, ties broken by id.
 */
export const SESSION_ORDERS = ['recent', 'started', 'messages', 'tokens', 'cost', 'duration'] as const;
export type SessionOrder = (typeof SESSION_ORDERS)[number];

/** A list's total is counted up to this bound ("1,000+" beyond it). */
export const SESSION_LIST_TOTAL_BOUND = 1000;

/** Filters the list and the count share (docs/api.md, "Sessions for agent runtimes"). */
const SessionSelectionFields = {
  sources: SourceListSchema.optional().describe('only these surfaces (comma-separated)'),
  excludeSources: SourceListSchema.optional().describe('none of these surfaces (comma-separated)'),
  cwdPrefix: z.string().min(1).max(4096).optional().describe('the cwd is this directory or one under it'),
  minMessages: z.coerce.number().int().min(0).optional().describe('at least this many visible messages'),
  view: z
    .enum(SESSION_VIEWS)
    .optional()
    .describe('tips: a compression chain at its tip (default); roots: at its root (no projection); all: every row'),
  sessionKey: z.string().min(1).max(512).optional().describe('exact routing key'),
  chatId: z.string().min(1).max(256).optional(),
  chatType: z.string().min(1).max(64).optional(),
  threadId: z.string().min(1).max(256).optional(),
  keyed: QueryBooleanSchema.optional().describe('true: only sessions with a routing key'),
  idPrefix: z.string().min(1).max(128).optional().describe('the id starts with this (exactly)'),
  idContains: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .describe('the id — or the id of any segment of its compression chain — contains this (case-insensitive)'),
};

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
      .describe(
        'recent: by last activity; started: by start (both keyset-indexed); messages, tokens, cost, duration: by the ' +
          "row's own counters (its segment of a compression chain), largest first; all keyset-paged, ties by id",
      ),
    minTokens: z.coerce.number().int().min(0).optional().describe('input + output tokens of the row at least this'),
    maxTokens: z.coerce.number().int().min(0).optional().describe('input + output tokens of the row at most this'),
    maxMessages: z.coerce.number().int().min(0).optional().describe('at most this many visible messages'),
    minCostUsd: z.coerce.number().min(0).optional().describe('estimated cost of the row at least this (USD)'),
    maxCostUsd: z.coerce.number().min(0).optional().describe('estimated cost of the row at most this (USD)'),
    handoff: HandoffStateSchema.optional().describe(
      'only sessions in this handoff state (`pending`: the cheap probe of gateways that pick up handoffs)',
    ),
    ...SessionSelectionFields,
    label: LabelNameListSchema.optional().describe(
      'only sessions carrying every one of these labels (comma-separated names, any case)',
    ),
    include: z
      .enum(['systemPrompt'])
      .optional()
      .describe('systemPrompt: each row carries its system prompt snapshot (left out otherwise)'),
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

/** Download formats: JSON lines (one object per line, for tools) or Markdown (for people). */
export const EXPORT_FORMATS = ['jsonl', 'markdown'] as const;
export const ExportFormatSchema = z.enum(EXPORT_FORMATS);
export type ExportFormat = z.infer<typeof ExportFormatSchema>;

export const SessionExportQuerySchema = z.object({
  format: ExportFormatSchema.default('jsonl').describe('jsonl (default) or markdown'),
});
export type SessionExportQuery = z.infer<typeof SessionExportQuerySchema>;

/**
 * The list's filters and order, exported whole: every matching row, read page by page as the
 * download drains (`cursor` and `limit` are not used).
 */
export const SessionListExportQuerySchema = ListSessionsQuerySchema.safeExtend({
  format: ExportFormatSchema.default('jsonl').describe(
    'jsonl: one list row per line (as `GET /v1/sessions` items); markdown: a table',
  ),
});
export type SessionListExportQuery = z.infer<typeof SessionListExportQuerySchema>;

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
  labels: z.array(SessionLabelSchema).describe("the row's labels, by name (docs/domain.md §15)"),
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

/** `GET /v1/sessions/count`: exact counts of what the list's filters select (and their messages). */
export const SessionCountQuerySchema = z.object({
  profile: ProfileNameSchema.optional(),
  source: SourceSchema.optional(),
  status: z.enum(SESSION_STATUSES).default('all'),
  archived: z.enum(ARCHIVED_FILTERS).default('exclude'),
  includeChildren: QueryBooleanSchema.default(false).describe('include delegate (sub-agent) sessions'),
  includeHidden: QueryBooleanSchema.default(false).describe('include sessions flagged hidden'),
  sessionId: IdSchema.optional().describe('only this session'),
  ...SessionSelectionFields,
});
export type SessionCountQuery = z.infer<typeof SessionCountQuerySchema>;
export const SessionCountSchema = z.object({
  sessions: z.number().int().describe('sessions the filters select'),
  messages: z
    .number()
    .int()
    .describe('messages stored in those sessions (live, compacted and rewound alike; hidden scaffolding not counted)'),
});
export type SessionCount = z.infer<typeof SessionCountSchema>;

/** `GET /v1/sessions/resolve-id`: an exact id, or the one id a prefix names. */
export const ResolveIdQuerySchema = z.object({
  profile: ProfileNameSchema.optional(),
  prefix: z.string().min(1).max(128),
});
export type ResolveIdQuery = z.infer<typeof ResolveIdQuerySchema>;
export const ResolveIdSchema = z.object({
  id: z.string().nullable().describe('the exact id, else the only id starting with the prefix; null otherwise'),
  ambiguous: z.boolean().describe('several ids start with the prefix'),
});
export type ResolveId = z.infer<typeof ResolveIdSchema>;

/** `GET /v1/sessions/title-lineage`: who holds a title, and its "title #N" continuations. */
export const TitleLineageQuerySchema = z.object({
  profile: ProfileNameSchema.optional(),
  title: z.string().min(1).max(1000),
});
export type TitleLineageQuery = z.infer<typeof TitleLineageQuerySchema>;
export const TitleLineageSchema = z.object({
  session: SessionSchema.nullable().describe('the session holding exactly this title'),
  latest: z
    .object({ id: z.string(), title: z.string() })
    .nullable()
    .describe('the most recently started session titled "<title> #…"'),
  next: z.string().describe('the title a new continuation takes: the title itself while free, else "<title> #N+1"'),
});
export type TitleLineage = z.infer<typeof TitleLineageSchema>;

/** `GET /v1/sessions/workspaces`: the working directories sessions ran in. */
export const WORKSPACE_LIST_MAX = 1000;
export const WorkspacesQuerySchema = z.object({
  profile: ProfileNameSchema.optional(),
  archived: z.enum(ARCHIVED_FILTERS).default('exclude'),
});
export type WorkspacesQuery = z.infer<typeof WorkspacesQuerySchema>;
export const WorkspacesSchema = z.object({
  items: z.array(
    z.object({
      cwd: z.string(),
      sessions: z.number().int(),
      lastActiveAt: IsoDateSchema.describe('the latest end (or start, while open) among them'),
    }),
  ),
  truncated: z.boolean().describe(`more than ${WORKSPACE_LIST_MAX} directories (the most used are listed)`),
});
export type Workspaces = z.infer<typeof WorkspacesSchema>;

/**
 * `POST /v1/sessions/:id/usage`: token, call and cost accounting of model calls (docs/domain.md
 * §2.2.17): `increment` adds a call's deltas, `absolute` sets running totals.
 */
const UsageCounter = z.number().int().min(0).max(SESSION_TOKEN_COUNTER_MAX);
export const RecordUsageRequestSchema = z
  .object({
    mode: z.enum(['increment', 'absolute']).default('increment'),
    inputTokens: UsageCounter.default(0),
    outputTokens: UsageCounter.default(0),
    cacheReadTokens: UsageCounter.default(0),
    cacheWriteTokens: UsageCounter.default(0),
    reasoningTokens: UsageCounter.default(0),
    apiCallCount: z.number().int().min(0).max(1_000_000_000).default(0),
    estimatedCostUsd: z.number().min(0).max(SESSION_COST_COUNTER_MAX).optional(),
    actualCostUsd: z.number().min(0).max(SESSION_COST_COUNTER_MAX).optional(),
    costStatus: ShortText(64).optional(),
    costSource: ShortText(64).optional(),
    pricingVersion: ShortText(64).optional(),
    model: ShortText(256).optional().describe('the model of these calls'),
    billingProvider: ShortText(256).optional(),
    billingBaseUrl: ShortText(2048).optional(),
    billingMode: ShortText(64).optional(),
  })
  .strict();
export type RecordUsageRequest = z.infer<typeof RecordUsageRequestSchema>;

/** `GET /v1/sessions/:id/usage`: the session's usage per model and billing route (and task). */
export const ModelUsageSchema = z.object({
  model: z.string(),
  billingProvider: z.string().describe('"" when none was named'),
  billingBaseUrl: z.string(),
  billingMode: z.string(),
  task: z.string().describe('"" for the main loop; auxiliary tasks (compression, titles) by name'),
  apiCallCount: z.number().int(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  cacheReadTokens: z.number().int(),
  cacheWriteTokens: z.number().int(),
  reasoningTokens: z.number().int(),
  estimatedCostUsd: z.number(),
  actualCostUsd: z.number().nullable(),
  costStatus: z.string().nullable(),
  costSource: z.string().nullable(),
  firstSeenAt: IsoDateSchema.nullable(),
  lastSeenAt: IsoDateSchema.nullable(),
});
export type ModelUsage = z.infer<typeof ModelUsageSchema>;
export const ModelUsageListSchema = z.object({ items: z.array(ModelUsageSchema) });
export type ModelUsageList = z.infer<typeof ModelUsageListSchema>;

/**
 * Test hooks (docs/api.md, "Test hooks"): off unless the API runs with `STATEHOUSE_TEST_HOOKS=1`.
 * They overwrite stored values without any rule, so a test can put rows in the past.
 */
export const TestSessionPatchSchema = z
  .object({
    startedAt: z.number().int().min(0).optional().describe('epoch ms'),
    startedAtOffsetMs: z.number().int().optional().describe('move the start by this many ms'),
    endedAt: z.number().int().min(0).nullable().optional().describe('epoch ms, or null (open)'),
    endedAtOffsetMs: z.number().int().optional(),
    endReason: z
      .string()
      .max(64)
      .nullable()
      .optional()
      .describe('a reason outside the taxonomy is stored as `other` with its detail'),
    messageCount: z.number().int().min(0).optional(),
    toolCallCount: z.number().int().min(0).optional(),
    inputTokens: z.number().int().min(0).optional(),
    outputTokens: z.number().int().min(0).optional(),
    estimatedCostUsd: z.number().min(0).optional(),
    actualCostUsd: z.number().min(0).nullable().optional(),
    title: z.string().max(1000).nullable().optional(),
    parentSessionId: IdSchema.nullable().optional(),
    model: z.string().max(256).nullable().optional(),
    billingProvider: z.string().max(256).nullable().optional(),
    userId: z.string().max(256).nullable().optional(),
    chatId: z.string().max(256).nullable().optional(),
    chatType: z.string().max(64).nullable().optional(),
    gitBranch: z.string().max(1024).nullable().optional(),
    sessionKey: z.string().max(512).nullable().optional(),
    displayName: z.string().max(256).nullable().optional(),
  })
  .strict();
export type TestSessionPatch = z.infer<typeof TestSessionPatchSchema>;

export const TestMessagePatchSchema = z
  .object({
    where: z
      .object({
        sessionId: IdSchema.optional(),
        id: z.number().int().min(1).optional(),
        role: z.string().max(32).optional(),
        content: z.string().optional(),
      })
      .strict()
      .refine((where) => where.sessionId !== undefined || where.id !== undefined, {
        message: 'name a session or a message',
      }),
    set: z
      .object({
        timestamp: z.number().int().min(0).optional().describe('epoch ms'),
        active: z.boolean().optional(),
      })
      .strict(),
  })
  .strict();
export type TestMessagePatch = z.infer<typeof TestMessagePatchSchema>;

export const TestPatchResultSchema = z.object({ updated: z.number().int() });
export type TestPatchResult = z.infer<typeof TestPatchResultSchema>;
