import { sseEvents } from '@statehouse/state/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, TEST_DIALECTS, useApi } from './harness.js';

/**
 * Receipt consumers belong to administrators (docs/security.md, "Deletion feed"): a member token
 * could move an admin's consumer past receipts it never processed (a safe reclaim then deleted
 * them), or register one at cursor 0 and hold reclamation back forever, and the receipt list told
 * it how many deletions other tenants made. Each attack is replayed here.
 */

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`receipt consumers and the member view of the feed on ${dialect}`, () => {
    const { api, admin } = useApi(dialect);
    let member: Record<string, string>;
    /** Receipt sequences by profile, in order. */
    const sequences: Record<string, number[]> = { alpha: [], beta: [] };

    const createAndDelete = async (id: string, profile: 'alpha' | 'beta') => {
      await api.createSession({ id, profile, source: 'cli', messages: [{ role: 'user', content: id }] });
      const deleted = await api
        .http()
        .delete(`/v1/sessions/${id}`)
        .set(admin)
        .set(await api.tokensOf(id))
        .expect(200);
      sequences[profile].push(deleted.body.receipt.sequence);
      return deleted.body.receipt.sequence as number;
    };

    beforeAll(async () => {
      member = bearer(await api.memberToken(['alpha']));
      // alpha, beta, beta, alpha, beta: the member owns sequences 1 and 4 only.
      await createAndDelete('r1', 'alpha');
      await createAndDelete('r2', 'beta');
      await createAndDelete('r3', 'beta');
      await createAndDelete('r4', 'alpha');
      await createAndDelete('r5', 'beta');
    });

    it('only admins register, acknowledge, list or delete consumers; members get 403', async () => {
      const created = await api.http().put('/v1/receipt-consumers/indexer').set(admin).send({ cursor: 0 });
      expect(created.status).toBe(200);
      expect(created.body).toMatchObject({ name: 'indexer', cursor: 0, createdBy: expect.stringMatching(/^token:/) });

      const moved = await api
        .http()
        .put('/v1/receipt-consumers/indexer')
        .set(member)
        .send({ cursor: sequences.beta.at(-1) });
      expect(moved.status).toBe(403);
      expect(moved.body.code).toBe('forbidden');
      expect((await api.http().put('/v1/receipt-consumers/squatter').set(member).send({ cursor: 0 })).status).toBe(403);
      expect((await api.http().get('/v1/receipt-consumers').set(member)).status).toBe(403);
      expect((await api.http().delete('/v1/receipt-consumers/indexer').set(member)).status).toBe(403);

      const listed = await api.http().get('/v1/receipt-consumers').set(admin);
      expect(listed.body).toEqual([expect.objectContaining({ name: 'indexer', cursor: 0 })]);
    });

    it("[receipts.reclamation] a member cannot move an admin's consumer past what it processed, so safe reclamation keeps those receipts", async () => {
      await api.http().put('/v1/receipt-consumers/indexer').set(admin).send({ cursor: 0 });
      // The attack: acknowledge everything on the admin consumer's behalf.
      await api
        .http()
        .put('/v1/receipt-consumers/indexer')
        .set(member)
        .send({ cursor: sequences.beta.at(-1) });
      const safe = await api
        .http()
        .post('/v1/deletion-receipts/reclaim')
        .set(admin)
        .send({ throughSequence: sequences.beta.at(-1), mode: 'safe' });
      expect(safe.status).toBe(200);
      expect(safe.body).toMatchObject({ reclaimed: 0, limitedBy: 'indexer' });
      // The real consumer still replays everything from where it stands.
      const replay = await api.http().get('/v1/deletion-receipts?after=0').set(admin);
      expect(replay.status).toBe(200);
      expect(replay.body.items).toHaveLength(5);
    });

    it('records who created a consumer and who acknowledged last; a consumer can be deleted by an admin', async () => {
      const otherAdmin = bearer(
        (await api.http().post('/v1/tokens').set(admin).send({ name: 'second admin', role: 'admin', profiles: '*' }))
          .body.token,
      );
      const before = (await api.http().get('/v1/receipt-consumers').set(admin)).body[0];
      const acked = await api
        .http()
        .put('/v1/receipt-consumers/indexer')
        .set(otherAdmin)
        .send({ cursor: sequences.alpha[0] });
      expect(acked.status).toBe(200);
      expect(acked.body.createdBy).toBe(before.createdBy);
      expect(acked.body.principal).not.toBe(before.createdBy);

      await api.http().put('/v1/receipt-consumers/stale').set(admin).send({ cursor: 0 }).expect(200);
      expect((await api.http().delete('/v1/receipt-consumers/stale').set(admin)).status).toBe(204);
      expect((await api.http().delete('/v1/receipt-consumers/stale').set(admin)).status).toBe(404);
    });

    it("a member's list reports high-water and floor within its own profiles only", async () => {
      const mine = await api.http().get('/v1/deletion-receipts?after=0').set(member);
      expect(mine.status).toBe(200);
      expect(mine.body.items.map((receipt: { sequence: number }) => receipt.sequence)).toEqual(sequences.alpha);
      expect(mine.body.highWater).toBe(sequences.alpha.at(-1));
      expect(mine.body.floor).toBe(0);
      const all = await api.http().get('/v1/deletion-receipts?after=0').set(admin);
      expect(all.body.highWater).toBe(sequences.beta.at(-1));

      // The stream's bookmark says the same: the member's own high-water mark.
      const abort = new AbortController();
      const stream = await fetch(
        `${await api.listening()}/v1/deletion-receipts/watch?after=${sequences.alpha.at(-1)}&bookmarkSeconds=1`,
        { headers: member, signal: abort.signal },
      );
      let bookmark: unknown;
      for await (const { event, data } of sseEvents(stream)) {
        if (event === 'bookmark') {
          bookmark = data;
          break;
        }
      }
      abort.abort();
      expect(bookmark).toEqual({ highWater: sequences.alpha.at(-1), epoch: mine.body.epoch });
    });

    it("[receipts.reclamation] reclaiming only other tenants' receipts does not expire a member's cursor; reclaiming its own does", async () => {
      await api.http().delete('/v1/receipt-consumers/indexer').set(admin).expect(204);
      // Through sequence 3: receipts 1 (alpha), 2 and 3 (beta) go.
      const through = sequences.beta[1];
      const reclaimed = await api
        .http()
        .post('/v1/deletion-receipts/reclaim')
        .set(admin)
        .send({ throughSequence: through, mode: 'safe' });
      expect(reclaimed.body).toMatchObject({ floor: through, limitedBy: null });

      const expired = await api.http().get('/v1/deletion-receipts?after=0').set(member);
      expect(expired.status).toBe(410);
      expect(expired.body).toMatchObject({ code: 'cursor_expired', floor: sequences.alpha[0] });
      // Resuming from the member's own floor is complete: nothing of alpha was lost after it.
      const resumed = await api.http().get(`/v1/deletion-receipts?after=${sequences.alpha[0]}`).set(member);
      expect(resumed.status).toBe(200);
      expect(resumed.body).toMatchObject({ floor: sequences.alpha[0], highWater: sequences.alpha[1] });
      expect(resumed.body.items.map((receipt: { sequence: number }) => receipt.sequence)).toEqual([sequences.alpha[1]]);
      // The admin sees the store-wide floor.
      const adminView = await api.http().get(`/v1/deletion-receipts?after=${through}`).set(admin);
      expect(adminView.body.floor).toBe(through);
    });
  });
}
