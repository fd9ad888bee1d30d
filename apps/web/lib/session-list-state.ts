import { type ListSessionsQuery, ListSessionsQuerySchema } from '@statehouse/contracts';
import { dayStart, inclusiveEnd } from './dates';
import { listState, type QueryState } from './params';
import { SESSION_LIST_KEYS } from './session-list-keys';

export { SESSION_FILTER_KEYS, SESSION_LIST_KEYS } from './session-list-keys';

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
  prepare: (raw) => ({
    ...raw,
    startedFrom: dayStart(raw.startedFrom, raw.tz),
    startedTo: inclusiveEnd(raw.startedTo, raw.tz),
  }),
});
export const parseSessionListState = sessionList.parse;
export const sessionListHref = sessionList.href;
export const isCompact = (raw: SessionListRaw) => raw.view === 'compact';
