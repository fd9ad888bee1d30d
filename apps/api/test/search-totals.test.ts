import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, TEST_DIALECTS, useApi } from './harness.js';

const DAY = 86_400_000;

type Hit = { sessionId: string; tipSessionId: string; tipSessionTitle: string | null; timestamp: string };
type Answer = { items: Hit[]; nextCursor: string | null; total: { count: number; exact: boolean } };

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`search totals, dates and conversations on ${dialect}`, () => {
    const { api, admin } = useApi(dialect);
    const search = async (query: Record<string, string | number>, headers = admin) => {
      const response = await api.http().get('/v1/search').query(query).set(headers);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body as Answer;
    };
    const now = Date.now();

    beforeAll(async () => {
      // 130 messages with the word "zephyrine" over 130 days, in 13 sessions of 10.
      for (let s = 0; s < 13; s++) {
        await api.createSession({
          id: `many-${s}`,
          profile: 'totals',
          source: 'cli',
          messages: Array.from({ length: 10 }, (_, m) => ({
            role: 'user',
            content: `note ${s}-${m} about zephyrine and the substring fragmentxq`,
            timestamp: now - (s * 10 + m + 1) * DAY,
          })),
        });
      }
      // A compressed conversation: hits in the old segment belong to the tip's conversation.
      await api.createSession({
        id: 'conv-root',
        profile: 'totals',
        source: 'cli',
        title: 'Quokka planning',
        messages: [
          { role: 'user', content: 'quokka habitat survey one' },
          { role: 'assistant', content: 'quokka survey plan two' },
        ],
      });
      await api
        .http()
        .post('/v1/sessions/conv-root/compress')
        .set(admin)
        .set(await api.tokensOf('conv-root'))
        .send({ summary: 'planning so far', keepLastMessages: 0, childId: 'conv-tip' })
        .expect(201);
      await api
        .http()
        .post('/v1/sessions/conv-tip/messages')
        .set(admin)
        .send({ messages: [{ role: 'user', content: 'quokka survey three' }] })
        .expect(201);
    });

    it('counts a true total up to 100 and says "100+" beyond it, on every page', async () => {
      const first = await search({ q: 'zephyrine', limit: 20, profile: 'totals' });
      expect(first.items).toHaveLength(20);
      expect(first.total).toEqual({ count: 100, exact: false });
      const second = await search({ q: 'zephyrine', limit: 20, profile: 'totals', cursor: first.nextCursor! });
      expect(second.total).toEqual({ count: 100, exact: false });
      const substring = await search({ q: 'ragmentx', mode: 'substring', limit: 5, profile: 'totals' });
      expect(substring.total).toEqual({ count: 100, exact: false });
      // 40 of them in the last 40 days: an exact count, larger than the page.
      const recent = await search({
        q: 'zephyrine',
        limit: 10,
        profile: 'totals',
        from: new Date(now - 40 * DAY - DAY / 2).toISOString(),
      });
      expect(recent.total).toEqual({ count: 40, exact: true });
      expect(recent.items).toHaveLength(10);
    });

    it('filters by date range (messages at or after `from`, before `to`)', async () => {
      const from = new Date(now - 25 * DAY - DAY / 2).toISOString();
      const to = new Date(now - 20 * DAY - DAY / 2).toISOString();
      const hits = await search({ q: 'zephyrine', limit: 50, from, to });
      expect(hits.total).toEqual({ count: 5, exact: true });
      for (const hit of hits.items) {
        expect(hit.timestamp >= from && hit.timestamp < to).toBe(true);
      }
      const cjkLike = await search({ q: 'fragmentxq', mode: 'substring', limit: 50, from, to });
      expect(cjkLike.items).toHaveLength(5);
      expect((await api.http().get('/v1/search').query({ q: 'x', from: 'soon' }).set(admin)).status).toBe(400);
      const inverted = await api.http().get('/v1/search').query({ q: 'zephyrine', from: to, to: from }).set(admin);
      expect(inverted.status).toBe(400);
      expect(inverted.body.code).toBe('validation_failed');
    });

    it('[search.results] names each hit’s conversation (tip id and title) so hits group by conversation', async () => {
      const hits = await search({ q: 'quokka', limit: 20 });
      expect(hits.total).toEqual({ count: 3, exact: true });
      const bySession = Object.fromEntries(hits.items.map((hit) => [hit.sessionId, hit]));
      expect(Object.keys(bySession).sort()).toEqual(['conv-root', 'conv-tip']);
      for (const hit of hits.items) {
        expect(hit.tipSessionId).toBe('conv-tip');
        expect(hit.tipSessionTitle).toBe('Quokka planning');
      }
      expect(new Set(hits.items.map((hit) => hit.tipSessionId)).size).toBe(1);
    });

    it('[search.results] [security.owner-fence] counts only what a member may see', async () => {
      const member = bearer(await api.memberToken(['elsewhere']));
      const none = await search({ q: 'zephyrine' }, member);
      expect(none.items).toEqual([]);
      expect(none.total).toEqual({ count: 0, exact: true });
    });
  });
}
