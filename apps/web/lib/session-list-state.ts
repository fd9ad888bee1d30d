import { type ListSessionsQuery, ListSessionsQuerySchema } from '@statehouse/contracts';
import { inclusiveEnd } from './dates';
import { listState, type QueryState } from './params';

/** Keys that narrow the list (the empty state then offers to clear them). */
export const SESSION_FILTER_KEYS = [
  'q',
  'source',
  'model',
  'userId',
  'startedFrom',
  'startedTo',
  'status',
  'archived',
  'includeChildren',
] as const;

/** Everything the sessions list shows is in its URL: these keys, validated by the API's own schema. */
export const SESSION_LIST_KEYS = ['profile', ...SESSION_FILTER_KEYS, 'order', 'limit', 'cursor', 'view'] as const;
export type SessionListKey = (typeof SESSION_LIST_KEYS)[number];
export type SessionListRaw = Partial<Record<SessionListKey, string>>;
export type SessionListState = QueryState<SessionListKey, ListSessionsQuery>;

const sessionList = listState('/sessions', SESSION_LIST_KEYS, ListSessionsQuerySchema, {
  labels: {
    source: 'Source',
    model: 'Model',
    userId: 'User',
    startedFrom: 'Started from',
    startedTo: 'Started until',
    status: 'Status',
    archived: 'Archived',
    q: 'Text',
    order: 'Sort by',
    limit: 'Page size',
    cursor: 'Page',
  },
  prepare: (raw) => ({ ...raw, startedTo: inclusiveEnd(raw.startedTo) }),
});
export const parseSessionListState = sessionList.parse;
export const sessionListHref = sessionList.href;
export const isCompact = (raw: SessionListRaw) => raw.view === 'compact';
