import { beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS, useApi } from './harness.js';

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`messages API on ${dialect}`, () => {
    const { api, admin } = useApi(dialect);

    beforeAll(async () => {
      await api.http().post('/v1/sessions').set(admin).send({ id: 'm-1', profile: 'alpha', source: 'cli' });
    });

    it('[session.revision-generation] [messages.content-kept] appends a batch in order, bumps the revision once, and returns the ids', async () => {
      const response = await api
        .http()
        .post('/v1/sessions/m-1/messages')
        .set(admin)
        .send({
          messages: [
            { role: 'user', content: 'hello there' },
            { role: 'assistant', content: [{ type: 'text', text: 'structured hello' }], tokenCount: 3 },
            { role: 'tool', toolName: 'shell', toolCallId: 'c1', content: 'ls output' },
          ],
          usage: { inputTokens: 10, outputTokens: 4, estimatedCostUsd: 0.002 },
        });
      expect(response.status).toBe(201);
      expect(response.body.ids).toHaveLength(3);
      expect(response.body.ids[0]).toBeLessThan(response.body.ids[1]);
      expect(response.body).toMatchObject({ created: 3, revision: 2, generation: 0 });

      const session = await api.http().get('/v1/sessions/m-1').set(admin);
      expect(session.body).toMatchObject({ messageCount: 3, inputTokens: 10, outputTokens: 4, revision: 2 });
      expect(session.body.estimatedCostUsd).toBeCloseTo(0.002);

      const messages = await api.http().get('/v1/sessions/m-1/messages').set(admin);
      expect(messages.body.items.map((m: { content: unknown }) => m.content)).toEqual([
        'hello there',
        [{ type: 'text', text: 'structured hello' }],
        'ls output',
      ]);
    });

    it('[messages.platform-dedupe] dedupes platformMessageId: a duplicate returns the existing row and creates nothing', async () => {
      const first = await api
        .http()
        .post('/v1/sessions/m-1/messages')
        .set(admin)
        .send({ messages: [{ role: 'user', content: 'from telegram', platformMessageId: 'tg-42' }] });
      const again = await api
        .http()
        .post('/v1/sessions/m-1/messages')
        .set(admin)
        .send({
          messages: [
            { role: 'user', content: 'from telegram (retry)', platformMessageId: 'tg-42' },
            { role: 'user', content: 'new one', platformMessageId: 'tg-43' },
            { role: 'user', content: 'new one twice', platformMessageId: 'tg-43' },
          ],
        });
      expect(again.status).toBe(201);
      expect(again.body.ids[0]).toBe(first.body.ids[0]);
      expect(again.body.ids[1]).toBe(again.body.ids[2]);
      expect(again.body.created).toBe(1);
      const all = await api.http().get('/v1/sessions/m-1/messages?limit=1000').set(admin);
      const platformIds = all.body.items
        .map((m: { platformMessageId: string | null }) => m.platformMessageId)
        .filter(Boolean);
      expect(platformIds).toEqual(['tg-42', 'tg-43']);

      const noop = await api
        .http()
        .post('/v1/sessions/m-1/messages')
        .set(admin)
        .send({ messages: [{ role: 'user', content: 'x', platformMessageId: 'tg-42' }] });
      expect(noop.body).toMatchObject({ created: 0, revision: again.body.revision });
    });

    it('[messages.display-kind] keeps hidden rows out of transcripts, previews and search unless asked', async () => {
      await api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .send({
          id: 'hidden-1',
          profile: 'alpha',
          source: 'cli',
          messages: [
            { role: 'user', content: 'invisible quasarword scaffolding', displayKind: 'hidden' },
            { role: 'user', content: 'the visible question' },
          ],
        });
      const session = await api.http().get('/v1/sessions?profile=alpha&q=visible').set(admin);
      expect(session.body.items[0]).toMatchObject({ id: 'hidden-1', preview: 'the visible question', messageCount: 1 });
      const transcript = await api.http().get('/v1/sessions/hidden-1/messages').set(admin);
      expect(transcript.body.items.map((m: { content: string }) => m.content)).toEqual(['the visible question']);
      const withHidden = await api.http().get('/v1/sessions/hidden-1/messages?includeHidden=true').set(admin);
      expect(withHidden.body.items).toHaveLength(2);
      for (const mode of ['word', 'substring', 'auto']) {
        const search = await api.http().get(`/v1/search?q=quasarword&mode=${mode}`).set(admin);
        expect(search.status).toBe(200);
        expect(search.body.items).toEqual([]);
      }
    });

    it('pages the transcript by id in both orders', async () => {
      await api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .send({
          id: 'paged',
          profile: 'alpha',
          source: 'cli',
          messages: Array.from({ length: 7 }, (_, i) => ({ role: 'user', content: `line ${i}` })),
        });
      const page1 = await api.http().get('/v1/sessions/paged/messages?limit=3').set(admin);
      const page2 = await api
        .http()
        .get(`/v1/sessions/paged/messages?limit=3&cursor=${page1.body.nextCursor}`)
        .set(admin);
      const page3 = await api
        .http()
        .get(`/v1/sessions/paged/messages?limit=3&cursor=${page2.body.nextCursor}`)
        .set(admin);
      const contents = [...page1.body.items, ...page2.body.items, ...page3.body.items].map(
        (m: { content: string }) => m.content,
      );
      expect(contents).toEqual(Array.from({ length: 7 }, (_, i) => `line ${i}`));
      expect(page3.body.nextCursor).toBeNull();
      const latest = await api.http().get('/v1/sessions/paged/messages?limit=2&order=latest').set(admin);
      expect(latest.body.items.map((m: { content: string }) => m.content)).toEqual(['line 6', 'line 5']);
    });

    it('enforces If-Match and X-Expected-Generation on appends when given', async () => {
      const current = await api.http().get('/v1/sessions/m-1').set(admin);
      const stale = await api
        .http()
        .post('/v1/sessions/m-1/messages')
        .set(admin)
        .set('If-Match', '"1"')
        .send({ messages: [{ role: 'user', content: 'late' }] });
      expect(stale.status).toBe(412);
      expect(stale.body.currentRevision).toBe(current.body.revision);
      const staleGeneration = await api
        .http()
        .post('/v1/sessions/m-1/messages')
        .set(admin)
        .set('X-Expected-Generation', '5')
        .send({ messages: [{ role: 'user', content: 'late' }] });
      expect(staleGeneration.status).toBe(409);
      expect(staleGeneration.body).toMatchObject({ code: 'stale_generation', currentGeneration: 0 });
      const ok = await api
        .http()
        .post('/v1/sessions/m-1/messages')
        .set(admin)
        .set('If-Match', `"${current.body.revision}"`)
        .set('X-Expected-Generation', '0')
        .send({ messages: [{ role: 'user', content: 'on time' }] });
      expect(ok.status).toBe(201);
    });

    it('[security.bounded-input] rejects empty and oversized batches', async () => {
      const empty = await api.http().post('/v1/sessions/m-1/messages').set(admin).send({ messages: [] });
      expect(empty.status).toBe(400);
      const tooMany = await api
        .http()
        .post('/v1/sessions/m-1/messages')
        .set(admin)
        .send({ messages: Array.from({ length: 1001 }, () => ({ role: 'user', content: 'x' })) });
      expect(tooMany.status).toBe(400);
      const unknownSession = await api
        .http()
        .post('/v1/sessions/nope/messages')
        .set(admin)
        .send({ messages: [{ role: 'user', content: 'x' }] });
      expect(unknownSession.status).toBe(404);
    });
  });
}
