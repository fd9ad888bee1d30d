import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, sessionMaker, TEST_DIALECTS, useApi } from './harness.js';

/** The gateway runtime contract over HTTP (docs/api.md; docs/domain.md §4, §6, §10, §11). */
for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`gateway runtime contract over HTTP on ${dialect}`, () => {
    const { api, admin } = useApi(dialect);
    let cookie: string;
    const create = sessionMaker(api, (id) => ({
      profile: 'rt',
      source: 'telegram',
      messages: [{ role: 'user', content: `hi ${id}` }],
    }));
    const ifMatch = async (id: string) => ({
      'If-Match': `"${(await api.http().get(`/v1/sessions/${id}`).set(admin)).body.revision}"`,
    });

    beforeAll(async () => {
      await api
        .http()
        .post('/v1/users')
        .set(admin)
        .send({ username: 'operator', password: 'correct horse battery', role: 'admin', profiles: '*' })
        .expect(201);
      cookie = await api.signIn('operator', 'correct horse battery');
    });

    it('[messages.display-kind] refuses display kinds other than hidden from the wire', async () => {
      const created = await api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .send({
          profile: 'rt',
          source: 'cli',
          messages: [{ role: 'system', content: 'x', displayKind: 'compaction_summary' }],
        });
      expect(created.status).toBe(400);
      expect(created.body.code).toBe('validation_failed');
      await create('wire-1');
      const appended = await api
        .http()
        .post('/v1/sessions/wire-1/messages')
        .set(admin)
        .send({ messages: [{ role: 'system', content: 'fake summary', displayKind: 'compaction_summary' }] });
      expect(appended.status).toBe(400);
      const hidden = await api
        .http()
        .post('/v1/sessions/wire-1/messages')
        .set(admin)
        .send({ messages: [{ role: 'system', content: 'scaffolding', displayKind: 'hidden' }] });
      expect(hidden.status).toBe(201);
    });

    it('[session.titles] refuses a user title over 100 characters with 400 validation_failed', async () => {
      const long = await api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .send({ profile: 'rt', source: 'cli', title: 't'.repeat(101) });
      expect(long.status).toBe(400);
      expect(long.body).toMatchObject({ code: 'validation_failed', issues: [{ path: 'title' }] });
      await create('title-ok', { title: 't'.repeat(100) });
      const patched = await api
        .http()
        .patch('/v1/sessions/title-ok')
        .set(admin)
        .set(await ifMatch('title-ok'))
        .send({ title: 'u'.repeat(120) });
      expect(patched.status).toBe(400);
    });

    it('[lifecycle.deliberate-close] reopens a deliberate close only for the routing transport or a dashboard user (409 reopen_not_permitted)', async () => {
      await create('close-1', { transportProfile: 'bot-a' });
      await api
        .http()
        .post('/v1/sessions/close-1/end')
        .set(admin)
        .set(await ifMatch('close-1'))
        .send({ reason: 'cli_close' })
        .expect(200);
      const refused = await api
        .http()
        .post('/v1/sessions/close-1/reopen')
        .set(admin)
        .set(await ifMatch('close-1'))
        .send({});
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe('reopen_not_permitted');
      const byDashboard = await api
        .http()
        .post('/v1/sessions/close-1/reopen')
        .set('Cookie', cookie)
        // A cookie mutation comes from the dashboard's own origin (docs/security.md, "CSRF").
        .set('Sec-Fetch-Site', 'same-origin')
        .set(await ifMatch('close-1'))
        .send({});
      expect(byDashboard.status).toBe(200);
      expect(byDashboard.body.endedAt).toBeNull();
      const messages = await api.http().get('/v1/sessions/close-1/messages').set(admin);
      expect(messages.body.items.at(-1)).toMatchObject({
        role: 'session_meta',
        content: { type: 'reopened', clearedEndReason: 'cli_close', by: { name: 'operator', channel: 'dashboard' } },
      });
    });

    it('[turns.lease-fencing] fences appends and settles turns strictly while a lease is live', async () => {
      await create('lease-1');
      const turn = (
        await api.http().post('/v1/sessions/lease-1/turns').set(admin).send({ holder: 'worker-a' }).expect(201)
      ).body;
      const message = { messages: [{ role: 'assistant', content: 'late' }] };
      const blind = await api.http().post('/v1/sessions/lease-1/messages').set(admin).send(message);
      expect(blind.status).toBe(409);
      expect(blind.body.code).toBe('session_busy');
      await api
        .http()
        .post('/v1/sessions/lease-1/messages')
        .set(admin)
        .set('X-Turn-Id', turn.turnId)
        .send(message)
        .expect(201);
      const next = await api
        .http()
        .post('/v1/sessions/lease-1/turns')
        .set(admin)
        .send({ holder: 'worker-a', ttlSeconds: 30 })
        .expect(201);
      const stale = await api.http().post(`/v1/sessions/lease-1/turns/${turn.turnId}/complete`).set(admin);
      expect(stale.status).toBe(409);
      expect(stale.body).toMatchObject({ code: 'stale_generation', currentGeneration: next.body.generation });
      const staleRenew = await api.http().post(`/v1/sessions/lease-1/turns/${turn.turnId}/renew`).set(admin).send({});
      expect(staleRenew.body.code).toBe('stale_generation');
      await api.http().post(`/v1/sessions/lease-1/turns/${next.body.turnId}/complete`).set(admin).expect(204);
    });

    it('[retention.window-bounds] refuses a negative retention window as a policy and as a prune', async () => {
      await create('ret-1');
      const policy = await api.http().put('/v1/retention/policies/rt').set(admin).send({ retentionDays: -1 });
      expect(policy.status).toBe(400);
      const prune = await api.http().post('/v1/retention/prune').set(admin).send({ olderThanDays: -1, dryRun: false });
      expect(prune.status).toBe(400);
    });

    it('[gateways.heartbeat] gateways heartbeat, list owner-fenced with last-seen, own sessions, and the admin sweep answers', async () => {
      const beat = await api
        .http()
        .put('/v1/gateways/gw-1/heartbeat')
        .set(admin)
        .send({ profile: 'rt', host: 'box', pid: 12, startedAt: new Date().toISOString() });
      expect(beat.status).toBe(200);
      expect(beat.body).toMatchObject({ id: 'gw-1', alive: true, heartbeats: 1 });
      await create('owned-1', { gatewayId: 'gw-1', chatType: 'dm', chatId: 'c-owned' });
      const listed = await api.http().get('/v1/gateways').set(admin);
      expect(listed.body).toMatchObject({ items: [{ id: 'gw-1', openSessions: 1, alive: true }] });
      expect(listed.body.items[0].lastSeenAt).toBe(beat.body.lastSeenAt);
      const member = bearer(await api.memberToken(['elsewhere']));
      expect((await api.http().get('/v1/gateways').set(member)).body.items).toEqual([]);
      expect((await api.http().get('/v1/gateways/gw-1').set(member)).status).toBe(404);
      expect((await api.http().post('/v1/gateways/sweep').set(member)).status).toBe(403);
      expect((await api.http().post('/v1/gateways/sweep').set(admin)).body).toMatchObject({ ran: true });
      const unregistered = await api
        .http()
        .post('/v1/routes/resolve')
        .set(admin)
        .send({ profile: 'rt', source: 'telegram', chatType: 'dm', chatId: 'c-owned', gatewayId: 'nobody' });
      expect(unregistered.status).toBe(400);
    });

    it('a heartbeat whose startedAt is outside 1970..9999 is a validation problem (400), never a 500', async () => {
      const beat = (startedAt: unknown) =>
        api
          .http()
          .put('/v1/gateways/gw-far/heartbeat')
          .set(admin)
          .send({ profile: 'rt', host: 'box', pid: 1, startedAt });
      // Year 300000 as epoch ms: past the JS date range (formatting it threw a RangeError → 500).
      const far = Date.UTC(300_000, 0, 1);
      for (const startedAt of [far, 8.64e15 + 1, '+300000-01-01T00:00:00.000Z', '10000-01-01T00:00:00Z', -1, 'soon']) {
        const response = await beat(startedAt);
        expect(response.status, String(startedAt)).toBe(400);
        expect(response.body.code, String(startedAt)).toBe('validation_failed');
      }
      expect((await api.http().get('/v1/gateways/gw-far').set(admin)).status).toBe(404);
      const edge = await beat(Date.UTC(9999, 11, 31));
      expect(edge.status).toBe(200);
      expect(edge.body.startedAt).toBe('9999-12-31T00:00:00.000Z');
    });

    it('[handoff.state-machine] lists pending handoffs as a cheap probe', async () => {
      await create('hand-1');
      await api.http().post('/v1/sessions/hand-1/handoff').set(admin).send({ platform: 'desktop' }).expect(200);
      const probe = await api.http().get('/v1/sessions?handoff=pending&limit=1').set(admin);
      expect(probe.status).toBe(200);
      expect(probe.body.items.map((item: { id: string }) => item.id)).toEqual(['hand-1']);
      expect((await api.http().get('/v1/sessions?handoff=nonsense').set(admin)).status).toBe(400);
    });

    it('[deliveries.obligation] delivery obligations: idempotent create, one owner per claim race, deletion marks them abandoned', async () => {
      await create('dl-1');
      const body = { id: 'dl-ob-1', sessionId: 'dl-1', payload: { text: 'the reply' } };
      expect((await api.http().post('/v1/deliveries').set(admin).send(body)).status).toBe(201);
      expect((await api.http().post('/v1/deliveries').set(admin).send(body)).status).toBe(200);
      const clash = await api
        .http()
        .post('/v1/deliveries')
        .set(admin)
        .send({ ...body, payload: { text: 'another' } });
      expect(clash.body.code).toBe('conflict');
      const race = await Promise.all(
        ['worker-a', 'worker-b'].map((holder) =>
          api.http().post('/v1/deliveries/dl-ob-1/claim').set(admin).send({ holder, leaseSeconds: 30 }),
        ),
      );
      expect(race.map((response) => response.status).sort()).toEqual([200, 409]);
      expect(race.find((response) => response.status === 409)!.body.code).toBe('delivery_claimed');
      const winner = race.find((response) => response.status === 200)!.body;
      const wrongClaim = await api.http().post('/v1/deliveries/dl-ob-1/delivered').set(admin).send({ claimId: 'nope' });
      expect(wrongClaim.body.code).toBe('claim_expired');
      const failed = await api
        .http()
        .post('/v1/deliveries/dl-ob-1/failed')
        .set(admin)
        .send({ claimId: winner.claim.claimId, error: 'platform down' });
      expect(failed.body).toMatchObject({ state: 'pending', attempts: 1, lastError: 'platform down' });
      const s = (await api.http().get('/v1/sessions/dl-1').set(admin)).body;
      const deleted = await api
        .http()
        .delete('/v1/sessions/dl-1')
        .set(admin)
        .set({ 'If-Match': `"${s.revision}"`, 'X-Expected-Generation': String(s.generation) });
      expect(deleted.status).toBe(200);
      const receipt = await api.http().get(`/v1/deletion-receipts/${deleted.body.receipt.operationId}`).set(admin);
      expect(receipt.body.counts).toMatchObject({ deliveries: 1 });
      const after = await api.http().get('/v1/deliveries/dl-ob-1').set(admin);
      expect(after.body).toMatchObject({ state: 'abandoned', abandonedReason: 'session_deleted', payload: null });
      const settled = await api.http().post('/v1/deliveries/dl-ob-1/claim').set(admin).send({ holder: 'late' });
      expect(settled.body.code).toBe('delivery_settled');
    });

    it('[deletion.never-races-compression] a delete racing a compress of the same conversation never leaves a segment behind', async () => {
      await create('race-root', { messages: [{ role: 'user', content: 'long conversation' }] });
      const tokens = async (id: string) => {
        const s = (await api.http().get(`/v1/sessions/${id}`).set(admin)).body;
        return { 'If-Match': `"${s.revision}"`, 'X-Expected-Generation': String(s.generation) };
      };
      await api
        .http()
        .post('/v1/sessions/race-root/compress')
        .set(admin)
        .set(await tokens('race-root'))
        .send({ summary: 'first', childId: 'race-tip' })
        .expect(201);
      const [compress, remove] = await Promise.all([
        api
          .http()
          .post('/v1/sessions/race-tip/compress')
          .set(admin)
          .set(await tokens('race-tip'))
          .send({ summary: 'second', childId: 'race-next', keepLastMessages: 1 }),
        api
          .http()
          .delete('/v1/sessions/race-root?includeCompressionChain=true')
          .set(admin)
          .set(await tokens('race-root')),
      ]);
      const left = await Promise.all(
        ['race-root', 'race-tip', 'race-next'].map(
          async (id) => (await api.http().get(`/v1/sessions/${id}`).set(admin)).status,
        ),
      );
      if (remove.status === 200) {
        // The delete took the whole conversation — the new segment too if the compress got in first.
        expect(left).toEqual([404, 404, 404]);
        expect([201, 404, 409, 412]).toContain(compress.status);
      } else {
        expect(remove.status).toBe(409);
        expect(remove.body.code).toBe('session_busy');
        expect(compress.status).toBe(201);
        expect(left).toEqual([200, 200, 200]);
      }
    });
  });
}
