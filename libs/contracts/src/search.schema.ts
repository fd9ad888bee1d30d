import { z } from 'zod';
import {
  BoundedCountSchema,
  CursorSchema,
  IdSchema,
  IsoDateSchema,
  ProfileNameSchema,
  QueryBooleanSchema,
  QueryInstantSchema,
} from './common.schema.js';
import { LabelNameListSchema } from './label.schema.js';
import { MessageRoleSchema } from './message.schema.js';
import { SourceListSchema } from './session.schema.js';

export const SEARCH_QUERY_MAX = 2048;
/** A search's total is counted up to this bound ("100+" beyond it). */
export const SEARCH_TOTAL_BOUND = 100;
export const SEARCH_MODES = ['auto', 'word', 'substring'] as const;
export const SEARCH_CONTEXT_MAX = 5;
/** A context message's text is cut to this many characters. */
export const SEARCH_CONTEXT_CHARS = 400;

export const SearchQuerySchema = z.object({
  q: z
    .string()
    .min(1)
    .max(SEARCH_QUERY_MAX)
    .describe(
      'words (all must match); OR between alternatives; NOT or -term to exclude; "quoted phrases"; prefix*; dotted and hyphenated terms (chat-send, P2.2) match as phrases',
    ),
  profile: ProfileNameSchema.optional(),
  source: SourceListSchema.optional().describe(
    'only these surfaces (comma-separated); naming cron or subagent searches them (outside the default scope)',
  ),
  excludeSource: SourceListSchema.optional().describe(
    'leave these surfaces out (comma-separated; `subagent` also leaves out delegate sessions). Default `cron,subagent` (minus any `source` names); given, it replaces the default — empty leaves none out',
  ),
  role: MessageRoleSchema.optional().describe('only this role; `tool` searches tool results, left out otherwise'),
  sessionId: IdSchema.optional().describe('only this session (a delegate or cron session included)'),
  label: LabelNameListSchema.optional().describe(
    'only sessions carrying every one of these labels (comma-separated names, any case; docs/domain.md §15)',
  ),
  mode: z
    .enum(SEARCH_MODES)
    .default('auto')
    .describe('auto: substring index for CJK text or when words find nothing, word index otherwise'),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: CursorSchema.optional(),
  from: QueryInstantSchema.optional().describe('messages at or after this instant'),
  to: QueryInstantSchema.optional().describe('messages before this instant (after `from`)'),
  roles: z
    .string()
    .max(200)
    .transform((value) =>
      value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item.length > 0),
    )
    .pipe(z.array(MessageRoleSchema).max(5))
    .optional()
    .describe('only messages of these roles (comma-separated)'),
  context: z.coerce
    .number()
    .int()
    .min(0)
    .max(SEARCH_CONTEXT_MAX)
    .optional()
    .describe('each hit carries this many neighbouring visible messages of its session on each side'),
  titles: QueryBooleanSchema.optional().describe('false: no title hits, only messages (default true)'),
});
export type SearchQuery = z.infer<typeof SearchQuerySchema>;

export const SearchHitSchema = z.object({
  sessionId: z.string(),
  tipSessionId: z.string().describe('the conversation the hit belongs to (its compression tip): group hits by it'),
  sessionTitle: z.string().nullable(),
  tipSessionTitle: z.string().nullable().describe("the conversation's title (its tip's)"),
  profile: z.string(),
  source: z.string(),
  messageId: z.number().int(),
  role: MessageRoleSchema,
  snippet: z
    .string()
    .describe(
      'excerpt with matches wrapped in \u0002 … \u0003 markers (tool calls read as name(arg: value), a title hit shows the title)',
    ),
  matchedIn: z
    .enum(['content', 'title'])
    .describe('content: the message matched; title: the session title matched (the hit links to its first message)'),
  rank: z.number(),
  timestamp: IsoDateSchema,
  toolName: z.string().nullable(),
  model: z.string().nullable().describe("the session's model"),
  sessionStartedAt: IsoDateSchema,
  context: z
    .array(
      z.object({
        messageId: z.number().int(),
        role: MessageRoleSchema,
        content: z.string().describe(`its text, at most ${SEARCH_CONTEXT_CHARS} characters`),
      }),
    )
    .optional()
    .describe('with `context`: the neighbouring visible messages of the session and the hit itself, in order'),
});
export type SearchHit = z.infer<typeof SearchHitSchema>;

export const SearchResponseSchema = z.object({
  items: z.array(SearchHitSchema),
  nextCursor: z.string().nullable(),
  mode: z.enum(['word', 'substring']),
  degraded: z.boolean(),
  total: BoundedCountSchema.describe(`matching messages, counted up to ${SEARCH_TOTAL_BOUND}`),
});
export type SearchResponse = z.infer<typeof SearchResponseSchema>;

export const SNIPPET_MATCH_START = '\u0002';
export const SNIPPET_MATCH_END = '\u0003';

export const IndexIntegritySchema = z.object({
  checkedAt: IsoDateSchema,
  ok: z.boolean(),
  indexes: z.array(
    z.object({
      name: z.enum(['word', 'substring']),
      ok: z.boolean(),
      expectedRows: z.number().int().describe('messages that belong in the index'),
      mismatchedTerms: z.number().int().describe('terms whose postings differ from what the messages say'),
    }),
  ),
});
export type IndexIntegrity = z.infer<typeof IndexIntegritySchema>;

export const SearchIndexStatusSchema = z.object({
  status: z.enum(['ready', 'rebuilding', 'failed']),
  degraded: z.boolean().describe('searches are answered by a bounded scan (the index is unusable or being rebuilt)'),
  integrity: IndexIntegritySchema.nullable().describe('the last integrity check, if any'),
  lastRebuild: z
    .object({ startedAt: IsoDateSchema, finishedAt: IsoDateSchema.nullable(), error: z.string().nullable() })
    .nullable(),
});
export type SearchIndexStatus = z.infer<typeof SearchIndexStatusSchema>;

export const SearchIndexQuerySchema = z.object({
  check: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((value) => value === 'true' || value === '1')
    .describe('run an integrity check now (reads every indexed message)'),
});
export type SearchIndexQuery = z.infer<typeof SearchIndexQuerySchema>;
