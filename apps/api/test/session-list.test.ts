import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, TEST_DIALECTS, useApi } from './harness.js';

type Row = {
  id: string;
  model: string | null;
  durationMs: number;
  conversationStartedAt: string;
  inputTokens: number;
  estimatedCostUsd: number;
  conversationUsage: {
    segments: number;
    messageCount: number;
    inputTokens: number;
    totalTokens: number;
    estimatedCostUsd: number;
  };
};

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`sessions list (filters, both-way paging, total) on ${dialect}`, () => {
    const { api, admin } = useApi(dialect);
    const list = async (query: Record<string, string | number>, headers = admin) => {
      const response = await api.http().get('/v1/sessions').query(query).set(headers);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body as {
        items: Row[];
        nextCursor: string | null;
        prevCursor: string | null;
        total: { count: number; exact: boolean };
      };
    };

    beforeAll(async () => {
      for (let i = 0; i < 7; i++) {
        await api.createSession({
          id: `page-${i}`,
          profile: 'paging',
          source: i % 2 ? 'telegram' : 'cli',
          model: i < 3 ? 'gpt-5' : 'claude-5',
          userId: i === 4 ? 'user-42' : undefined,
          messages: [{ role: 'user', content: `hello ${i}` }],
        });
      }
      // A compressed conversation: its tokens and cost are the sum of both segments.
      await api.createSession({
        id: 'chain-root',
        profile: 'chains',
        source: 'cli',
        model: 'gpt-5',
        messages: [{ role: 'user', content: 'start' }],
      });
      await api
        .http()
        .post('/v1/sessions/chain-root/messages')
        .set(admin)
        .send({
          messages: [{ role: 'assistant', content: 'one' }],
          usage: { inputTokens: 100, outputTokens: 10, estimatedCostUsd: 0.5 },
        })
        .expect(201);
      await api
        .http()
        .post('/v1/sessions/chain-root/compress')
        .set(admin)
        .set(await api.tokensOf('chain-root'))
        .send({ summary: 'so far', childId: 'chain-tip' })
        .expect(201);
      await api
        .http()
        .post('/v1/sessions/chain-tip/messages')
        .set(admin)
        .send({
          messages: [{ role: 'assistant', content: 'two' }],
          usage: { inputTokens: 40, outputTokens: 5, estimatedCostUsd: 0.25 },
        })
        .expect(201);
    });

    it('carries model, tokens, cost and duration; a compressed conversation sums its segments', async () => {
      const { items } = await list({ profile: 'chains' });
      expect(items.map((item) => item.id)).toEqual(['chain-tip']);
      const [tip] = items;
      expect(tip.model).toBe('gpt-5');
      expect(tip.inputTokens).toBe(40);
      expect(tip.conversationUsage).toMatchObject({
        segments: 2,
        inputTokens: 140,
        totalTokens: 155,
        estimatedCostUsd: 0.75,
      });
      expect(tip.durationMs).toBeGreaterThanOrEqual(0);
      const root = await api.http().get('/v1/sessions/chain-root').set(admin);
      expect(tip.conversationStartedAt).toBe(root.body.startedAt);
      // The row's message count is the whole conversation's too, like its tokens and duration
      // (before, only the tip segment's messages sat beside the chain's tokens).
      expect(tip.conversationUsage.messageCount).toBe(root.body.messageCount + tip.messageCount);
      expect(tip.conversationUsage.messageCount).toBeGreaterThan(tip.messageCount);
    });

    it('filters by model, user, source and time ranges; an inverted range is a 400', async () => {
      expect((await list({ profile: 'paging', model: 'gpt-5' })).items.map((i) => i.id)).toEqual([
        'page-2',
        'page-1',
        'page-0',
      ]);
      expect((await list({ profile: 'paging', userId: 'user-42' })).items.map((i) => i.id)).toEqual(['page-4']);
      expect((await list({ profile: 'paging', source: 'telegram', model: 'claude-5' })).items.map((i) => i.id)).toEqual(
        ['page-5', 'page-3'],
      );
      const all = (await list({ profile: 'paging', order: 'started' })).items as unknown as {
        id: string;
        startedAt: string;
      }[];
      const middle = all[3].startedAt;
      const before = await list({ profile: 'paging', order: 'started', startedTo: middle });
      expect(before.items.every((item) => (item as unknown as { startedAt: string }).startedAt < middle)).toBe(true);
      const since = await list({ profile: 'paging', activeFrom: new Date(Date.now() + 60_000).toISOString() });
      expect(since.items).toEqual([]);
      expect(since.total).toEqual({ count: 0, exact: true });
      const inverted = await api
        .http()
        .get('/v1/sessions')
        .query({ startedFrom: '2026-11-02', startedTo: '2026-11-01' })
        .set(admin);
      expect(inverted.status).toBe(400);
      expect((await api.http().get('/v1/sessions').query({ activeFrom: 'last week' }).set(admin)).status).toBe(400);
    });

    it('pages forward and back with opaque cursors and reports an exact total', async () => {
      const first = await list({ profile: 'paging', limit: 3 });
      expect(first.prevCursor).toBeNull();
      expect(first.total).toEqual({ count: 7, exact: true });
      expect(first.items.map((i) => i.id)).toEqual(['page-6', 'page-5', 'page-4']);
      const second = await list({ profile: 'paging', limit: 3, cursor: first.nextCursor! });
      expect(second.items.map((i) => i.id)).toEqual(['page-3', 'page-2', 'page-1']);
      expect(second.prevCursor).not.toBeNull();
      const third = await list({ profile: 'paging', limit: 3, cursor: second.nextCursor! });
      expect(third.items.map((i) => i.id)).toEqual(['page-0']);
      expect(third.nextCursor).toBeNull();
      const backToSecond = await list({ profile: 'paging', limit: 3, cursor: third.prevCursor! });
      expect(backToSecond.items.map((i) => i.id)).toEqual(['page-3', 'page-2', 'page-1']);
      expect(backToSecond.nextCursor).not.toBeNull();
      const backToFirst = await list({ profile: 'paging', limit: 3, cursor: backToSecond.prevCursor! });
      expect(backToFirst.items.map((i) => i.id)).toEqual(['page-6', 'page-5', 'page-4']);
      expect(backToFirst.prevCursor).toBeNull();
      // Back from the second page of two: the first page, full, with no way further back.
      const pairs = await list({ profile: 'paging', limit: 2 });
      const secondPair = await list({ profile: 'paging', limit: 2, cursor: pairs.nextCursor! });
      const firstPair = await list({ profile: 'paging', limit: 2, cursor: secondPair.prevCursor! });
      expect(firstPair.items.map((i) => i.id)).toEqual(['page-6', 'page-5']);
      expect(firstPair.prevCursor).toBeNull();
      expect((await api.http().get('/v1/sessions').query({ cursor: 'bm90LWEtY3Vyc29y' }).set(admin)).status).toBe(400);
    });

    it('bounds the total at 1000 ("1000+") and a member counts only its profiles', async () => {
      const rows = Array.from({ length: 1005 }, (_, i) => ({
        id: `bulk-${String(i).padStart(4, '0')}`,
        profile: 'bulk',
        source: 'cli',
        created_source: 'cli',
        started_at: 1_700_000_000_000 + i,
        last_activity_at: 1_700_000_000_000 + i,
      }));
      await api.store.db.insertInto('profiles').values({ name: 'bulk', created_at: 0 }).execute();
      for (let i = 0; i < rows.length; i += 200)
        await api.store.db
          .insertInto('sessions')
          .values(rows.slice(i, i + 200))
          .execute();
      const bulk = await list({ profile: 'bulk', limit: 5 });
      expect(bulk.total).toEqual({ count: 1000, exact: false });
      expect(bulk.items).toHaveLength(5);
      const member = bearer(await api.memberToken(['paging']));
      expect((await list({}, member)).total).toEqual({ count: 7, exact: true });
      expect((await list({ profile: 'bulk' }, member)).total).toEqual({ count: 0, exact: true });
    });
  });
}
