import { ValidationError } from '@statehouse/state';
import type { NextFunction, Response } from 'express';
import type { StatehouseRequest } from './request.js';

/** With the `u` flag a paired surrogate is one code point, so this matches lone halves only. */
const LONE_SURROGATE = /\p{Cs}/gu;

/**
 * Text as both dialects can store it identically (docs/security.md, "Input hygiene"): NUL (which
 * PostgreSQL text cannot hold) and lone surrogates (which SQLite and PostgreSQL would each mangle
 * their own way) become U+FFFD.
 */
export function wellFormedText(value: string): string {
  let text = value;
  if (text.includes('\u0000')) text = text.replaceAll('\u0000', '\uFFFD');
  LONE_SURROGATE.lastIndex = 0;
  if (LONE_SURROGATE.test(text)) text = text.replace(LONE_SURROGATE, '\uFFFD');
  return text;
}

/** JSON.parse reviver for request bodies: every string value and every member name made well-formed. */
export function wellFormedJson(_key: string, value: unknown): unknown {
  if (typeof value === 'string') return wellFormedText(value);
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (keys.some((key) => wellFormedText(key) !== key)) {
      return Object.fromEntries(keys.map((key) => [wellFormedText(key), (value as Record<string, unknown>)[key]]));
    }
  }
  return value;
}

/**
 * A NUL byte in the path or the query (`%00`) is refused before routing: ids, filters and cursors
 * never carry one, and PostgreSQL cannot compare text with it. Header values cannot hold a NUL
 * (Node's HTTP parser refuses the request).
 */
export function refuseNulInUrl(request: StatehouseRequest, _response: Response, next: NextFunction): void {
  if (/%00/i.test(request.originalUrl ?? request.url)) {
    next(new ValidationError('the request URL contains a NUL byte', [{ path: 'url', message: 'NUL byte' }]));
    return;
  }
  next();
}
