import { type SearchHit, SearchQuerySchema, type SearchResponse } from '@statehouse/contracts';
import { formatBounded, plural } from './format';
import { listState } from './params';
import { type PeriodPreset, parsePeriod, periodIso } from './period';

/** The search page's URL: the query, its filters (dates included, with the zone they are days of) and the cursor. */
export const SEARCH_KEYS = ['q', 'profile', 'source', 'role', 'mode', 'period', 'from', 'to', 'tz', 'cursor'] as const;
export type SearchKey = (typeof SEARCH_KEYS)[number];
export type SearchRaw = Partial<Record<SearchKey, string>>;

const search = listState('/search', SEARCH_KEYS, SearchQuerySchema, {
  labels: { q: 'Search for', source: 'Source', role: 'Role', mode: 'Match', from: 'From', to: 'Until', cursor: 'Page' },
  // The shared period control (lib/period.ts): messages written in the period; none named: all time.
  prepare: ({ period, from, to, tz, ...raw }) => ({
    ...raw,
    ...periodIso(parsePeriod({ period, from, to, tz }, SEARCH_PERIOD), Date.now()),
  }),
});

/** Search's period when the URL names none: every message. */
export const SEARCH_PERIOD: PeriodPreset = 'all';
export const searchPeriod = (raw: SearchRaw) => parsePeriod(raw, SEARCH_PERIOD);
export const parseSearchState = search.parse;
export const searchHref = search.href;

export interface HitGroup {
  /** The conversation (its compression tip) the hits belong to. */
  tipSessionId: string;
  title: string | null;
  hits: SearchHit[];
}

/** Hits of one page grouped by conversation, in the order each conversation first appears (by rank). */
export function groupHits(hits: SearchHit[]): HitGroup[] {
  const groups = new Map<string, HitGroup>();
  for (const hit of hits) {
    let group = groups.get(hit.tipSessionId);
    if (!group) {
      group = { tipSessionId: hit.tipSessionId, title: hit.tipSessionTitle ?? hit.sessionTitle, hits: [] };
      groups.set(hit.tipSessionId, group);
    }
    group.hits.push(hit);
  }
  return [...groups.values()];
}

/**
 * The words above a page of hits. The API's `total` counts matching messages only; title hits
 * (sessions whose title matches, shown first on the first page) are not messages. So the two are
 * named apart — "3 matching messages and 2 matching titles" — and the numbers always add up to
 * what the list shows when everything fits on one page (before, a title-only match read
 * "0 results" above a visible hit).
 */
export function searchSummary(response: SearchResponse, q: string, paged: boolean): string {
  const titles = response.items.filter((hit) => hit.matchedIn === 'title').length;
  const messages = `${formatBounded(response.total)} matching ${response.total.count === 1 && response.total.exact ? 'message' : 'messages'}`;
  const titlePart = titles > 0 ? ` and ${plural(titles, 'matching title')}` : '';
  const shownMessages = response.items.length - titles;
  const onPage = paged
    ? ` (${plural(shownMessages, 'message')}${titles > 0 ? ` and ${plural(titles, 'title')}` : ''} on this page)`
    : '';
  return `${messages}${titlePart} for “${q}”${onPage}`;
}
