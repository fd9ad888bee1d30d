import { type ListSessionsQuery, ListSessionsQuerySchema } from '@statehouse/contracts';
import { listState, type QueryState } from './params';

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

const sessionList = listState('/sessions', SESSION_LIST_KEYS, ListSessionsQuerySchema);
export const parseSessionListState = sessionList.parse;
export const sessionListHref = sessionList.href;
