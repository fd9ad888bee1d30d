import { beforeAll, describe, expect, it } from 'vitest';
import { adminPrincipal, aSession, contextOf, memberPrincipal, TEST_DIALECTS } from '../testing/index.js';
import { useTestStore } from '../testing/suites.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: the snippet markers are control characters.
const MARKERS = /[\u0002\u0003]/g;

const admin = contextOf(adminPrincipal);
const plain = (snippet: string) => snippet.replace(MARKERS, '');

/** What search reaches beyond the plain word index: operators, scoped scans, titles, tool calls (docs/domain.md §7). */
for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`search coverage on ${dialect}`, () => {
    const t = useTestStore(dialect);
    const search = (q: string, extra: Record<string, unknown> = {}) =>
      t.store.search.search(admin, { q, mode: 'auto', limit: 20, ...extra } as never);

    beforeAll(async () => {
      await aSession(t.store, {
        id: 'cov-chat',
        profile: 'cov',
        source: 'telegram',
        title: 'Quarterly zeppelin review',
        messages: [
          { role: 'user', content: 'bravo team status' },
          { role: 'assistant', content: 'delta team status' },
          {
            role: 'assistant',
            content: null,
            toolCalls: [
              {
                id: 'call_1',
                type: 'function',
                function: { name: 'web_search', arguments: JSON.stringify({ query: 'marzipan recipes', limit: 3 }) },
              },
            ],
          },
        ],
      });
      await aSession(t.store, {
        id: 'cov-hangar',
        profile: 'cov',
        title: 'Hangar inventory',
        messages: [{ role: 'user', content: 'the hangar inventory list' }],
      });
      await aSession(t.store, {
        id: 'cov-cron',
        profile: 'cov',
        source: 'cron',
        messages: [{ role: 'assistant', content: '夜间任务报告：数据库备份完成' }],
      });
      await aSession(t.store, {
        id: 'cov-helper',
        profile: 'cov',
        parentSessionId: 'cov-chat',
        lineageKind: 'delegate',
        messages: [{ role: 'assistant', content: '子任务：检查索引碎片' }],
      });
    });

    it('[search.query-syntax] OR finds either alternative', async () => {
      const result = await search('bravo OR delta');
      expect(
        result.items
          .filter((hit) => hit.matchedIn === 'content')
          .map((hit) => plain(hit.snippet))
          .sort(),
      ).toEqual(['bravo team status', 'delta team status']);
      expect((await search('team -bravo')).items.map((hit) => plain(hit.snippet))).toEqual(['delta team status']);
    });

    it('[search.default-scope] [search.bounded-scan] substring search with source=cron or inside a delegate session adds a bounded scan', async () => {
      // Those rows are outside the substring index by design…
      expect((await search('备份', { mode: 'substring' })).items).toEqual([]);
      // …but a filter that selects them gets them, newest first.
      const cron = await search('备份', { source: ['cron'] });
      expect(cron.items.map((hit) => hit.sessionId)).toEqual(['cov-cron']);
      expect(cron.items[0].snippet).toContain('\u0002备份\u0003');
      const delegate = await search('索引', { sessionId: 'cov-helper' });
      expect(delegate.items.map((hit) => hit.sessionId)).toEqual(['cov-helper']);
      // The scoped scan stays owner-fenced.
      const outsider = await t.store.search.search(contextOf(memberPrincipal(['other'])), {
        q: '备份',
        mode: 'auto',
        limit: 20,
        source: ['cron'],
      });
      expect(outsider.items).toEqual([]);
    });

    it('[search.hit-display] a title matches and the hit names it', async () => {
      const result = await search('zeppelin');
      expect(result.items[0]).toMatchObject({
        matchedIn: 'title',
        sessionId: 'cov-chat',
        sessionTitle: 'Quarterly zeppelin review',
        snippet: 'Quarterly \u0002zeppelin\u0003 review',
      });
      // It links to the first visible message of the session.
      const first = await t.store.messages.list(admin, 'cov-chat', {
        limit: 1,
        includeCompacted: true,
        includeHidden: false,
        includeInactive: false,
        order: 'oldest',
      });
      expect(result.items[0].messageId).toBe(first.items[0].id);
      expect((await search('quarterly -zeppelin')).items).toEqual([]);
      // A session the message hits already show is not named twice.
      const both = await search('hangar');
      expect(both.items.map((hit) => [hit.sessionId, hit.matchedIn])).toEqual([['cov-hangar', 'content']]);
    });

    it('[search.hit-display] a tool-call hit reads as a call, not as escaped JSON', async () => {
      const [hit] = (await search('marzipan')).items;
      expect(hit.role).toBe('assistant');
      expect(plain(hit.snippet)).toBe('web_search(query: marzipan recipes, limit: 3)');
      expect(hit.snippet).toContain('\u0002marzipan\u0003');
    });
  });
}
