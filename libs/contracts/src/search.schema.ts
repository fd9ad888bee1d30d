import { z } from 'zod';
import {
  BoundedCountSchema,
  CursorSchema,
  IdSchema,
  IsoDateSchema,
  ProfileNameSchema,
  QueryInstantSchema,
} from './common.schema.js';
import { MessageRoleSchema } from './message.schema.js';
import { SourceSchema } from './session.schema.js';

export const SEARCH_QUERY_MAX = 2048;
/** A search's total is counted up to this bound ("100+" beyond it). */
export const SEARCH_TOTAL_BOUND = 100;
export const SEARCH_MODES = ['auto', 'word', 'substring'] as const;

export const SearchQuerySchema = z.object({
  q: z
    .string()
    .min(1)
    .max(SEARCH_QUERY_MAX)
    .describe(
      'words (all must match); OR between alternatives; NOT or -term to exclude; "quoted phrases"; prefix*; dotted and hyphenated terms (chat-send, P2.2) match as phrases',
    ),
  profile: ProfileNameSchema.optional(),
  source: SourceSchema.optional(),
  role: MessageRoleSchema.optional(),
  sessionId: IdSchema.optional().describe('only this session (a delegate session included)'),
  mode: z
    .enum(SEARCH_MODES)
    .default('auto')
    .describe('auto: substring index for CJK text or when words find nothing, word index otherwise'),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: CursorSchema.optional(),
  from: QueryInstantSchema.optional().describe('messages at or after this instant'),
  to: QueryInstantSchema.optional().describe('messages before this instant (after `from`)'),
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
