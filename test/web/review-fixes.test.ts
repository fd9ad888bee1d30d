import type { SearchHit, SearchResponse, SessionListItem } from '@statehouse/contracts';
import { describe, expect, it } from 'vitest';
import { dayStart, inclusiveEnd, zoneOf } from '../../apps/web/lib/dates.js';
import { deletionDoneHref } from '../../apps/web/lib/deletion.js';
import { choicesOf } from '../../apps/web/lib/facets.js';
import { parseSearchState, searchSummary } from '../../apps/web/lib/search-state.js';
import { conversationMessages, lineageHint } from '../../apps/web/lib/session-display.js';
import { parseSessionListState } from '../../apps/web/lib/session-list-state.js';

/**
 * Defects of the dashboard review, replayed on the pure parts of the dashboard: what a page says
 * it shows must be what it shows, and what it asks the API must mean what the user picked.
 */

const hit = (matchedIn: 'content' | 'title', id: number): SearchHit => ({
  sessionId: `s-${id}`,
  tipSessionId: `s-${id}`,
  sessionTitle: 'Deploy notes',
  tipSessionTitle: 'Deploy notes',
  profile: 'default',
  source: 'cli',
  messageId: id,
  role: 'user',
  snippet: 'deploy',
  matchedIn,
  rank: 1,
  timestamp: '2026-11-30T08:00:00.000Z',
});

const answer = (items: SearchHit[], total: SearchResponse['total']): SearchResponse => ({
  items,
  nextCursor: null,
  mode: 'word',
  degraded: false,
  total,
});

describe('search summary', () => {
  it('names title hits apart from the message total, so the numbers add up to the list', () => {
    // A title-only match: the API counts 0 messages, and the page shows one hit. Before: "0 results".
    expect(searchSummary(answer([hit('title', 1)], { count: 0, exact: true }), 'deploy', false)).toBe(
      '0 matching messages and 1 matching title for “deploy”',
    );
    expect(
      searchSummary(
        answer([hit('title', 1), hit('content', 2), hit('content', 3)], { count: 2, exact: true }),
        'x',
        false,
      ),
    ).toBe('2 matching messages and 1 matching title for “x”');
    expect(searchSummary(answer([hit('content', 2)], { count: 1, exact: true }), 'x', false)).toBe(
      '1 matching message for “x”',
    );
    expect(searchSummary(answer([hit('title', 1), hit('content', 2)], { count: 100, exact: false }), 'x', true)).toBe(
      '100+ matching messages and 1 matching title for “x” (1 message and 1 title on this page)',
    );
  });
});

describe('session list facets', () => {
  it('offers the values without the facet counts, which count something else than the list', () => {
    const choices = choicesOf({
      sources: [
        { value: 'discord', sessions: 12 },
        { value: 'cli', sessions: 3 },
      ],
      models: [
        { value: 'gpt-5', sessions: 9 },
        { value: null, sessions: 4 },
      ],
      truncated: false,
    });
    expect(choices.sources).toEqual([
      { value: 'discord', label: 'discord' },
      { value: 'cli', label: 'cli' },
    ]);
    expect(choices.models).toEqual([{ value: 'gpt-5', label: 'gpt-5' }]);
  });
});

describe('compressed conversation rows', () => {
  it('count the messages of the whole conversation, like its tokens, and say so', () => {
    const item = {
      id: 'tip',
      rootId: 'root',
      lineageKind: 'compression',
      parentSessionId: 'root',
      messageCount: 3,
      conversationUsage: { segments: 2, messageCount: 11 },
    } as unknown as SessionListItem;
    expect(conversationMessages(item)).toBe(11);
    expect(lineageHint(item)).toBe('Compressed conversation of 2 segments, started as root; figures cover all of it');
  });
});

describe('date filters', () => {
  it('are days in the time zone the form names (the browser’s), the end day included', () => {
    const state = parseSessionListState({
      startedFrom: '2026-11-30',
      startedTo: '2026-11-30',
      tz: 'America/New_York',
    });
    expect(state.ok && state.query.startedFrom).toBe('2026-11-30T05:00:00.000Z');
    expect(state.ok && state.query.startedTo).toBe('2026-12-01T05:00:00.000Z');
    const search = parseSearchState({ q: 'x', from: '2026-07-01', to: '2026-07-01', tz: 'Asia/Tokyo' });
    expect(search.ok && search.query.from).toBe('2026-06-30T15:00:00.000Z');
    expect(search.ok && search.query.to).toBe('2026-07-01T15:00:00.000Z');
  });

  it('are UTC days without a zone or with an unknown one, and follow daylight saving', () => {
    expect(inclusiveEnd('2026-11-30')).toBe('2026-12-01');
    expect(dayStart('2026-11-30', 'Not/AZone')).toBe('2026-11-30');
    expect(zoneOf('Not/AZone')).toBe('UTC');
    // New York: UTC−4 in summer, UTC−5 in winter; the day after the switch starts at the new offset.
    expect(dayStart('2026-07-01', 'America/New_York')).toBe('2026-07-01T04:00:00.000Z');
    expect(inclusiveEnd('2026-10-31', 'America/New_York')).toBe('2026-11-01T04:00:00.000Z');
    expect(inclusiveEnd('2026-11-01', 'America/New_York')).toBe('2026-11-02T05:00:00.000Z');
    // A full date-time is passed on as given.
    expect(dayStart('2026-11-30T08:00:00Z', 'America/New_York')).toBe('2026-11-30T08:00:00Z');
  });
});

describe('deletion result link', () => {
  it('carries receipts, never a deleted count a reader could edit', () => {
    const href = deletionDoneHref({ receipts: ['op-1'], skipped: [], back: '/sessions' });
    expect(new URL(href, 'http://x').searchParams.has('deleted')).toBe(false);
    expect(new URL(href, 'http://x').searchParams.getAll('receipt')).toEqual(['op-1']);
  });
});
