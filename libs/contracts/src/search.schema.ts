import { z } from 'zod';
import { CursorSchema, IsoDateSchema, ProfileNameSchema } from './common.schema.js';
import { MessageRoleSchema } from './message.schema.js';
import { SourceSchema } from './session.schema.js';

export const SEARCH_QUERY_MAX = 2048;
export const SEARCH_MODES = ['auto', 'word', 'substring'] as const;

export const SearchQuerySchema = z.object({
  q: z.string().min(1).max(SEARCH_QUERY_MAX),
  profile: ProfileNameSchema.optional(),
  source: SourceSchema.optional(),
  role: MessageRoleSchema.optional(),
  mode: z
    .enum(SEARCH_MODES)
    .default('auto')
    .describe('auto: substring index for CJK text or when words find nothing, word index otherwise'),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: CursorSchema.optional(),
});
export type SearchQuery = z.infer<typeof SearchQuerySchema>;

export const SearchHitSchema = z.object({
  sessionId: z.string(),
  tipSessionId: z.string(),
  sessionTitle: z.string().nullable(),
  profile: z.string(),
  source: z.string(),
  messageId: z.number().int(),
  role: MessageRoleSchema,
  snippet: z.string().describe('excerpt with matches wrapped in \u0002 … \u0003 markers'),
  rank: z.number(),
  timestamp: IsoDateSchema,
});
export type SearchHit = z.infer<typeof SearchHitSchema>;

export const SearchResponseSchema = z.object({
  items: z.array(SearchHitSchema),
  nextCursor: z.string().nullable(),
  mode: z.enum(['word', 'substring']),
  degraded: z.boolean(),
});
export type SearchResponse = z.infer<typeof SearchResponseSchema>;

export const SNIPPET_MATCH_START = '\u0002';
export const SNIPPET_MATCH_END = '\u0003';
