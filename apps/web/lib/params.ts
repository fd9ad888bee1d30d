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

export interface QueryStateOptions<K extends string> {
  /** Values for keys the URL leaves out. */
  defaults?: Partial<Record<K, string>>;
  /** What each key is called on the page ("Started from"), for the words of a refusal. */
  labels?: Partial<Record<K, string>>;
  /** The URL's values as the API wants them (e.g. an inclusive end date made exclusive). */
  prepare?: (raw: Partial<Record<K, string>>) => Record<string, unknown>;
}

/** The URL's keys, validated by the API's schema; refusals are worded for people, not as zod's text. */
export function parseQueryState<K extends string, Q>(
  searchParams: RawSearchParams,
  keys: readonly K[],
  schema: QuerySchema<Q>,
  options: QueryStateOptions<K> = {},
): QueryState<K, Q> {
  const raw = pickParams(searchParams, keys);
  const input = { ...options.defaults, ...raw };
  const parsed = schema.safeParse(options.prepare ? options.prepare(input) : input);
  if (parsed.success) return { ok: true, raw, query: parsed.data };
  const labels: Record<string, string | undefined> = options.labels ?? {};
  return { ok: false, raw, issues: parsed.error.issues.map((issue) => issueText(issue, labels)) };
}

/** zod's messages, as a person would say them. */
const HUMAN_MESSAGES: [RegExp, (match: RegExpMatchArray) => string][] = [
  [/^Invalid option/, () => 'is not one of the offered choices'],
  [/expected number to be <=\s*(\d+)/, (m) => `must be at most ${m[1]}`],
  [/expected number to be >=\s*(\d+)/, (m) => `must be at least ${m[1]}`],
  [/expected (int|number)/, () => 'must be a whole number'],
  [/expected string to have <=\s*(\d+) characters/, (m) => `must be at most ${m[1]} characters`],
  [/expected string to have >=\s*(\d+) characters/, (m) => `must be at least ${m[1]} characters`],
  [/^Invalid (string|input)/, () => 'has characters that are not allowed here'],
  [/^must match|^lowercase label/, () => 'may hold lowercase letters, digits, “.”, “_” and “-” only'],
];

export function issueText(
  issue: { path: PropertyKey[]; message: string },
  labels: Record<string, string | undefined> = {},
): string {
  const key = issue.path.map(String).join('.');
  const label = labels[key] ?? (key ? key : 'The address');
  const rule = HUMAN_MESSAGES.find(([pattern]) => pattern.test(issue.message));
  if (rule) return `${label}: ${rule[1](issue.message.match(rule[0]) as RegExpMatchArray)}.`;
  // Messages written for people (the contracts' own refinements) keep their words, with names for
  // keys; one that names its fields needs no label in front.
  const named = issue.message.replace(/`(\w+)`/g, (_, name: string) => `“${labels[name] ?? name}”`);
  const sentence = named === issue.message ? `${label}: ${named}` : named;
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
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
  options: QueryStateOptions<K> = {},
): ListState<K, Q> {
  return {
    parse: (searchParams) => parseQueryState(searchParams, keys, schema, options),
    href: (raw, changes = {}) => hrefWith(pathname, { ...raw, ...changes }),
  };
}
