import { z } from 'zod';

/** Caller-chosen ids and every id on the wire share one alphabet (docs/api.md, Limits). */
export const ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
export const IdSchema = z.string().regex(ID_PATTERN, 'must match [A-Za-z0-9._:-]{1,128}');

/** Profile names: a tenant namespace (docs/domain.md §2.1). */
export const PROFILE_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const ProfileNameSchema = z.string().regex(PROFILE_PATTERN, 'must match [a-z0-9][a-z0-9_-]{0,63}');

export const IsoDateSchema = z.string().describe('ISO-8601 timestamp (UTC)');

/**
 * A point in time in a query string: an ISO-8601 date (`2026-11-30`, midnight UTC) or date-time
 * with a zone (`2026-11-30T08:00:00Z`, `…+01:00`). Kept as the string given; servers convert it.
 */
export const QueryInstantSchema = z
  .union([z.iso.date(), z.iso.datetime({ offset: true })], {
    error: 'must be an ISO-8601 date (2026-11-30) or date-time with a zone (2026-11-30T08:00:00Z)',
  })
  .describe('ISO-8601 date (midnight UTC) or date-time with a zone');

/**
 * The latest instant accepted on the wire: the end of year 9999. Every instant a client sends is
 * within 1970..9999, which JS dates, both stores' integer columns and ISO-8601 with a four-digit
 * year all hold (beyond ±8.64e15 ms a JS date is invalid, and formatting one throws).
 */
export const INSTANT_MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

const withinInstantRange = (ms: number) => Number.isFinite(ms) && ms >= 0 && ms <= INSTANT_MAX_MS;

/**
 * An instant in a request body: an ISO-8601 date-time with a zone, or epoch milliseconds, between
 * 1970 and 9999. Anything else is a validation problem (400), never a server error downstream.
 */
export const InstantSchema = z
  .union(
    [
      z.iso.datetime({ offset: true }).refine((value) => withinInstantRange(Date.parse(value))),
      z.number().int().min(0).max(INSTANT_MAX_MS),
    ],
    {
      error:
        'must be an ISO-8601 date-time with a zone (2026-11-30T08:00:00Z) or epoch milliseconds, between 1970 and 9999',
    },
  )
  .describe('ISO-8601 date-time with a zone, or epoch milliseconds (1970 to 9999)');

/** Epoch milliseconds of a valid `QueryInstantSchema` value. */
export const instantMs = (value: string): number => Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value);

/** A count that stops at a bound: `{count: 1000, exact: false}` reads "1,000+". */
export const BoundedCountSchema = z.object({
  count: z.number().int().describe('the number of matches, or the bound when there are more'),
  exact: z.boolean().describe('false when there are more than `count` (show "count+")'),
});
export type BoundedCount = z.infer<typeof BoundedCountSchema>;

/** UTF-8 length of a string (contracts run in browsers too: no Buffer). */
export const utf8Bytes = (value: string): number => new TextEncoder().encode(value).length;

/** JSON objects stored as given (origin, modelConfig). Bounded by the body limit. */
export const JsonObjectSchema = z.record(z.string(), z.unknown());

export const PAGE_LIMIT_DEFAULT = 50;
export const PAGE_LIMIT_MAX = 200;
export const LimitSchema = z.coerce.number().int().min(1).max(PAGE_LIMIT_MAX).default(PAGE_LIMIT_DEFAULT);
export const CursorSchema = z
  .string()
  .max(512)
  .regex(/^[A-Za-z0-9_-]+$/, 'malformed cursor')
  .describe('opaque: the `nextCursor` of the page before (keyset paging; a forged one is a 400)');

/** Query-string booleans: `true|false|1|0` (z.coerce.boolean would read "false" as true). */
export const QueryBooleanSchema = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1');

export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    nextCursor: z.string().nullable().describe('send it back as `cursor` for the next page; null on the last page'),
  });
}

export type Page<T> = { items: T[]; nextCursor: string | null };
