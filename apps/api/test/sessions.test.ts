import { describe, expect, it } from 'vitest';
import { bearer, TEST_DIALECTS, useApi } from './harness.js';

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`sessions API on ${dialect}`, () => {
    const { api, admin } = useApi(dialect);

    it('[security.authentication] answers 401 problem+json without credentials, and with a wrong token', async () => {
      for (const headers of [{}, bearer('sh_not-a-token')]) {
        const response = await api.http().get('/v1/sessions').set(headers);
        expect(response.status).toBe(401);
        expect(response.headers['content-type']).toMatch(/application\/problem\+json/);
        expect(response.body).toMatchObject({ status: 401, code: 'unauthenticated' });
        expect(response.body.stack).toBeUndefined();
      }
    });

    it('[session.counters-visible] [session.create-with-messages] creates a session with opening messages in one call and reports the visible count', async () => {
      const response = await api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .send({
          id: 'create-1',
          profile: 'alpha',
          source: 'cli',
          title: '  Planning\u200B   notes\u0007 ',
          messages: [
            { role: 'system', content: 'scaffolding', displayKind: 'hidden' },
            { role: 'user', content: 'first question' },
            { role: 'assistant', content: 'an answer', toolCalls: [{ id: 'c1' }, { id: 'c2' }] },
          ],
        });
      expect(response.status).toBe(201);
      expect(response.headers.etag).toBe('"1"');
      expect(response.body).toMatchObject({
        id: 'create-1',
        profile: 'alpha',
        source: 'cli',
        createdSource: 'cli',
        title: 'Planning notes',
        titleSource: 'user',
        messageCount: 2,
        toolCallCount: 2,
        revision: 1,
        generation: 0,
      });
      const again = await api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .send({ id: 'create-1', profile: 'alpha', source: 'cli' });
      expect(again.status).toBe(409);
    });

    it('[profiles.name-format] [session.ids] [security.bounded-input] validates bodies and ids (400 validation_failed with issues)', async () => {
      const bad = await api.http().post('/v1/sessions').set(admin).send({ profile: 'Not A Profile', source: 'cli' });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('validation_failed');
      expect(bad.body.issues[0].path).toBe('profile');
      const badId = await api.http().get('/v1/sessions/has%20space').set(admin);
      expect(badId.status).toBe(400);
      const malformed = await api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .set('content-type', 'application/json')
        .send('{nope');
      expect(malformed.status).toBe(400);
      expect(malformed.body.code).toBe('validation_failed');
    });

    it('[security.bounded-input] refuses bodies over 5 MiB with 413 payload_too_large', async () => {
      const huge = 'x'.repeat(5 * 1024 * 1024 + 10);
      const response = await api
        .http()
        .post('/v1/sessions/create-1/messages')
        .set(admin)
        .send({ messages: [{ role: 'user', content: huge }] });
      expect(response.status).toBe(413);
      expect(response.body.code).toBe('payload_too_large');
    });

    it('PATCH requires If-Match (428), refuses a stale one (412 with currentRevision), and bumps the revision', async () => {
      await api.http().post('/v1/sessions').set(admin).send({ id: 'patch-1', profile: 'alpha', source: 'cli' });
      const missing = await api.http().patch('/v1/sessions/patch-1').set(admin).send({ pinned: true });
      expect(missing.status).toBe(428);
      expect(missing.body.code).toBe('precondition_required');

      const ok = await api
        .http()
        .patch('/v1/sessions/patch-1')
        .set(admin)
        .set('If-Match', '"1"')
        .send({ pinned: true });
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ pinned: true, revision: 2 });
      expect(ok.headers.etag).toBe('"2"');

      const stale = await api
        .http()
        .patch('/v1/sessions/patch-1')
        .set(admin)
        .set('If-Match', '"1"')
        .send({ archived: true });
      expect(stale.status).toBe(412);
      expect(stale.body).toMatchObject({ code: 'revision_conflict', currentRevision: 2 });

      const read = await api.http().get('/v1/sessions/patch-1').set(admin);
      expect(read.body.archived).toBe(false);
      expect(read.headers.etag).toBe('"2"');
    });

    it('[session.created-source] keeps createdSource when another surface changes source', async () => {
      await api.http().post('/v1/sessions').set(admin).send({ id: 'surface-1', profile: 'alpha', source: 'telegram' });
      const moved = await api
        .http()
        .patch('/v1/sessions/surface-1')
        .set(admin)
        .set('If-Match', '"1"')
        .send({ source: 'desktop' });
      expect(moved.status).toBe(200);
      expect(moved.body).toMatchObject({ source: 'desktop', createdSource: 'telegram' });
      const read = await api.http().get('/v1/sessions/surface-1').set(admin);
      expect(read.body).toMatchObject({ source: 'desktop', createdSource: 'telegram' });
    });

    it('[session.titles] keeps titles unique per profile and never lets an automatic title replace a user one', async () => {
      await api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .send({ id: 'title-1', profile: 'alpha', source: 'cli', title: 'Shared' });
      const clash = await api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .send({ id: 'title-2', profile: 'alpha', source: 'cli', title: 'Shared' });
      expect(clash.status).toBe(409);
      expect(clash.body.code).toBe('title_conflict');
      const otherProfile = await api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .send({ id: 'title-3', profile: 'beta', source: 'cli', title: 'Shared' });
      expect(otherProfile.status).toBe(201);
      const auto = await api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .send({ id: 'title-4', profile: 'alpha', source: 'cli', title: 'Shared', titleSource: 'derived' });
      expect(auto.status).toBe(201);
      expect(auto.body.title).toBe('Shared (2)');

      const llm = await api
        .http()
        .patch('/v1/sessions/title-1')
        .set(admin)
        .set('If-Match', '"1"')
        .send({ title: 'Machine title', titleSource: 'llm' });
      expect(llm.status).toBe(200);
      expect(llm.body).toMatchObject({ title: 'Shared', titleSource: 'user', revision: 1 });
    });

    it('[lineage.listing] lists one row per conversation with previews, filters and keyset pages', async () => {
      for (let i = 0; i < 5; i++) {
        await api
          .http()
          .post('/v1/sessions')
          .set(admin)
          .send({
            id: `list-${i}`,
            profile: 'listing',
            source: i % 2 ? 'telegram' : 'cli',
            messages: [
              { role: 'system', content: 'hidden preamble', displayKind: 'hidden' },
              { role: 'user', content: `question number ${i}` },
            ],
          });
      }
      await api.http().post('/v1/sessions').set(admin).send({
        id: 'list-child',
        profile: 'listing',
        source: 'subagent',
        parentSessionId: 'list-0',
        lineageKind: 'delegate',
      });
      const first = await api.http().get('/v1/sessions?profile=listing&limit=2').set(admin);
      expect(first.status).toBe(200);
      expect(first.body.items.map((item: { id: string }) => item.id)).toEqual(['list-4', 'list-3']);
      expect(first.body.items[0].preview).toBe('question number 4');
      const second = await api
        .http()
        .get(`/v1/sessions?profile=listing&limit=2&cursor=${first.body.nextCursor}`)
        .set(admin);
      expect(second.body.items.map((item: { id: string }) => item.id)).toEqual(['list-2', 'list-1']);
      const third = await api
        .http()
        .get(`/v1/sessions?profile=listing&limit=2&cursor=${second.body.nextCursor}`)
        .set(admin);
      expect(third.body.items.map((item: { id: string }) => item.id)).toEqual(['list-0']);
      expect(third.body.nextCursor).toBeNull();

      const telegram = await api.http().get('/v1/sessions?profile=listing&source=telegram').set(admin);
      expect(telegram.body.items.map((item: { id: string }) => item.id)).toEqual(['list-3', 'list-1']);
      const text = await api.http().get('/v1/sessions?profile=listing&q=NUMBER%202').set(admin);
      expect(text.body.items.map((item: { id: string }) => item.id)).toEqual(['list-2']);
      const withChildren = await api.http().get('/v1/sessions?profile=listing&includeChildren=true').set(admin);
      expect(withChildren.body.items.map((item: { id: string }) => item.id)).toContain('list-child');

      const archived = await api
        .http()
        .patch('/v1/sessions/list-1')
        .set(admin)
        .set('If-Match', '"1"')
        .send({ archived: true });
      expect(archived.status).toBe(200);
      const visible = await api.http().get('/v1/sessions?profile=listing').set(admin);
      expect(visible.body.items.map((item: { id: string }) => item.id)).not.toContain('list-1');
      const only = await api.http().get('/v1/sessions?profile=listing&archived=only').set(admin);
      expect(only.body.items.map((item: { id: string }) => item.id)).toEqual(['list-1']);
      const badCursor = await api.http().get('/v1/sessions?cursor=garbage').set(admin);
      expect(badCursor.status).toBe(400);
    });

    it('[lineage.listing] projects a compression chain onto its tip with the root start', async () => {
      await api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .send({
          id: 'chain-root',
          profile: 'chains',
          source: 'cli',
          messages: [{ role: 'user', content: 'where it all began' }],
        });
      await api.http().post('/v1/sessions').set(admin).send({
        id: 'chain-tip',
        profile: 'chains',
        source: 'cli',
        parentSessionId: 'chain-root',
        lineageKind: 'compression',
      });
      const list = await api.http().get('/v1/sessions?profile=chains').set(admin);
      expect(list.body.items).toHaveLength(1);
      const root = await api.http().get('/v1/sessions/chain-root').set(admin);
      expect(list.body.items[0]).toMatchObject({
        id: 'chain-tip',
        rootId: 'chain-root',
        conversationStartedAt: root.body.startedAt,
      });
    });

    it('[profiles.single-owner] [security.owner-fence] fences a member to its profiles: 404 for other profiles, exactly like a missing row', async () => {
      const member = bearer(await api.memberToken(['alpha'], 'alpha-member'));
      await api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .send({
          id: 'secret-beta',
          profile: 'beta',
          source: 'cli',
          messages: [{ role: 'user', content: 'beta confidential zebracorn' }],
        });
      const missing = await api.http().get('/v1/sessions/does-not-exist').set(member);
      const fenced = await api.http().get('/v1/sessions/secret-beta').set(member);
      expect(fenced.status).toBe(404);
      expect(fenced.body).toMatchObject({
        status: 404,
        code: 'not_found',
        title: missing.body.title,
        detail: missing.body.detail,
      });

      expect((await api.http().get('/v1/sessions/secret-beta/messages').set(member)).status).toBe(404);
      expect(
        (
          await api
            .http()
            .post('/v1/sessions/secret-beta/messages')
            .set(member)
            .send({ messages: [{ role: 'user', content: 'x' }] })
        ).status,
      ).toBe(404);
      expect(
        (await api.http().patch('/v1/sessions/secret-beta').set(member).set('If-Match', '"1"').send({ pinned: true }))
          .status,
      ).toBe(404);
      const search = await api.http().get('/v1/search?q=zebracorn').set(member);
      expect(search.status).toBe(200);
      expect(search.body.items).toEqual([]);
      const adminSearch = await api.http().get('/v1/search?q=zebracorn').set(admin);
      expect(adminSearch.body.items.map((hit: { sessionId: string }) => hit.sessionId)).toEqual(['secret-beta']);

      const list = await api.http().get('/v1/sessions?limit=200').set(member);
      expect(list.body.items.every((item: { profile: string }) => item.profile === 'alpha')).toBe(true);
      const otherList = await api.http().get('/v1/sessions?profile=beta').set(member);
      expect(otherList.body.items).toEqual([]);
      const create = await api.http().post('/v1/sessions').set(member).send({ profile: 'beta', source: 'cli' });
      expect(create.status).toBe(404);
      const profiles = await api.http().get('/v1/profiles').set(member);
      expect(profiles.body.map((profile: { name: string }) => profile.name)).toEqual(['alpha']);
    });
  });
}
