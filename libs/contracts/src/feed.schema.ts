import { z } from 'zod';
import { IdSchema, IsoDateSchema, ProfileNameSchema, QueryBooleanSchema } from './common.schema.js';

/**
 * Live feeds (server-sent events) of what gets appended: a session's messages as they commit, and a
 * profile's sessions as messages arrive in them. Both resume on message ids, the one ordering key
 * (docs/domain.md §2.3): an event's `id` is a message id, and a reconnect with `Last-Event-ID`
 * continues after it.
 */

const FeedAfterSchema = z.coerce
  .number()
  .int()
  .min(0)
  .optional()
  .describe('start after this message id (default: the newest now: only what commits from here on)');
const BookmarkSecondsSchema = z.coerce
  .number()
  .int()
  .min(1)
  .max(15)
  .default(15)
  .describe('idle bookmark interval (also keeps proxies from closing an idle stream)');

export const MessageWatchQuerySchema = z.object({
  after: FeedAfterSchema,
  includeHidden: QueryBooleanSchema.default(false).describe('also model-facing scaffolding rows'),
  bookmarkSeconds: BookmarkSecondsSchema,
});
export type MessageWatchQuery = z.infer<typeof MessageWatchQuerySchema>;

export const SessionWatchQuerySchema = z.object({
  profile: ProfileNameSchema.optional().describe("one profile's sessions (default: every profile the caller may read)"),
  after: FeedAfterSchema,
  bookmarkSeconds: BookmarkSecondsSchema,
});
export type SessionWatchQuery = z.infer<typeof SessionWatchQuerySchema>;

/** `bookmark` event of a live feed: nothing new; everything up to `highWater` was covered. */
export const FeedBookmarkEventSchema = z.object({
  highWater: z.number().int().describe('the message id the stream has covered (its event id)'),
});
export type FeedBookmarkEvent = z.infer<typeof FeedBookmarkEventSchema>;

/** `session` event of the sessions feed: a session got messages; what a list row shows of it now. */
export const SessionChangeEventSchema = z.object({
  sessionId: IdSchema,
  profile: ProfileNameSchema,
  lastMessageId: z.number().int().describe('its newest message id (the event id)'),
  messageCount: z.number().int(),
  lastActivityAt: IsoDateSchema,
  title: z.string().nullable(),
});
export type SessionChangeEvent = z.infer<typeof SessionChangeEventSchema>;

/** `Last-Event-ID` of a live feed: the message id an EventSource last saw. Empty means none. */
export const FeedLastEventIdSchema = z
  .string()
  .max(16)
  .regex(/^\d*$/, 'must be a message id')
  .transform((value) => (value === '' ? undefined : Number(value)))
  .refine((value) => value === undefined || Number.isSafeInteger(value), 'must be a safe integer');
