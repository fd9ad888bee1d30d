import { describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.js';
import { ClaimExpiredError, DeliverySettledError } from '../shared/errors.js';
import { adminPrincipal, contextOf, TEST_DIALECTS } from '../testing/index.js';
import { useTestStore } from '../testing/suites.js';

/**
 * The claim rules a crashed or slow worker relies on (docs/domain.md §11.3, §11.4): asking again
 * while holding a claim extends it without spending an attempt, and a delivery reported on a claim
 * that lapsed with nobody taking over still happened.
 */
const admin = contextOf(adminPrincipal);
const SECOND = 1000;

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`delivery claims on ${dialect}`, () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 6));
    const t = useTestStore(dialect, { clock });
    const owe = async (id: string) => {
      await t.store.sessions.create(admin, { id: `s-${id}`, profile: 'dc', source: 'telegram' });
      return t.store.deliveries.create(admin, {
        id,
        sessionId: `s-${id}`,
        payload: { text: `reply ${id}` },
        maxAttempts: 3,
      });
    };

    it('[deliveries.claims] the holder of a live claim asking again extends it, without a new attempt or a new claim id', async () => {
      await owe('extend-1');
      const first = await t.store.deliveries.claim(admin, 'extend-1', { holder: 'worker-a', leaseSeconds: 10 });
      expect(first).toMatchObject({ state: 'claimed', attempts: 1 });
      clock.advance(8 * SECOND);
      const again = await t.store.deliveries.claim(admin, 'extend-1', { holder: 'worker-a', leaseSeconds: 10 });
      expect(again).toMatchObject({ state: 'claimed', attempts: 1, claim: { claimId: first.claim!.claimId } });
      expect(Date.parse(again.claim!.expiresAt)).toBe(Date.parse(first.claim!.expiresAt) + 8 * SECOND);
      // Past the first lease, still inside the extended one: the claim is live and its report counts.
      clock.advance(5 * SECOND);
      expect((await t.store.deliveries.get(admin, 'extend-1')).state).toBe('claimed');
      const done = await t.store.deliveries.delivered(admin, 'extend-1', { claimId: first.claim!.claimId });
      expect(done).toMatchObject({ state: 'delivered', attempts: 1 });
    });

    it('[deliveries.outcomes] a report on a claim that lapsed with nobody taking over still counts; a settled obligation never changes again', async () => {
      await owe('late-1');
      const claimed = await t.store.deliveries.claim(admin, 'late-1', { holder: 'slow', leaseSeconds: 5 });
      clock.advance(6 * SECOND);
      expect((await t.store.deliveries.get(admin, 'late-1')).state).toBe('pending');
      const done = await t.store.deliveries.delivered(admin, 'late-1', { claimId: claimed.claim!.claimId });
      expect(done).toMatchObject({ state: 'delivered', attempts: 1, claim: null });
      // Settled: a failure report, another claim or another claim id change nothing.
      await expect(
        t.store.deliveries.failed(admin, 'late-1', { claimId: claimed.claim!.claimId, error: 'late', retryable: true }),
      ).rejects.toBeInstanceOf(DeliverySettledError);
      await expect(
        t.store.deliveries.claim(admin, 'late-1', { holder: 'other', leaseSeconds: 5 }),
      ).rejects.toBeInstanceOf(DeliverySettledError);
      await expect(t.store.deliveries.delivered(admin, 'late-1', { claimId: 'not-the-claim' })).rejects.toBeInstanceOf(
        DeliverySettledError,
      );
      expect(await t.store.deliveries.get(admin, 'late-1')).toEqual(done);

      // Once another worker took a lapsed claim over, the first claimer's report is stale.
      await owe('late-2');
      const lapsed = await t.store.deliveries.claim(admin, 'late-2', { holder: 'slow', leaseSeconds: 5 });
      clock.advance(6 * SECOND);
      await t.store.deliveries.claim(admin, 'late-2', { holder: 'rescuer', leaseSeconds: 5 });
      await expect(
        t.store.deliveries.delivered(admin, 'late-2', { claimId: lapsed.claim!.claimId }),
      ).rejects.toBeInstanceOf(ClaimExpiredError);
    });
  });
}
