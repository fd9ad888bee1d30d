import { type ListSessionsQuery, ListSessionsQuerySchema } from '@statehouse/contracts';
import { firstParam, hrefWith, type RawSearchParams } from './paths';

/** Everything the sessions list shows is in its URL: these keys, validated by the API's own schema. */
export const SESSION_LIST_KEYS = [
  'profile',
  'source',
  'status',
  'archived',
  'q',
  'includeChildren',
  'order',
  'limit',
  'cursor',
] as const;
export type SessionListKey = (typeof SESSION_LIST_KEYS)[number];
export type SessionListRaw = Partial<Record<SessionListKey, string>>;

export type SessionListState =
  | { ok: true; raw: SessionListRaw; query: ListSessionsQuery }
  | { ok: false; raw: SessionListRaw; issues: string[] };

export function parseSessionListState(searchParams: RawSearchParams): SessionListState {
  const raw: SessionListRaw = {};
  for (const key of SESSION_LIST_KEYS) {
    const value = firstParam(searchParams[key])?.trim();
    if (value) raw[key] = value;
  }
  const parsed = ListSessionsQuerySchema.safeParse(raw);
  if (parsed.success) return { ok: true, raw, query: parsed.data };
  return {
    ok: false,
    raw,
    issues: parsed.error.issues.map((issue) => `${issue.path.join('.') || 'query'}: ${issue.message}`),
  };
}

/** The list URL with some keys changed; `null` removes a key. */
export function sessionListHref(raw: SessionListRaw, changes: Partial<Record<SessionListKey, string | null>> = {}) {
  return hrefWith('/sessions', { ...raw, ...changes });
}
