import { describe, expect, it } from 'vitest';
import { bearer, sessionMaker, TEST_DIALECTS, useApi } from './harness.js';

/**
 * The runtime state a gateway keeps in Statehouse, over HTTP (docs/api.md; docs/domain.md §2.2.11,
 * §12): tool pins, model configuration and the compression deadline on the session, and the async
 * delegation ledger with its wake-ups.
 */
for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`session runtime state and delegations over HTTP on ${dialect}`, () => {
    const { api, admin } = useApi(dialect);
    const create = sessionMaker(api, (id) => ({
      profile: 'rth',
      source: 'telegram',
      messages: [{ role: 'user', content: `hi ${id}` }],
    }));
    const ifMatch = async (id: string) => ({
      'If-Match': `"${(await api.http().get(`/v1/sessions/${id}`).set(admin)).body.revision}"`,
    });
    const patch = async (id: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      api
        .http()
        .patch(`/v1/sessions/${id}`)
        .set(admin)
        .set(await ifMatch(id))
        .set(headers)
        .send(body);

    it('[session.tool-pins] toolNames is set on create and re-pinned by PATCH with If-Match; the body and ETag carry the new revision', async () => {
      const created = await create('h-tools', { toolNames: ['web_search', 'shell'] });
      expect(created.toolNames).toEqual(['web_search', 'shell']);
      const without = await api
        .http()
        .patch('/v1/sessions/h-tools')
        .set(admin)
        .send({ toolNames: ['shell'] });
      expect(without.status).toBe(428);
      const stale = await api
        .http()
        .patch('/v1/sessions/h-tools')
        .set(admin)
        .set('If-Match', `"${created.revision - 1}"`)
        .send({ toolNames: ['shell'] });
      expect(stale.status).toBe(412);
      expect(stale.body).toMatchObject({ code: 'revision_conflict', currentRevision: created.revision });
      const repinned = await patch('h-tools', { toolNames: ['shell', 'browser', 'memory'] });
      expect(repinned.status).toBe(200);
      expect(repinned.body).toMatchObject({
        toolNames: ['shell', 'browser', 'memory'],
        revision: created.revision + 1,
      });
      expect(repinned.headers.etag).toBe(`"${created.revision + 1}"`);
      expect((await api.http().get('/v1/sessions/h-tools').set(admin)).body.toolNames).toEqual([
        'shell',
        'browser',
        'memory',
      ]);
      // Bounded and well-formed: duplicates, empty names and oversized lists are refused.
      for (const toolNames of [['a', 'a'], [''], Array.from({ length: 513 }, (_, i) => `t${i}`), ['x'.repeat(257)]]) {
        const bad = await patch('h-tools', { toolNames });
        expect(bad.status, JSON.stringify(toolNames).slice(0, 40)).toBe(400);
        expect(bad.body.code).toBe('validation_failed');
      }
    });

    it('[session.model-config-patch] modelConfig is replaced by PATCH; over 64 KiB it is refused', async () => {
      await create('h-model', { modelConfig: { temperature: 0.2 } });
      const replaced = await patch('h-model', { modelConfig: { temperature: 0.9, provider: 'x' } });
      expect(replaced.status).toBe(200);
      expect(replaced.body.modelConfig).toEqual({ temperature: 0.9, provider: 'x' });
      const huge = await patch('h-model', { modelConfig: { blob: 'x'.repeat(70 * 1024) } });
      expect(huge.status).toBe(400);
      expect(huge.body).toMatchObject({ code: 'validation_failed', issues: [{ path: 'modelConfig' }] });
      const cleared = await patch('h-model', { modelConfig: null });
      expect(cleared.body.modelConfig).toBeNull();
    });

    it('[session.compression-retry-after] the deadline is patched, read on resume, and cleared by a successful compression', async () => {
      await create('h-deadline');
      const deadline = '2031-01-01T00:00:00.000Z';
      const orphanReason = await patch('h-deadline', { compressionRetryReason: 'no deadline' });
      expect(orphanReason.status).toBe(400);
      const set = await patch('h-deadline', { compressionRetryAfter: deadline, compressionRetryReason: 'timeout' });
      expect(set.status).toBe(200);
      const resumed = await api.http().get('/v1/sessions/h-deadline').set(admin);
      expect(resumed.body).toMatchObject({ compressionRetryAfter: deadline, compressionRetryReason: 'timeout' });
      const compressed = await api
        .http()
        .post('/v1/sessions/h-deadline/compress')
        .set(admin)
        .set(await api.tokensOf('h-deadline'))
        .send({ summary: 'the story so far' });
      expect(compressed.status).toBe(201);
      expect(compressed.body.parent).toMatchObject({ compressionRetryAfter: null, compressionRetryReason: null });
      expect(compressed.body.child).toMatchObject({ compressionRetryAfter: null });
    });

    it('[session.runtime-state-fenced] during another holder’s turn, runtime state needs X-Turn-Id; a title does not', async () => {
      await create('h-busy');
      const turn = await api.http().post('/v1/sessions/h-busy/turns').set(admin).send({ holder: 'worker-1' });
      expect(turn.status).toBe(201);
      const busy = await patch('h-busy', { toolNames: ['shell'] });
      expect(busy.status).toBe(409);
      expect(busy.body.code).toBe('session_busy');
      const title = await patch('h-busy', { title: 'Busy but renamed' });
      expect(title.status).toBe(200);
      const fenced = await patch('h-busy', { toolNames: ['shell'] }, { 'X-Turn-Id': turn.body.turnId });
      expect(fenced.status).toBe(200);
      expect(fenced.body.toolNames).toEqual(['shell']);
    });

    it('[delegation.wake-once] a delegation is recorded, finished, listed as due, claimed and acknowledged exactly once', async () => {
      await create('h-origin');
      await create('h-child', { source: 'subagent', parentSessionId: 'h-origin', lineageKind: 'delegate' });
      const body = { id: 'h-dg-1', originSessionId: 'h-origin', task: { goal: 'research' } };
      const created = await api.http().post('/v1/delegations').set(admin).send(body);
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ state: 'running', profile: 'rth', due: false });
      const again = await api.http().post('/v1/delegations').set(admin).send(body);
      expect(again.status).toBe(200);
      const other = await api
        .http()
        .post('/v1/delegations')
        .set(admin)
        .send({ ...body, task: { goal: 'else' } });
      expect(other.status).toBe(409);

      const done = await api
        .http()
        .post('/v1/delegations/h-dg-1/complete')
        .set(admin)
        .send({ childSessionId: 'h-child', resultSummary: 'three sources found' });
      expect(done.status).toBe(200);
      expect(done.body).toMatchObject({ state: 'done', childSessionId: 'h-child', due: true });

      const due = await api
        .http()
        .get('/v1/delegations')
        .query({ originSessionId: 'h-origin', due: 'true' })
        .set(admin);
      expect(due.status).toBe(200);
      expect(due.body.items.map((d: { id: string }) => d.id)).toEqual(['h-dg-1']);

      const claimed = await api
        .http()
        .post('/v1/delegations/claim')
        .set(admin)
        .send({ holder: 'gw-1', originSessionId: 'h-origin' });
      expect(claimed.status).toBe(200);
      const claimId = claimed.body.items[0].claim.claimId;
      const contested = await api.http().post('/v1/delegations/h-dg-1/claim').set(admin).send({ holder: 'gw-2' });
      expect(contested.status).toBe(409);
      expect(contested.body.code).toBe('delivery_claimed');
      const wrong = await api.http().post('/v1/delegations/h-dg-1/delivered').set(admin).send({ claimId: 'not-it' });
      expect(wrong.status).toBe(409);
      expect(wrong.body.code).toBe('claim_expired');

      const delivered = await api.http().post('/v1/delegations/h-dg-1/delivered').set(admin).send({ claimId });
      expect(delivered.status).toBe(200);
      expect(delivered.body).toMatchObject({ state: 'delivered', due: false });
      const replay = await api.http().post('/v1/delegations/h-dg-1/delivered').set(admin).send({ claimId });
      expect(replay.status).toBe(200);
      expect(replay.body).toEqual(delivered.body);
      const reclaim = await api.http().post('/v1/delegations/h-dg-1/claim').set(admin).send({ holder: 'gw-2' });
      expect(reclaim.status).toBe(409);
      expect(reclaim.body.code).toBe('delivery_settled');
      const none = await api
        .http()
        .get('/v1/delegations')
        .query({ originSessionId: 'h-origin', due: 'true' })
        .set(admin);
      expect(none.body.items).toEqual([]);
    });

    it('[delegation.ledger] owner-fenced: a member of another profile gets 404 everywhere', async () => {
      await create('h-fenced');
      await api
        .http()
        .post('/v1/delegations')
        .set(admin)
        .send({ id: 'h-dg-fenced', originSessionId: 'h-fenced' })
        .expect(201);
      const member = bearer(await api.memberToken(['elsewhere']));
      expect((await api.http().get('/v1/delegations/h-dg-fenced').set(member)).status).toBe(404);
      expect((await api.http().post('/v1/delegations/h-dg-fenced/complete').set(member).send({})).status).toBe(404);
      expect(
        (await api.http().post('/v1/delegations').set(member).send({ id: 'h-dg-x', originSessionId: 'h-fenced' }))
          .status,
      ).toBe(404);
      const listed = await api.http().get('/v1/delegations').query({ originSessionId: 'h-fenced' }).set(member);
      expect(listed.body.items).toEqual([]);
    });

    it('[delegation.origin-deleted] deleting the origin abandons its owed delegations in the same transaction and the receipt counts them', async () => {
      await create('h-del-origin');
      for (const id of ['h-del-1', 'h-del-2']) {
        await api.http().post('/v1/delegations').set(admin).send({ id, originSessionId: 'h-del-origin' }).expect(201);
      }
      await api
        .http()
        .post('/v1/delegations/h-del-2/complete')
        .set(admin)
        .send({ resultSummary: 'private result' })
        .expect(200);
      const deleted = await api
        .http()
        .delete('/v1/sessions/h-del-origin')
        .set(admin)
        .set(await api.tokensOf('h-del-origin'));
      expect(deleted.status).toBe(200);
      const receipt = await api.http().get(`/v1/deletion-receipts/${deleted.body.receipt.operationId}`).set(admin);
      expect(receipt.body.counts).toMatchObject({ sessions: 1, delegations: 2 });
      for (const id of ['h-del-1', 'h-del-2']) {
        const row = await api.http().get(`/v1/delegations/${id}`).set(admin);
        expect(row.body).toMatchObject({ state: 'abandoned', abandonedReason: 'origin_deleted', resultSummary: null });
      }
    });
  });
}
