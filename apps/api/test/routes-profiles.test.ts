import { describe, expect, it } from 'vitest';
import { bearer, TEST_DIALECTS, useApi } from './harness.js';

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`routes, handoff and profiles API on ${dialect}`, () => {
    const { api, admin } = useApi(dialect);
    const key = (profile: string, chat: string) => `agent:${profile}:telegram:dm:${chat}`;
    const create = (id: string, profile: string, chat: string) =>
      api.createSession({
        id,
        profile,
        source: 'telegram',
        sessionKey: key(profile, chat),
        messages: [{ role: 'user', content: 'hi' }],
      });
    const tokens = (id: string) => api.tokensOf(id);

    it('[routes.index] [routes.same-transaction] sets, lists and resolves routes; compression moves the route in the same transaction', async () => {
      await create('rt1', 'gw', 'chat1');
      const put = await api
        .http()
        .put('/v1/routes')
        .set(admin)
        .send({ profile: 'gw', sessionKey: key('gw', 'chat1'), sessionId: 'rt1' });
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({
        profile: 'gw',
        sessionId: 'rt1',
        suspended: false,
        session: { source: 'telegram' },
      });
      const resolved = await api
        .http()
        .post('/v1/routes/resolve')
        .set(admin)
        .send({ profile: 'gw', source: 'telegram', chatType: 'dm', chatId: 'chat1' });
      expect(resolved.body).toEqual({ sessionId: 'rt1', via: 'route', sessionKey: key('gw', 'chat1') });
      const compressed = await api
        .http()
        .post('/v1/sessions/rt1/compress')
        .set(admin)
        .set(await tokens('rt1'))
        .send({ summary: 's', childId: 'rt2' });
      expect(compressed.status).toBe(201);
      const after = await api
        .http()
        .post('/v1/routes/resolve')
        .set(admin)
        .send({ profile: 'gw', source: 'telegram', sessionKey: key('gw', 'chat1') });
      expect(after.body).toMatchObject({ sessionId: 'rt2', via: 'route' });
      const listed = await api.http().get('/v1/routes?profile=gw').set(admin);
      expect(listed.body.items.map((route: { sessionId: string }) => route.sessionId)).toEqual(['rt2']);
      const none = await api
        .http()
        .post('/v1/routes/resolve')
        .set(admin)
        .send({ profile: 'gw', source: 'telegram', chatType: 'dm', chatId: 'nobody' });
      expect(none.body).toMatchObject({ sessionId: null, via: 'none' });
      expect(
        (await api.http().post('/v1/routes/resolve').set(admin).send({ profile: 'gw', source: 'telegram' })).status,
      ).toBe(400);
      const foreign = await api
        .http()
        .put('/v1/routes')
        .set(admin)
        .send({ profile: 'other', sessionKey: 'agent:other:x', sessionId: 'rt2' });
      expect(foreign.status).toBe(404);
      expect((await api.http().get('/v1/routes/check').set(admin)).body).toMatchObject({ ok: true });
      const member = bearer(await api.memberToken(['elsewhere']));
      expect((await api.http().get('/v1/routes?profile=gw').set(member)).body.items).toEqual([]);
      expect((await api.http().get('/v1/routes/check').set(member)).status).toBe(403);
    });

    it('[session.handoff-fields] [handoff.state-machine] handoff routes walk the state machine and refuse out-of-order steps with 409', async () => {
      await create('ho', 'gw', 'chat2');
      expect((await api.http().post('/v1/sessions/ho/handoff/claim').set(admin).send()).status).toBe(409);
      const requested = await api.http().post('/v1/sessions/ho/handoff').set(admin).send({ platform: 'desktop' });
      expect(requested.body).toMatchObject({ handoffState: 'pending', handoffPlatform: 'desktop' });
      expect((await api.http().post('/v1/sessions/ho/handoff/claim').set(admin).send()).body.handoffState).toBe(
        'running',
      );
      expect(
        (await api.http().post('/v1/sessions/ho/handoff/fail').set(admin).send({ error: 'window closed' })).body,
      ).toMatchObject({
        handoffState: 'failed',
        handoffError: 'window closed',
      });
      await api.http().post('/v1/sessions/ho/handoff').set(admin).send({ platform: 'desktop' }).expect(200);
      await api.http().post('/v1/sessions/ho/handoff/claim').set(admin).send().expect(200);
      const completed = await api.http().post('/v1/sessions/ho/handoff/complete').set(admin).send();
      expect(completed.body.handoffState).toBe('completed');
      const stale = await api
        .http()
        .post('/v1/sessions/ho/handoff')
        .set(admin)
        .set('If-Match', '"1"')
        .send({ platform: 'cli' });
      expect(stale.status).toBe(412);
    });

    it('a profile counts its conversations as the sessions list does: one per compression chain, no sub-agents, no archived', async () => {
      await create('cc-plain', 'counted', 'a');
      await create('cc-chain', 'counted', 'b');
      const compressed = await api
        .http()
        .post('/v1/sessions/cc-chain/compress')
        .set(admin)
        .set(await tokens('cc-chain'))
        .send({ summary: 'so far' });
      expect(compressed.status).toBeLessThan(300);
      const child = await api.http().post('/v1/sessions').set(admin).send({
        id: 'cc-helper',
        profile: 'counted',
        source: 'subagent',
        parentSessionId: 'cc-plain',
        lineageKind: 'delegate',
      });
      expect(child.status).toBe(201);
      await create('cc-archived', 'counted', 'c');
      const archived = await api
        .http()
        .patch('/v1/sessions/cc-archived')
        .set(admin)
        .set(await tokens('cc-archived'))
        .send({ archived: true });
      expect(archived.status).toBe(200);

      const profiles = await api.http().get('/v1/profiles').set(admin);
      const counted = profiles.body.find((p: { name: string }) => p.name === 'counted');
      const list = await api.http().get('/v1/sessions?profile=counted&limit=100').set(admin);
      expect(list.body.total).toEqual({ count: 2, exact: true });
      expect(counted).toMatchObject({ sessionCount: 5, conversationCount: list.body.total.count });
    });

    it('[profiles.rename] renames a profile (exact prefix, counts) and refuses a collision with 409 before any change', async () => {
      await create('pr1', 'team_a', 'c');
      await create('pr2', 'teamxa', 'c');
      await api
        .http()
        .put('/v1/routes')
        .set(admin)
        .send({ profile: 'team_a', sessionKey: key('team_a', 'c'), sessionId: 'pr1' });
      const collision = await api.http().post('/v1/profiles/team_a/rename').set(admin).send({ newName: 'teamxa' });
      expect(collision.status).toBe(409);
      expect(collision.body.code).toBe('profile_collision');
      const rehearsal = await api
        .http()
        .post('/v1/profiles/team_a/rename')
        .set(admin)
        .send({ newName: 'team-b', dryRun: true });
      expect(rehearsal.body).toMatchObject({ dryRun: true, counts: { sessions: 1, routes: 1, sessionKeys: 1 } });
      expect((await api.http().get('/v1/sessions/pr1').set(admin)).body.profile).toBe('team_a');
      const profiles = await api.http().get('/v1/profiles').set(admin);
      expect(profiles.body.find((p: { name: string }) => p.name === 'team_a')).toMatchObject({
        sessionCount: 1,
        routeCount: 1,
      });
      const renamed = await api.http().post('/v1/profiles/team_a/rename').set(admin).send({ newName: 'team-b' });
      expect(renamed.body.counts).toEqual(rehearsal.body.counts);
      expect(renamed.status).toBe(200);
      expect(renamed.body).toMatchObject({ name: 'team-b', counts: { sessions: 1, routes: 1, sessionKeys: 1 } });
      expect((await api.http().get('/v1/sessions/pr1').set(admin)).body).toMatchObject({
        profile: 'team-b',
        sessionKey: key('team-b', 'c'),
      });
      expect((await api.http().get('/v1/sessions/pr2').set(admin)).body).toMatchObject({
        profile: 'teamxa',
        sessionKey: key('teamxa', 'c'),
      });
      const routes = await api.http().get('/v1/routes?profile=team-b').set(admin);
      expect(routes.body.items.map((route: { sessionKey: string }) => route.sessionKey)).toEqual([key('team-b', 'c')]);
      const member = bearer(await api.memberToken(['team-b']));
      expect((await api.http().post('/v1/profiles/team-b/rename').set(member).send({ newName: 'x' })).status).toBe(403);
    });

    it('[profiles.delete] deletes a profile: a dry run counts, deleteSessions writes a profile_delete receipt', async () => {
      await create('pdel', 'doomed', 'c');
      const dry = await api.http().delete('/v1/profiles/doomed?deleteSessions=true&dryRun=true').set(admin);
      expect(dry.body).toMatchObject({ dryRun: true, counts: { sessions: 1, messages: 1 } });
      expect((await api.http().get('/v1/sessions/pdel').set(admin)).status).toBe(200);
      const real = await api.http().delete('/v1/profiles/doomed?deleteSessions=true').set(admin);
      expect(real.body).toMatchObject({ dryRun: false, profileRemoved: true, counts: { sessions: 1 } });
      const receipt = await api.http().get(`/v1/deletion-receipts/${real.body.receipt.operationId}`).set(admin);
      expect(receipt.body).toMatchObject({ origin: 'profile_delete', reason: 'profile_delete' });
      expect((await api.http().get('/v1/sessions/pdel').set(admin)).status).toBe(404);
      expect((await api.http().delete('/v1/profiles/doomed').set(admin)).status).toBe(404);
    });

    it('moves a session to another profile (admin) with a profile_repair receipt', async () => {
      await create('mvs', 'src-prof', 'c');
      await api.http().post('/v1/profiles').set(admin).send({ name: 'dst-prof' }).expect(201);
      const moved = await api.http().post('/v1/sessions/mvs/move').set(admin).send({ profile: 'dst-prof' });
      expect(moved.status).toBe(200);
      expect(moved.body.movedIds).toEqual(['mvs']);
      const receipt = await api.http().get(`/v1/deletion-receipts/${moved.body.receipt.operationId}`).set(admin);
      expect(receipt.body).toMatchObject({ origin: 'profile_repair', profile: 'src-prof' });
      expect((await api.http().get('/v1/sessions/mvs').set(admin)).body).toMatchObject({
        profile: 'dst-prof',
        sessionKey: key('dst-prof', 'c'),
      });
    });
  });
}
