import { describe, expect, it } from 'vitest';
import { asText, bearer, sessionMaker, TEST_DIALECTS, useApi } from './harness.js';

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`deletion and receipts API on ${dialect}`, () => {
    const { api, admin } = useApi(dialect);
    const create = sessionMaker(api, (id) => ({
      profile: 'del',
      source: 'cli',
      messages: [{ role: 'user', content: `text of ${id}` }],
    }));
    const tokens = (id: string) => api.tokensOf(id);

    it('DELETE needs both tokens, removes the session with its delegates and answers with the receipt', async () => {
      await create('d1');
      await create('d1-helper', { parentSessionId: 'd1', lineageKind: 'delegate', source: 'subagent' });
      expect((await api.http().delete('/v1/sessions/d1').set(admin)).status).toBe(428);
      const response = await api
        .http()
        .delete('/v1/sessions/d1')
        .set(admin)
        .set(await tokens('d1'));
      expect(response.status).toBe(200);
      expect(response.body.deletedIds.sort()).toEqual(['d1', 'd1-helper']);
      expect(response.body.receipt).toMatchObject({ sequence: expect.any(Number), operationId: expect.any(String) });
      const receipt = await api.http().get(`/v1/deletion-receipts/${response.body.receipt.operationId}`).set(admin);
      expect(receipt.body).toMatchObject({
        origin: 'user_api',
        intent: 'explicit_user',
        counts: { sessions: 2, messages: 2 },
      });
      expect((await api.http().get('/v1/sessions/d1').set(admin)).status).toBe(404);
      const again = await api
        .http()
        .delete('/v1/sessions/d1')
        .set(admin)
        .set({ 'If-Match': '"1"', 'X-Expected-Generation': '0' });
      expect(again.status).toBe(404);
    });

    it('ifEmpty discards only an empty session', async () => {
      await create('full');
      const refused = await api.http().delete('/v1/sessions/full?ifEmpty=true').set(admin).set('If-Match', '"1"');
      expect(refused.status).toBe(409);
      await api.http().post('/v1/sessions').set(admin).send({ id: 'empty', profile: 'del', source: 'tui' });
      const ok = await api.http().delete('/v1/sessions/empty?ifEmpty=true').set(admin).set('If-Match', '"1"');
      expect(ok.status).toBe(200);
      const receipt = await api.http().get(`/v1/deletion-receipts/${ok.body.receipt.operationId}`).set(admin);
      expect(receipt.body.origin).toBe('empty_discard');
    });

    it('bulk delete reports skipped ids; a preview lists exactly what will go', async () => {
      await create('bk1');
      await create('bk1-helper', { parentSessionId: 'bk1', lineageKind: 'delegate', source: 'subagent' });
      await create('bk2');
      const preview = await api
        .http()
        .post('/v1/sessions/delete-preview')
        .set(admin)
        .send({ ids: ['bk1', 'bk2'] });
      expect(preview.status).toBe(200);
      expect(preview.body.sessions[0]).toMatchObject({ revision: expect.any(Number), generation: 0 });
      expect(preview.body.sessions.map((s: { id: string; role: string }) => [s.id, s.role])).toEqual([
        ['bk1', 'selected'],
        ['bk2', 'selected'],
        ['bk1-helper', 'delegate_cascade'],
      ]);
      const [one, two] = await Promise.all(
        ['bk1', 'bk2'].map(async (id) => (await api.http().get(`/v1/sessions/${id}`).set(admin)).body),
      );
      const response = await api
        .http()
        .post('/v1/sessions/bulk-delete')
        .set(admin)
        .send({
          items: [
            { id: 'bk1', revision: one.revision, generation: one.generation },
            { id: 'bk2', revision: two.revision + 5, generation: two.generation },
            { id: 'missing', revision: 1, generation: 0 },
          ],
        });
      expect(response.status).toBe(200);
      expect(response.body.deletedIds.sort()).toEqual(['bk1', 'bk1-helper']);
      expect(response.body.skippedIds).toEqual(['bk2', 'missing']);
      const tooMany = await api
        .http()
        .post('/v1/sessions/bulk-delete')
        .set(admin)
        .send({ items: Array.from({ length: 501 }, (_, i) => ({ id: `x${i}`, revision: 1, generation: 0 })) });
      expect(tooMany.status).toBe(400);
    });

    it('[receipts.content-free] [security.owner-fence] no wire field lets a client author the origin; members cannot reclaim or see other profiles', async () => {
      await create('o1');
      const bulkWithOrigin = await api
        .http()
        .post('/v1/sessions/bulk-delete')
        .set(admin)
        .send({ items: [{ id: 'o1', revision: 1, generation: 0 }], origin: 'retention' });
      expect(bulkWithOrigin.status).toBe(400);
      const pruneWithOrigin = await api
        .http()
        .post('/v1/retention/prune')
        .set(admin)
        .send({ olderThanDays: 1, dryRun: true, origin: 'user_api' });
      expect(pruneWithOrigin.status).toBe(400);

      await api.http().post('/v1/sessions').set(admin).send({ id: 'm-own', profile: 'mine', source: 'cli' });
      const member = bearer(await api.memberToken(['mine']));
      const own = await api
        .http()
        .delete('/v1/sessions/m-own')
        .set(member)
        .set({ 'If-Match': '"1"', 'X-Expected-Generation': '0' });
      expect(own.status).toBe(200);
      const receipts = await api.http().get('/v1/deletion-receipts?after=0&limit=1000').set(member);
      expect(receipts.status).toBe(200);
      expect(receipts.body.items.map((receipt: { profile: string }) => receipt.profile)).toEqual(['mine']);
      const foreign = (await api.http().get('/v1/deletion-receipts?after=0&limit=1000&profile=del').set(admin)).body
        .items[0];
      expect((await api.http().get(`/v1/deletion-receipts/${foreign.operationId}`).set(member)).status).toBe(404);
      expect(
        (await api.http().post('/v1/deletion-receipts/reclaim').set(member).send({ throughSequence: 1, mode: 'force' }))
          .status,
      ).toBe(403);
      expect((await api.http().get('/v1/deletion-receipts/verify').set(member)).status).toBe(403);
      expect((await api.http().get('/v1/receipt-consumers').set(member)).status).toBe(403);
      expect(
        (await api.http().post('/v1/retention/prune').set(member).send({ olderThanDays: 1, dryRun: true })).status,
      ).toBe(403);
    });

    it('[retention.window-bounds] retention: a negative window is 400; dry run and real run list the same sessions; policies validate', async () => {
      const negative = await api
        .http()
        .post('/v1/retention/prune')
        .set(admin)
        .send({ olderThanDays: -1, dryRun: true });
      expect(negative.status).toBe(400);
      expect(negative.body.code).toBe('validation_failed');
      const ended = await create('ret1', { profile: 'ret' });
      await api
        .http()
        .post('/v1/sessions/ret1/end')
        .set(admin)
        .set('If-Match', `"${ended.revision}"`)
        .send({ reason: 'cli_close' });
      const dry = await api
        .http()
        .post('/v1/retention/prune')
        .set(admin)
        .send({ olderThanDays: 0, profile: 'ret', dryRun: true });
      await new Promise((resolve) => setTimeout(resolve, 5));
      const real = await api
        .http()
        .post('/v1/retention/prune')
        .set(admin)
        .send({ olderThanDays: 0, profile: 'ret', dryRun: false });
      expect(dry.body.candidates).toEqual(['ret1']);
      expect(real.body.deletedIds).toEqual(dry.body.candidates);
      expect(real.body.receipt).not.toBeNull();
      expect((await api.http().put('/v1/retention/policies/ret').set(admin).send({ retentionDays: -3 })).status).toBe(
        400,
      );
      expect((await api.http().put('/v1/retention/policies/ret').set(admin).send({ retentionDays: 30 })).body).toEqual({
        profile: 'ret',
        retentionDays: 30,
      });
      const policies = await api.http().get('/v1/retention/policies').set(admin);
      expect(policies.body).toEqual(expect.arrayContaining([{ profile: 'ret', retentionDays: 30 }]));
      for (const path of ['empty-sweep', 'ghost-prune']) {
        const response = await api.http().post(`/v1/maintenance/${path}`).set(admin).send({ dryRun: true });
        expect(response.status, path).toBe(200);
        expect(response.body.dryRun).toBe(true);
      }
      const neverActive = await api
        .http()
        .post('/v1/maintenance/never-active-prune')
        .set(admin)
        .send({ olderThanDays: 3, dryRun: true });
      expect(neverActive.status).toBe(200);
    });

    it('[receipts.replay] [receipts.reclamation] replays with cursors and filters, reclaims with a floor (410 below it), honours consumer acknowledgements, verifies', async () => {
      const all = await api.http().get('/v1/deletion-receipts?after=0&limit=1000').set(admin);
      expect(all.status).toBe(200);
      expect(all.body.items.length).toBeGreaterThanOrEqual(4);
      const page = await api.http().get('/v1/deletion-receipts?after=0&limit=2').set(admin);
      const next = await api.http().get(`/v1/deletion-receipts?after=${page.body.nextCursor}&limit=2`).set(admin);
      expect(next.body.items[0].sequence).toBe(all.body.items[2].sequence);
      // Newest first (the dashboard's default view), paged downwards with `before`.
      const sequences = all.body.items.map((receipt: { sequence: number }) => receipt.sequence);
      const latest = await api.http().get('/v1/deletion-receipts?order=newest&limit=2').set(admin);
      expect(latest.body.items.map((receipt: { sequence: number }) => receipt.sequence)).toEqual(
        sequences.slice(-2).reverse(),
      );
      const below = await api
        .http()
        .get(`/v1/deletion-receipts?order=newest&limit=1&before=${latest.body.nextCursor}`)
        .set(admin);
      expect(below.body.items[0].sequence).toBe(sequences.at(-3));
      expect((await api.http().get('/v1/deletion-receipts?order=sideways').set(admin)).status).toBe(400);
      const explicit = await api.http().get('/v1/deletion-receipts?intent=explicit_user&limit=1000').set(admin);
      expect(explicit.body.items.every((receipt: { intent: string }) => receipt.intent === 'explicit_user')).toBe(true);
      const [first, second, third] = all.body.items;
      expect(
        (await api.http().put('/v1/receipt-consumers/indexer').set(admin).send({ cursor: first.sequence })).status,
      ).toBe(200);
      expect((await api.http().put('/v1/receipt-consumers/indexer').set(admin).send({ cursor: 0 })).status).toBe(409);
      const safe = await api
        .http()
        .post('/v1/deletion-receipts/reclaim')
        .set(admin)
        .send({ throughSequence: third.sequence, mode: 'safe' });
      expect(safe.body).toMatchObject({ floor: first.sequence, limitedBy: 'indexer', reclaimed: 1 });
      await api.http().put('/v1/receipt-consumers/indexer').set(admin).send({ cursor: second.sequence });
      const more = await api
        .http()
        .post('/v1/deletion-receipts/reclaim')
        .set(admin)
        .send({ throughSequence: third.sequence, mode: 'safe' });
      expect(more.body).toMatchObject({ floor: second.sequence, limitedBy: 'indexer' });
      const expired = await api.http().get(`/v1/deletion-receipts?after=${first.sequence}`).set(admin);
      expect(expired.status).toBe(410);
      expect(expired.body).toMatchObject({ code: 'cursor_expired', floor: second.sequence });
      const consumers = await api.http().get('/v1/receipt-consumers').set(admin);
      expect(consumers.body).toEqual([expect.objectContaining({ name: 'indexer', cursor: second.sequence })]);
      expect((await api.http().get('/v1/deletion-receipts/verify').set(admin)).body).toMatchObject({ ok: true });
    });

    it('[deletion.preview-matches-receipt] the preview counts exactly what the receipt counts: hidden and rewound messages, routes, owed deliveries and delegations', async () => {
      await create('pv', { sessionKey: 'agent:del:telegram:dm:pv' });
      const appended = await api
        .http()
        .post('/v1/sessions/pv/messages')
        .set(admin)
        .send({
          messages: [
            { role: 'system', content: 'scaffolding', displayKind: 'hidden' },
            { role: 'assistant', content: 'an answer' },
            { role: 'user', content: 'undo this' },
          ],
        });
      expect(appended.status).toBe(201);
      const rewound = await api
        .http()
        .post('/v1/sessions/pv/rewind')
        .set(admin)
        .set(await tokens('pv'))
        .send({ toMessageId: appended.body.ids[2] });
      expect(rewound.status).toBe(200);
      await api
        .http()
        .put('/v1/routes')
        .set(admin)
        .send({ profile: 'del', sessionKey: 'agent:del:telegram:dm:pv', sessionId: 'pv' });
      const owed = await api
        .http()
        .post('/v1/deliveries')
        .set(admin)
        .send({ id: 'pv-owed', sessionId: 'pv', payload: { text: 'reply' } });
      expect(owed.status).toBe(201);
      const delegated = await api
        .http()
        .post('/v1/delegations')
        .set(admin)
        .send({ id: 'pv-work', originSessionId: 'pv' });
      expect(delegated.status).toBe(201);

      const preview = await api
        .http()
        .post('/v1/sessions/delete-preview')
        .set(admin)
        .send({ ids: ['pv'] });
      expect(preview.body.counts).toEqual({ sessions: 1, messages: 4, routes: 1, deliveries: 1, delegations: 1 });
      const deleted = await api
        .http()
        .delete('/v1/sessions/pv')
        .set(admin)
        .set(await tokens('pv'));
      const receipt = await api.http().get(`/v1/deletion-receipts/${deleted.body.receipt.operationId}`).set(admin);
      expect(receipt.body.counts).toEqual(preview.body.counts);
    });

    it('exports a session as JSON lines: the session, its messages, its edges', async () => {
      await create('ex', {
        messages: [
          { role: 'user', content: 'one' },
          { role: 'system', content: 'two', displayKind: 'hidden' },
        ],
      });
      await create('ex-branch', { parentSessionId: 'ex', lineageKind: 'branch' });
      const response = await api.http().get('/v1/sessions/ex/export').set(admin).buffer(true).parse(asText);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/application\/x-ndjson/);
      const lines = (response.body as string)
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(lines.map((line) => line.type)).toEqual(['session', 'message', 'message', 'edge']);
      expect(lines[3]).toEqual({ type: 'edge', from: 'ex', to: 'ex-branch', kind: 'branch' });
      expect((await api.http().get('/v1/sessions/nope/export').set(admin)).status).toBe(404);
    });
  });
}
