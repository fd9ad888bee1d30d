import { firstParam, hrefWith, type RawSearchParams } from './paths';

/**
 * Reading a page's URL. List pages keep their whole state there (filters, cursor, page size), read
 * with `parseQueryState` against the API's own query schema, so the page and the API agree on what
 * is valid.
 */

/** Route params arrive percent-encoded (ids may contain `:`); a malformed escape is kept as it came. */
export function decodeParam(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The first, trimmed, non-empty value of each key. */
export function pickParams<K extends string>(
  searchParams: RawSearchParams,
  keys: readonly K[],
): Partial<Record<K, string>> {
  const raw: Partial<Record<K, string>> = {};
  for (const key of keys) {
    const value = firstParam(searchParams[key])?.trim();
    if (value) raw[key] = value;
  }
  return raw;
}

/** A zod schema as far as this module needs it (the dashboard does not depend on zod itself). */
interface QuerySchema<Q> {
  safeParse(
    value: unknown,
  ): { success: true; data: Q } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
}

export type QueryState<K extends string, Q> =
  | { ok: true; raw: Partial<Record<K, string>>; query: Q }
  | { ok: false; raw: Partial<Record<K, string>>; issues: string[] };

/** The URL's keys, validated by the API's schema; `defaults` fill keys the URL leaves out. */
export function parseQueryState<K extends string, Q>(
  searchParams: RawSearchParams,
  keys: readonly K[],
  schema: QuerySchema<Q>,
  defaults: Partial<Record<K, string>> = {},
): QueryState<K, Q> {
  const raw = pickParams(searchParams, keys);
  const parsed = schema.safeParse({ ...defaults, ...raw });
  if (parsed.success) return { ok: true, raw, query: parsed.data };
  return { ok: false, raw, issues: parsed.error.issues.map(issueText) };
}

export function issueText(issue: { path: PropertyKey[]; message: string }): string {
  return `${issue.path.map(String).join('.') || 'query'}: ${issue.message}`;
}

export interface ListState<K extends string, Q> {
  /** The URL's state: its keys, validated by the API's schema. */
  parse(searchParams: RawSearchParams): QueryState<K, Q>;
  /** The list URL with some keys changed; `null` removes a key. */
  href(raw: Partial<Record<K, string>>, changes?: Partial<Record<K, string | null>>): string;
}

/** The URL state of one list page: which keys it keeps, how they are checked, how its links are built. */
export function listState<K extends string, Q>(
  pathname: string,
  keys: readonly K[],
  schema: QuerySchema<Q>,
  defaults: Partial<Record<K, string>> = {},
): ListState<K, Q> {
  return {
    parse: (searchParams) => parseQueryState(searchParams, keys, schema, defaults),
    href: (raw, changes = {}) => hrefWith(pathname, { ...raw, ...changes }),
  };
}
