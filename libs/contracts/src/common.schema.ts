import { z } from 'zod';

/** Caller-chosen ids and every id on the wire share one alphabet (API.md, Limits). */
export const ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
export const IdSchema = z.string().regex(ID_PATTERN, 'must match [A-Za-z0-9._:-]{1,128}');

/** Profile names: a tenant namespace (SPEC §2.1). */
export const PROFILE_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const ProfileNameSchema = z.string().regex(PROFILE_PATTERN, 'must match [a-z0-9][a-z0-9_-]{0,63}');

export const IsoDateSchema = z.string().describe('ISO-8601 timestamp (UTC)');

/** JSON objects stored as given (origin, modelConfig). Bounded by the body limit. */
export const JsonObjectSchema = z.record(z.string(), z.unknown());

export const PAGE_LIMIT_DEFAULT = 50;
export const PAGE_LIMIT_MAX = 200;
export const LimitSchema = z.coerce.number().int().min(1).max(PAGE_LIMIT_MAX).default(PAGE_LIMIT_DEFAULT);
export const CursorSchema = z
  .string()
  .max(512)
  .regex(/^[A-Za-z0-9_-]+$/, 'malformed cursor');

/** Query-string booleans: `true|false|1|0` (z.coerce.boolean would read "false" as true). */
export const QueryBooleanSchema = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1');

export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), nextCursor: z.string().nullable() });
}

export type Page<T> = { items: T[]; nextCursor: string | null };
