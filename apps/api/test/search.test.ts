import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, TEST_DIALECTS, useApi } from './harness.js';

const HOSTILE = [
  '"unbalanced',
  'NEAR(',
  'NEAR(a b',
  '*',
  '"',
  '-',
  '--',
  'a AND OR NOT b',
  '(((',
  ')',
  "'; drop table messages; --",
  'col:value',
  '^start',
  '\\',
  '%_%',
  'x'.repeat(5000),
  '"'.repeat(300),
  '🙂🙂🙂',
  '\u0000\u0001',
];

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`search API on ${dialect}`, () => {
    const { api, admin } = useApi(dialect);

    beforeAll(async () => {
      await api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .send({
          id: 's-en',
          profile: 'alpha',
          source: 'cli',
          title: 'English',
          messages: [
            { role: 'user', content: 'How do I configure the trigram tokenizer?' },
            { role: 'assistant', content: 'Use the trigram tokenizer for substring search; it is case-insensitive.' },
            { role: 'tool', toolName: 'grep_codebase', content: 'toolonlyneedle in the output' },
          ],
        });
      await api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .send({
          id: 's-cjk',
          profile: 'alpha',
          source: 'telegram',
          messages: [
            { role: 'user', content: '请帮我整理一下今天产品规划会议的纪要。' },
            { role: 'assistant', content: '東京出張の準備を手伝います。' },
          ],
        });
      await api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .send({
          id: 's-cron',
          profile: 'alpha',
          source: 'cron',
          messages: [{ role: 'assistant', content: 'nightly cronjobfragment report' }],
        });
    });

    it('[search.results] finds words with a snippet that marks the match, ranked', async () => {
      const response = await api.http().get('/v1/search?q=tokenizer').set(admin);
      expect(response.status).toBe(200);
      expect(response.body.mode).toBe('word');
      expect(response.body.degraded).toBe(false);
      expect(response.body.items).toHaveLength(2);
      for (const hit of response.body.items) {
        expect(hit).toMatchObject({ sessionId: 's-en', tipSessionId: 's-en', sessionTitle: 'English' });
        expect(hit.snippet).toContain('\u0002tokenizer\u0003');
      }
    });

    it('[search.indexes] finds CJK substrings (Chinese and Japanese, two and more characters)', async () => {
      for (const q of ['会议', '产品规划', '東京出張', '準備']) {
        const response = await api
          .http()
          .get(`/v1/search?q=${encodeURIComponent(q)}`)
          .set(admin);
        expect(response.status).toBe(200);
        expect(response.body.mode).toBe('substring');
        expect(response.body.items.map((hit: { sessionId: string }) => hit.sessionId)).toEqual(['s-cjk']);
        expect(response.body.items[0].snippet).toContain(`\u0002${q}\u0003`);
      }
    });

    it('falls back to substrings when whole words find nothing, and honours an explicit mode', async () => {
      const fragment = await api.http().get('/v1/search?q=igra').set(admin);
      expect(fragment.body.mode).toBe('substring');
      expect(fragment.body.items.length).toBeGreaterThan(0);
      const wordOnly = await api.http().get('/v1/search?q=igra&mode=word').set(admin);
      expect(wordOnly.body.items).toEqual([]);
    });

    it('[search.default-scope] word and substring search agree: tool output and cron sessions are out by default, in when asked', async () => {
      const ids = (response: { body: { items: { sessionId: string; role: string }[] } }) =>
        response.body.items.map((hit) => `${hit.sessionId}:${hit.role}`);
      const get = (query: string) => api.http().get(`/v1/search?${query}`).set(admin).expect(200);
      // The default scope, the same in both modes.
      for (const query of ['q=toolonlyneedle&mode=word', 'q=onlyneedl&mode=substring'])
        expect(ids(await get(query))).toEqual([]);
      for (const query of ['q=cronjobfragment&mode=word', 'q=jobfragm&mode=substring'])
        expect(ids(await get(query))).toEqual([]);
      expect(ids(await get('q=grep_codebase'))).toEqual([]);
      // Asking for them: by role, by naming the surface, or by excluding fewer surfaces.
      for (const query of [
        'q=toolonlyneedle&mode=word&role=tool',
        'q=onlyneedl&mode=substring&role=tool',
        'q=grep_codebase&role=tool',
      ]) {
        expect(ids(await get(query)), query).toEqual(['s-en:tool']);
      }
      for (const query of [
        'q=cronjobfragment&mode=word&source=cron',
        'q=jobfragm&mode=substring&source=cron',
        'q=cronjobfragment&mode=word&excludeSource=subagent',
        'q=jobfragm&mode=substring&excludeSource=',
        'q=jobfragm&mode=substring&source=cli,cron',
      ]) {
        expect(ids(await get(query)), query).toEqual(['s-cron:assistant']);
      }
      // Excluding a surface that the default keeps.
      expect(ids(await get('q=tokenizer&excludeSource=cli'))).toEqual([]);
      expect(ids(await get('q=tokenizer&source=telegram,cron'))).toEqual([]);
      // A malformed list is refused like any other bad input.
      const bad = await api.http().get('/v1/search?q=x&excludeSource=Not%20A%20Surface').set(admin);
      expect(bad.status).toBe(400);
    });

    it('filters by role and source and pages with a cursor', async () => {
      const users = await api.http().get('/v1/search?q=trigram&role=user').set(admin);
      expect(users.body.items.map((hit: { role: string }) => hit.role)).toEqual(['user']);
      const page1 = await api.http().get('/v1/search?q=trigram&limit=1').set(admin);
      expect(page1.body.items).toHaveLength(1);
      expect(page1.body.nextCursor).toBeTruthy();
      const page2 = await api.http().get(`/v1/search?q=trigram&limit=1&cursor=${page1.body.nextCursor}`).set(admin);
      expect(page2.body.items).toHaveLength(1);
      expect(page2.body.items[0].messageId).not.toBe(page1.body.items[0].messageId);
      expect(page2.body.nextCursor).toBeNull();
      const telegram = await api.http().get('/v1/search?q=trigram&source=telegram').set(admin);
      expect(telegram.body.items).toEqual([]);
    });

    it('[search.check-rebuild] reports index integrity and rebuilds on request (admin only)', async () => {
      const status = await api.http().get('/v1/search/index?check=true').set(admin);
      expect(status.status).toBe(200);
      expect(status.body).toMatchObject({ status: 'ready', degraded: false, integrity: { ok: true } });
      const rebuild = await api.http().post('/v1/search/index/rebuild').set(admin).send();
      expect(rebuild.status).toBe(202);
      await api.store.searchIndex.idle();
      const after = await api.http().get('/v1/search/index?check=true').set(admin);
      expect(after.body).toMatchObject({ status: 'ready', integrity: { ok: true }, lastRebuild: { error: null } });
      expect((await api.http().get('/v1/search?q=tokenizer').set(admin)).body.items).toHaveLength(2);
      const member = bearer(await api.memberToken(['alpha']));
      expect((await api.http().get('/v1/search/index').set(member)).status).toBe(403);
      expect((await api.http().post('/v1/search/index/rebuild').set(member).send()).status).toBe(403);
    });

    it('[search.query-syntax] answers hostile query strings with 200 or 400, never a server error', async () => {
      for (const q of HOSTILE) {
        for (const mode of ['auto', 'word', 'substring']) {
          const response = await api
            .http()
            .get(`/v1/search?mode=${mode}&q=${encodeURIComponent(q)}`)
            .set(admin);
          expect([200, 400], `q=${q.slice(0, 20)} mode=${mode} → ${response.status}`).toContain(response.status);
          if (response.status === 400) expect(response.body.code).toBe('validation_failed');
        }
      }
      const empty = await api.http().get('/v1/search?q=').set(admin);
      expect(empty.status).toBe(400);
    });
  });
}
