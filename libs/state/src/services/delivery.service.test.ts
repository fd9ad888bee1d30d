import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.js';
import {
  ClaimExpiredError,
  ConflictError,
  DeliveryClaimedError,
  DeliverySettledError,
  NotFoundError,
} from '../shared/errors.js';
import { adminPrincipal, aSession, contextOf, memberPrincipal, TEST_DIALECTS, tokensOf } from '../testing/index.js';
import { useTestStore } from '../testing/suites.js';

const admin = contextOf(adminPrincipal);
const SECOND = 1000;

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`delivery obligations on ${dialect}`, () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 2));
    const t = useTestStore(dialect, { clock });
    const owe = (id: string, sessionId: string, extra: Record<string, unknown> = {}) =>
      t.store.deliveries.create(admin, {
        id,
        sessionId,
        payload: { text: `reply ${id}`, chatId: 'c1' },
        maxAttempts: 3,
        ...extra,
      });

    it('[deliveries.idempotent-create] creates idempotently by id: the same content returns the obligation, other content conflicts', async () => {
      await aSession(t.store, { id: 'dv-s1', profile: 'dv', source: 'telegram', lines: 1 });
      const first = await owe('dv-1', 'dv-s1');
      expect(first.created).toBe(true);
      expect(first.delivery).toMatchObject({ state: 'pending', attempts: 0, maxAttempts: 3, claim: null });
      const again = await owe('dv-1', 'dv-s1');
      expect(again).toEqual({ created: false, delivery: first.delivery });
      await expect(owe('dv-1', 'dv-s1', { payload: { text: 'other' } })).rejects.toBeInstanceOf(ConflictError);
      await expect(owe('dv-x', 'no-such-session')).rejects.toBeInstanceOf(NotFoundError);
      const twins = await Promise.all([owe('dv-twin', 'dv-s1'), owe('dv-twin', 'dv-s1')]);
      expect(twins.map((result) => result.created).sort()).toEqual([false, true]);
    });

    it('[deliveries.claims] a claim race between two workers gives one owner', async () => {
      await aSession(t.store, { id: 'dv-race', profile: 'dv', source: 'telegram', lines: 1 });
      await owe('race-1', 'dv-race');
      const results = await Promise.allSettled([
        t.store.deliveries.claim(admin, 'race-1', { holder: 'worker-a', leaseSeconds: 30 }),
        t.store.deliveries.claim(admin, 'race-1', { holder: 'worker-b', leaseSeconds: 30 }),
      ]);
      const won = results.filter((result) => result.status === 'fulfilled');
      const lost = results.filter((result) => result.status === 'rejected');
      expect(won).toHaveLength(1);
      expect((lost[0] as PromiseRejectedResult).reason).toBeInstanceOf(DeliveryClaimedError);
      const row = await t.store.deliveries.get(admin, 'race-1');
      expect(row).toMatchObject({ state: 'claimed', attempts: 1 });
      // claim-next from two workers at once: every obligation ends up with exactly one of them.
      for (let i = 0; i < 6; i++) await owe(`race-n${i}`, 'dv-race');
      const [a, b] = await Promise.all([
        t.store.deliveries.claimNext(admin, { holder: 'worker-a', leaseSeconds: 30, profile: 'dv', limit: 10 }),
        t.store.deliveries.claimNext(admin, { holder: 'worker-b', leaseSeconds: 30, profile: 'dv', limit: 10 }),
      ]);
      const ids = [...a.items, ...b.items].map((delivery) => delivery.id).filter((id) => id.startsWith('race-n'));
      expect(ids.sort()).toEqual(['race-n0', 'race-n1', 'race-n2', 'race-n3', 'race-n4', 'race-n5']);
    });

    it('[deliveries.claims] [deliveries.outcomes] a crashed claimer’s lease expires and another worker delivers; the late claimer is told', async () => {
      await aSession(t.store, { id: 'dv-crash', profile: 'dv', source: 'telegram', lines: 1 });
      await owe('crash-1', 'dv-crash');
      const lost = await t.store.deliveries.claim(admin, 'crash-1', { holder: 'crashed', leaseSeconds: 10 });
      await expect(
        t.store.deliveries.claim(admin, 'crash-1', { holder: 'rescuer', leaseSeconds: 10 }),
      ).rejects.toBeInstanceOf(DeliveryClaimedError);
      clock.advance(11 * SECOND);
      expect((await t.store.deliveries.get(admin, 'crash-1')).state).toBe('pending');
      const [rescued] = (
        await t.store.deliveries.claimNext(admin, { holder: 'rescuer', leaseSeconds: 10, profile: 'dv', limit: 50 })
      ).items.filter((delivery) => delivery.id === 'crash-1');
      expect(rescued).toMatchObject({ attempts: 2, claim: { holder: 'rescuer' } });
      await expect(
        t.store.deliveries.delivered(admin, 'crash-1', { claimId: lost.claim!.claimId }),
      ).rejects.toBeInstanceOf(ClaimExpiredError);
      const done = await t.store.deliveries.delivered(admin, 'crash-1', { claimId: rescued.claim!.claimId });
      expect(done).toMatchObject({ state: 'delivered', claim: null });
      expect(done.deliveredAt).not.toBeNull();
      // A retried report is answered as it stands; a settled obligation cannot be claimed again.
      expect(await t.store.deliveries.delivered(admin, 'crash-1', { claimId: rescued.claim!.claimId })).toEqual(done);
      await expect(
        t.store.deliveries.claim(admin, 'crash-1', { holder: 'x', leaseSeconds: 10 }),
      ).rejects.toBeInstanceOf(DeliverySettledError);
    });

    it('[deliveries.outcomes] failures retry until the attempts are used up, then the obligation is abandoned', async () => {
      await aSession(t.store, { id: 'dv-fail', profile: 'dv', source: 'telegram', lines: 1 });
      await owe('fail-1', 'dv-fail');
      for (let attempt = 1; attempt <= 3; attempt++) {
        const claimed = await t.store.deliveries.claim(admin, 'fail-1', { holder: 'w', leaseSeconds: 10 });
        expect(claimed.attempts).toBe(attempt);
        const after = await t.store.deliveries.failed(admin, 'fail-1', {
          claimId: claimed.claim!.claimId,
          error: `platform down (${attempt})`,
          retryable: true,
        });
        expect(after.state).toBe(attempt < 3 ? 'pending' : 'abandoned');
      }
      expect(await t.store.deliveries.get(admin, 'fail-1')).toMatchObject({
        state: 'abandoned',
        abandonedReason: 'attempts_exhausted',
        lastError: 'platform down (3)',
      });
      await owe('fail-2', 'dv-fail');
      const claimed = await t.store.deliveries.claim(admin, 'fail-2', { holder: 'w', leaseSeconds: 10 });
      const permanent = await t.store.deliveries.failed(admin, 'fail-2', {
        claimId: claimed.claim!.claimId,
        error: 'chat deleted',
        retryable: false,
      });
      expect(permanent).toMatchObject({ state: 'abandoned', abandonedReason: 'permanent_failure' });
      // The last attempt's claim lapsing without a report also abandons it.
      await owe('fail-3', 'dv-fail', { maxAttempts: 1 });
      await t.store.deliveries.claim(admin, 'fail-3', { holder: 'w', leaseSeconds: 5 });
      clock.advance(6 * SECOND);
      await t.store.deliveries.claimNext(admin, { holder: 'w2', leaseSeconds: 5, profile: 'dv', limit: 50 });
      expect(await t.store.deliveries.get(admin, 'fail-3')).toMatchObject({
        state: 'abandoned',
        abandonedReason: 'attempts_exhausted',
      });
    });

    it('[deliveries.outcomes] claiming an obligation whose last attempt lapsed answers settled (409) and leaves it abandoned, no attempt taken', async () => {
      await aSession(t.store, { id: 'dv-spent', profile: 'dv', source: 'telegram', lines: 1 });
      await owe('spent-1', 'dv-spent', { maxAttempts: 1 });
      await t.store.deliveries.claim(admin, 'spent-1', { holder: 'w', leaseSeconds: 5 });
      clock.advance(6 * SECOND);
      await expect(
        t.store.deliveries.claim(admin, 'spent-1', { holder: 'w2', leaseSeconds: 5 }),
      ).rejects.toBeInstanceOf(DeliverySettledError);
      // The refusal said "abandoned": the store says so too (the abandonment was rolled back with
      // the refusal, so the obligation read `pending` while every claim of it was refused).
      const after = await t.store.deliveries.get(admin, 'spent-1');
      expect(after).toMatchObject({
        state: 'abandoned',
        abandonedReason: 'attempts_exhausted',
        attempts: 1,
        claim: null,
      });
      expect(
        (await t.store.deliveries.list(admin, { sessionId: 'dv-spent', state: 'pending', limit: 50 })).items,
      ).toEqual([]);
      // Settled for good: another claim changes nothing.
      await expect(
        t.store.deliveries.claim(admin, 'spent-1', { holder: 'w3', leaseSeconds: 5 }),
      ).rejects.toBeInstanceOf(DeliverySettledError);
      expect(await t.store.deliveries.get(admin, 'spent-1')).toEqual(after);
    });

    if (dialect === 'postgres') {
      it('a delivery created while its session is being deleted waits for the delete and answers 404, leaving no orphan', async () => {
        await t.store.sessions.create(admin, { id: 'dv-dying', profile: 'dv', source: 'telegram' });
        let created: Promise<unknown> | undefined;
        let settled = false;
        await t.store.db.transaction().execute(async (trx) => {
          // The deleting transaction (as DeletionService runs it): the session row locked and gone.
          await sql`select id from sessions where id = 'dv-dying' for update`.execute(trx);
          await sql`delete from sessions where id = 'dv-dying'`.execute(trx);
          created = owe('dying-1', 'dv-dying').finally(() => {
            settled = true;
          });
          created.catch(() => undefined);
          // Until the create waits on the delete's lock (or, unlocked, finishes beside it).
          for (let i = 0; i < 200 && !settled; i++) {
            const waiting = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
              where datname = current_database() and wait_event_type = 'Lock'`.execute(t.store.db);
            if (Number(waiting.rows[0].n) > 0) break;
            await new Promise((resolve) => setTimeout(resolve, 25));
          }
        });
        await expect(created).rejects.toBeInstanceOf(NotFoundError);
        const orphans = await t.store.db
          .selectFrom('deliveries')
          .select('id')
          .where('session_id', '=', 'dv-dying')
          .execute();
        expect(orphans).toEqual([]);
      });
    }

    it('[deletion.paths] [deliveries.abandoned-on-delete] deleting the session marks its pending obligations abandoned, counts them in the receipt and erases payloads', async () => {
      await aSession(t.store, { id: 'dv-del', profile: 'dv', source: 'telegram', lines: 1 });
      await owe('del-pending', 'dv-del');
      await owe('del-claimed', 'dv-del');
      await owe('del-done', 'dv-del');
      await t.store.deliveries.claim(admin, 'del-claimed', { holder: 'w', leaseSeconds: 30 });
      const done = await t.store.deliveries.claim(admin, 'del-done', { holder: 'w', leaseSeconds: 30 });
      await t.store.deliveries.delivered(admin, 'del-done', { claimId: done.claim!.claimId });
      const deleted = await t.store.deletion.deleteOne(
        admin,
        'dv-del',
        { includeCompressionChain: false, ifEmpty: false },
        await tokensOf(t.store, 'dv-del'),
      );
      const receipt = await t.store.receipts.get(admin, deleted.receipt!.operationId);
      expect(receipt.counts).toMatchObject({ sessions: 1, deliveries: 2 });
      const rows = (await t.store.deliveries.list(admin, { sessionId: 'dv-del', limit: 50 })).items;
      expect(rows.map((row) => [row.id, row.state, row.abandonedReason, row.payload])).toEqual([
        ['del-claimed', 'abandoned', 'session_deleted', null],
        ['del-done', 'delivered', null, null],
        ['del-pending', 'abandoned', 'session_deleted', null],
      ]);
      const listed = await t.store.deliveries.list(admin, { state: 'abandoned', profile: 'dv', limit: 50 });
      expect(listed.items.map((row) => row.id)).toEqual(expect.arrayContaining(['del-pending', 'del-claimed']));
    });

    it('[profiles.single-owner] [security.owner-fence] [deliveries.obligation] is owner-fenced, and follows a profile-repair move', async () => {
      await aSession(t.store, { id: 'dv-fence', profile: 'dv', source: 'telegram', lines: 1 });
      await owe('fence-1', 'dv-fence');
      const outsider = contextOf(memberPrincipal(['elsewhere']));
      await expect(t.store.deliveries.get(outsider, 'fence-1')).rejects.toBeInstanceOf(NotFoundError);
      await expect(
        t.store.deliveries.claim(outsider, 'fence-1', { holder: 'x', leaseSeconds: 5 }),
      ).rejects.toBeInstanceOf(NotFoundError);
      expect((await t.store.deliveries.list(outsider, { limit: 50 })).items).toEqual([]);
      expect((await t.store.deliveries.claimNext(outsider, { holder: 'x', leaseSeconds: 5, limit: 10 })).items).toEqual(
        [],
      );
      await t.store.profiles.create(admin, 'dv-target');
      const moved = await t.store.profileAdmin.move(admin, 'dv-fence', 'dv-target');
      const receipt = await t.store.receipts.get(admin, moved.receipt!.operationId);
      expect(receipt.counts.deliveries).toBe(0);
      expect(await t.store.deliveries.get(admin, 'fence-1')).toMatchObject({ profile: 'dv-target', state: 'pending' });
    });
  });
}
