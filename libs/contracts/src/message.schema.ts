import { z } from 'zod';
import { CursorSchema, IsoDateSchema, pageOf, QueryBooleanSchema } from './common.schema.js';

export const MESSAGE_ROLES = ['user', 'assistant', 'tool', 'system', 'session_meta'] as const;
export const MessageRoleSchema = z.enum(MESSAGE_ROLES);
export type MessageRole = z.infer<typeof MessageRoleSchema>;

/** `hidden` rows are model-facing scaffolding: never in transcripts, previews or search. */
export const DISPLAY_KINDS = ['visible', 'hidden', 'compaction_summary'] as const;
export const DisplayKindSchema = z.enum(DISPLAY_KINDS);
export type DisplayKind = z.infer<typeof DisplayKindSchema>;

/** Text, or structured content (content parts) returned exactly as given. */
export const MessageContentSchema = z.union([
  z.string(),
  z.array(z.unknown()),
  z.record(z.string(), z.unknown()),
  z.null(),
]);
export type MessageContent = z.infer<typeof MessageContentSchema>;

/**
 * Usage counters are bounded per call, and a session's totals saturate at a ceiling instead of
 * overflowing (docs/security.md, "Input hygiene"): far beyond any real use, and every total stays
 * an exact JavaScript number on both dialects.
 */
export const USAGE_TOKENS_PER_CALL_MAX = 2 ** 31;
export const USAGE_COST_PER_CALL_MAX = 1e9;
export const SESSION_TOKENS_MAX = Number.MAX_SAFE_INTEGER;
export const SESSION_COST_MAX = 1e15;

const TokenCountSchema = z.number().int().min(0).max(USAGE_TOKENS_PER_CALL_MAX);

export const MessageInputSchema = z
  .object({
    role: MessageRoleSchema,
    content: MessageContentSchema.optional(),
    toolCallId: z.string().max(256).optional(),
    toolCalls: z.array(z.unknown()).max(512).optional(),
    toolName: z.string().max(256).optional(),
    timestamp: z
      .union([IsoDateSchema, z.number()])
      .optional()
      .describe('ISO-8601 or epoch milliseconds; clamped into a sane window, defaults to now'),
    tokenCount: TokenCountSchema.optional(),
    finishReason: z.string().max(64).optional(),
    reasoning: z.string().optional(),
    displayKind: DisplayKindSchema.optional(),
    platformMessageId: z.string().min(1).max(256).optional().describe('dedupe key per session'),
  })
  .strict();
export type MessageInput = z.infer<typeof MessageInputSchema>;

/**
 * Display kinds a client may send (docs/domain.md §2.3): `hidden` scaffolding, or the default
 * `visible`. `compaction_summary` rows are written only by compression, never from the wire.
 */
export const WIRE_DISPLAY_KINDS = ['visible', 'hidden'] as const;
export const WireMessageInputSchema = MessageInputSchema.extend({
  displayKind: z
    .enum(WIRE_DISPLAY_KINDS, {
      message: 'displayKind from a client is hidden or visible (compaction summaries are written by compress)',
    })
    .optional(),
}).strict();

export const MessageSchema = z.object({
  id: z.number().int().describe('store-wide id: the keyset order of a transcript, not a position in it'),
  ordinal: z
    .number()
    .int()
    .min(1)
    .describe(
      "the message's position in its session (1 = first), counting every row of the session in id order, hidden and rewound ones too, so it names the same message in every view",
    ),
  sessionId: z.string(),
  role: MessageRoleSchema,
  content: MessageContentSchema,
  toolCallId: z.string().nullable(),
  toolCalls: z.array(z.unknown()).nullable(),
  toolName: z.string().nullable(),
  timestamp: IsoDateSchema,
  tokenCount: z.number().int().nullable(),
  finishReason: z.string().nullable(),
  reasoning: z.string().nullable(),
  displayKind: DisplayKindSchema,
  active: z.boolean(),
  compacted: z.boolean(),
  platformMessageId: z.string().nullable(),
});
export type Message = z.infer<typeof MessageSchema>;

export const UsageDeltaSchema = z
  .object({
    inputTokens: TokenCountSchema.optional(),
    outputTokens: TokenCountSchema.optional(),
    cacheReadTokens: TokenCountSchema.optional(),
    cacheWriteTokens: TokenCountSchema.optional(),
    reasoningTokens: TokenCountSchema.optional(),
    estimatedCostUsd: z.number().min(0).max(USAGE_COST_PER_CALL_MAX).optional(),
  })
  .strict();
export type UsageDelta = z.infer<typeof UsageDeltaSchema>;

export const APPEND_BATCH_MAX = 1000;
export const AppendMessagesRequestSchema = z
  .object({
    messages: z.array(WireMessageInputSchema).min(1).max(APPEND_BATCH_MAX),
    usage: UsageDeltaSchema.optional().describe('token and cost counters added to the session in the same transaction'),
    model: z.string().max(256).optional(),
  })
  .strict();
export type AppendMessagesRequest = z.infer<typeof AppendMessagesRequestSchema>;
/** What the state layer accepts: the wire request, or internal writers' messages of any display kind. */
export type AppendMessagesCommand = Omit<AppendMessagesRequest, 'messages'> & { messages: MessageInput[] };

export const AppendMessagesResponseSchema = z.object({
  ids: z.array(z.number().int()).describe('one id per input message, in order; a duplicate returns the existing id'),
  created: z.number().int(),
  revision: z.number().int(),
  generation: z.number().int(),
});
export type AppendMessagesResponse = z.infer<typeof AppendMessagesResponseSchema>;

export const ListMessagesQuerySchema = z.object({
  after: z.coerce.number().int().min(0).optional().describe('start after this message id'),
  limit: z.coerce.number().int().min(1).max(1000).default(200),
  cursor: CursorSchema.optional(),
  includeCompacted: QueryBooleanSchema.default(true),
  includeHidden: QueryBooleanSchema.default(false),
  includeInactive: QueryBooleanSchema.default(false),
  order: z.enum(['oldest', 'latest']).default('oldest'),
});
export type ListMessagesQuery = z.infer<typeof ListMessagesQuerySchema>;
export const MessagePageSchema = pageOf(MessageSchema);
export type MessagePage = z.infer<typeof MessagePageSchema>;
