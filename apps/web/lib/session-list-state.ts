import { ListSessionsQuerySchema } from '@statehouse/contracts';
import { dayStart, inclusiveEnd } from './dates';
import { listState } from './params';
import { type PeriodPreset, type PeriodRaw, parsePeriod, periodIso } from './period';
import { SESSION_LIST_KEYS } from './session-list-keys';

export { SESSION_FILTER_KEYS, SESSION_LIST_KEYS } from './session-list-keys';

export type SessionListKey = (typeof SESSION_LIST_KEYS)[number];
export type SessionListRaw = Partial<Record<SessionListKey, string>>;

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
    label: 'Label',
    order: 'Sort by',
    minMessages: 'Messages at least',
    maxMessages: 'Messages at most',
    minTokens: 'Tokens at least',
    minCostUsd: 'Cost at least',
    maxCostUsd: 'Cost at most',
    limit: 'Page size',
    cursor: 'Page',
  },
  prepare: ({ period, from, to, ...raw }) => ({
    ...raw,
    // The period is of last activity: conversations active in it (lib/period.ts).
    ...periodActivity({ period, from, to, tz: raw.tz }),
    // The URL's `view` is the dashboard's layout (list or compact), not the API's list view
    // (tips, roots, all): the dashboard always lists conversations at their tips.
    view: undefined,
    startedFrom: dayStart(raw.startedFrom, raw.tz),
    startedTo: inclusiveEnd(raw.startedTo, raw.tz),
  }),
});
export const parseSessionListState = sessionList.parse;

/** The sessions list's period when the URL names none: every conversation. */
export const SESSION_LIST_PERIOD: PeriodPreset = 'all';

function periodActivity(raw: PeriodRaw): { activeFrom?: string; activeTo?: string } {
  const { from, to } = periodIso(parsePeriod(raw, SESSION_LIST_PERIOD), Date.now());
  return { activeFrom: from, activeTo: to };
}

export const sessionListPeriod = (raw: SessionListRaw) => parsePeriod(raw, SESSION_LIST_PERIOD);

/** The list's URL keys the period control keeps when the period changes: all but the period's own and the cursor. */
export function periodKeepOfList(raw: SessionListRaw): Record<string, string | undefined> {
  const { period: _period, from: _from, to: _to, tz: _tz, cursor: _cursor, ...kept } = raw;
  return kept;
}
export const sessionListHref = sessionList.href;
export const isCompact = (raw: SessionListRaw) => raw.view === 'compact';
