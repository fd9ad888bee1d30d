import { z } from 'zod';
import { CursorSchema, IsoDateSchema, JsonObjectSchema, pageOf, QueryBooleanSchema } from './common.schema.js';

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

/**
 * What an agent replays to its provider with a message, kept exactly as given (docs/domain.md
 * §2.3.8): never indexed, never shown; an empty `reasoningContent` is a value, not an absence.
 */
const ReplayFieldsInput = {
  reasoningContent: z.string().optional().describe("the provider's native reasoning text (an empty string is kept)"),
  reasoningDetails: z.unknown().optional().describe('structured reasoning blocks (JSON, as the provider sent them)'),
  codexReasoningItems: z.array(z.unknown()).max(512).optional().describe('Codex Responses reasoning items'),
  codexMessageItems: z.array(z.unknown()).max(512).optional().describe('Codex Responses message items'),
  observed: z.boolean().optional().describe('seen in a group chat, not addressed to the agent'),
  effectDisposition: z.string().max(64).optional().describe("what a tool result's side effect is known to be"),
};

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
    ...ReplayFieldsInput,
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
  reasoningContent: z.string().nullable(),
  reasoningDetails: z
    .union([z.array(z.unknown()), JsonObjectSchema, z.string(), z.number(), z.boolean()])
    .nullable()
    .describe('JSON as given, or null'),
  codexReasoningItems: z.array(z.unknown()).nullable(),
  codexMessageItems: z.array(z.unknown()).nullable(),
  observed: z.boolean(),
  effectDisposition: z.string().nullable(),
  replyLatencyMs: z
    .number()
    .int()
    .min(0)
    .nullable()
    .describe(
      'an assistant reply: its time minus the time of the user message it answers (the nearest earlier active, visible user message of the session not merely observed), in milliseconds; null for other messages, for a reply with nothing to answer and for replies written before this figure existed',
    ),
  costUsd: z
    .number()
    .min(0)
    .nullable()
    .describe(
      "the `estimatedCostUsd` of the append's usage, carried by that append's last assistant reply; null when no cost was sent with it",
    ),
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
  .strict()
  .meta({
    examples: [
      {
        messages: [
          { role: 'user', content: 'What is on my calendar tomorrow?', platformMessageId: 'tg-4711' },
          { role: 'assistant', content: 'Two meetings: 09:00 stand-up and 14:00 design review.' },
        ],
        usage: { inputTokens: 812, outputTokens: 64 },
        model: 'claude-sonnet-4',
      },
    ],
  });
export type AppendMessagesRequest = z.infer<typeof AppendMessagesRequestSchema>;
/** What the state layer accepts: the wire request, or internal writers' messages of any display kind. */
export type AppendMessagesCommand = Omit<AppendMessagesRequest, 'messages'> & { messages: MessageInput[] };

export const AppendMessagesResponseSchema = z
  .object({
    ids: z.array(z.number().int()).describe('one id per input message, in order; a duplicate returns the existing id'),
    created: z.number().int(),
    revision: z.number().int(),
    generation: z.number().int(),
    reopened: z
      .object({ endReason: z.string().describe('the accidental end the append cleared') })
      .optional()
      .describe(
        'present when the session had ended for a recoverable reason (or was handed off) and this append reopened it (docs/domain.md §4.3)',
      ),
  })
  .meta({ examples: [{ ids: [1041, 1042], created: 2, revision: 9, generation: 3 }] });
export type AppendMessagesResponse = z.infer<typeof AppendMessagesResponseSchema>;

export const ListMessagesQuerySchema = z.object({
  after: z.coerce.number().int().min(0).optional().describe('start after this message id'),
  limit: z.coerce.number().int().min(1).max(1000).default(200),
  cursor: CursorSchema.optional(),
  includeCompacted: QueryBooleanSchema.default(true),
  includeHidden: QueryBooleanSchema.default(false),
  includeInactive: QueryBooleanSchema.default(false),
  order: z.enum(['oldest', 'latest']).default('oldest'),
  platformMessageId: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe('only the message stored under this platform id (a dedupe probe)'),
});
export type ListMessagesQuery = z.infer<typeof ListMessagesQuerySchema>;
export const MessagePageSchema = pageOf(MessageSchema);
export type MessagePage = z.infer<typeof MessagePageSchema>;

/**
 * Replaces the live transcript (docs/domain.md §2.3.9): the session's active messages leave it —
 * rewound (`archive: false`: kept, never shown or searched) or archived by compaction (`archive:
 * true`: still shown and searched as compacted) — and `messages` become the live transcript, in one
 * transaction. An empty list clears the transcript.
 */
const REPLACE_TRANSCRIPT_MAX = APPEND_BATCH_MAX;
export const ReplaceMessagesRequestSchema = z
  .object({
    messages: z.array(WireMessageInputSchema).max(REPLACE_TRANSCRIPT_MAX),
    archive: z
      .boolean()
      .default(false)
      .describe('archive the old live rows as compacted (shown, searched) instead of rewinding them'),
  })
  .strict();
export type ReplaceMessagesRequest = z.infer<typeof ReplaceMessagesRequestSchema>;
