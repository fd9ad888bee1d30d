import { type ListSessionsQuery, ListSessionsQuerySchema } from '@statehouse/contracts';
import { parseQueryState, type QueryState } from './params';
import { hrefWith, type RawSearchParams } from './paths';

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
export type SessionListState = QueryState<SessionListKey, ListSessionsQuery>;

export function parseSessionListState(searchParams: RawSearchParams): SessionListState {
  return parseQueryState(searchParams, SESSION_LIST_KEYS, ListSessionsQuerySchema);
}

/** The list URL with some keys changed; `null` removes a key. */
export function sessionListHref(raw: SessionListRaw, changes: Partial<Record<SessionListKey, string | null>> = {}) {
  return hrefWith('/sessions', { ...raw, ...changes });
}
