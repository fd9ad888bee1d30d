import { describe, expect, it } from 'vitest';
import { TEST_DIALECTS, useApi } from './harness.js';

/** docs/domain.md §5.1.7: a replayed DELETE is the first answer, never a second deletion or receipt. */
for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`a DELETE replayed with its Idempotency-Key on ${dialect}`, () => {
    const { api, admin } = useApi(dialect);

    const receiptsOf = async (id: string) => {
      const page = await api.http().get('/v1/deletion-receipts?after=0&limit=1000').set(admin).expect(200);
      return (page.body.items as { identities: { id: string }[] }[]).filter((receipt) =>
        receipt.identities.some((identity) => identity.id === id),
      );
    };
    const create = (id: string) =>
      api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .send({ id, profile: 'idem-del', source: 'cli', messages: [{ role: 'user', content: `words of ${id}` }] })
        .expect(201);

    it('[deletion.idempotent-replay] a single delete retried with the same key writes no second receipt and removes nothing more', async () => {
      await create('idem-del-1');
      const headers = { ...(await api.tokensOf('idem-del-1')), 'Idempotency-Key': 'delete-once' };
      const first = await api.http().delete('/v1/sessions/idem-del-1').set(admin).set(headers);
      expect(first.status).toBe(200);
      expect(first.body.receipt).not.toBeNull();
      // The gateway re-creates a session under the same id before its retry of the delete arrives.
      await create('idem-del-1');
      const retry = await api.http().delete('/v1/sessions/idem-del-1').set(admin).set(headers);
      expect(retry.status).toBe(200);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.body).toEqual(first.body);
      expect(await receiptsOf('idem-del-1')).toHaveLength(1);
      const session = await api.http().get('/v1/sessions/idem-del-1').set(admin);
      expect(session.status).toBe(200);
      expect(session.body.messageCount).toBe(1);
    });

    it('[deletion.idempotent-replay] a bulk delete retried with the same key replays its answer', async () => {
      await create('idem-bulk-1');
      await create('idem-bulk-2');
      const items = await Promise.all(
        ['idem-bulk-1', 'idem-bulk-2'].map(async (id) => {
          const s = (await api.http().get(`/v1/sessions/${id}`).set(admin)).body;
          return { id, revision: s.revision, generation: s.generation };
        }),
      );
      const send = () =>
        api.http().post('/v1/sessions/bulk-delete').set(admin).set('Idempotency-Key', 'bulk-once').send({ items });
      const first = await send();
      expect(first.status).toBe(200);
      expect([...first.body.deletedIds].sort()).toEqual(['idem-bulk-1', 'idem-bulk-2']);
      await create('idem-bulk-1');
      const retry = await send();
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.body).toEqual(first.body);
      expect(await receiptsOf('idem-bulk-1')).toHaveLength(1);
      expect((await api.http().get('/v1/sessions/idem-bulk-1').set(admin)).status).toBe(200);
    });
  });
}
