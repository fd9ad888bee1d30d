import { ValidationError } from './errors.js';

/** Keyset cursors: the last key of a page, opaque to clients (base64url JSON). */
export function encodeCursor(key: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

export function decodeCursor(cursor: string, shape: readonly ('string' | 'number')[]): (string | number)[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new ValidationError('malformed cursor');
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== shape.length ||
    parsed.some((value, index) => typeof value !== shape[index])
  ) {
    throw new ValidationError('malformed cursor');
  }
  return parsed as (string | number)[];
}
