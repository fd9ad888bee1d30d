import { z } from 'zod';
import { ValidationError } from './errors.js';

/**
 * Keyset cursors: the last key of a page, opaque to clients (base64url JSON). A cursor comes back
 * from the client, so it is untrusted input: it is decoded through a schema of its parts before
 * any part reaches SQL — integers are safe integers, numbers finite, text bounded, well-formed and
 * free of NUL (docs/security.md, "Input hygiene").
 */
/** With the `u` flag a paired surrogate is one code point, so this matches lone halves only. */
const LONE_SURROGATE = /\p{Cs}/u;

export const CursorPart = {
  /** Epoch milliseconds: a non-negative safe integer. */
  epochMs: z.number().int().min(0),
  /** A non-negative safe integer (a row id). */
  id: z.number().int().min(0),
  /** A search rank: finite, and far inside what either index produces (bm25, ts_rank). */
  rank: z.number().min(-1e9).max(1e9),
  /** Text from a key column: ids, profile names, session keys. */
  text: z
    .string()
    .max(1024)
    .refine((value) => !value.includes('\u0000') && !LONE_SURROGATE.test(value), 'not a key'),
  tag: <const T extends string>(...values: [T, ...T[]]) => z.enum(values),
};

/** The decoded shape of one kind of cursor: its parts, in order. */
export const cursorShape = <T extends [z.ZodType, ...z.ZodType[]]>(...parts: T) => z.tuple(parts);

export function encodeCursor(key: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

export function decodeCursor<T extends z.ZodTuple>(cursor: string, schema: T): z.output<T> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new ValidationError('malformed cursor', [{ path: 'cursor', message: 'malformed cursor' }]);
  }
  const checked = schema.safeParse(parsed);
  if (!checked.success) {
    throw new ValidationError('malformed cursor', [{ path: 'cursor', message: 'malformed cursor' }]);
  }
  return checked.data;
}
