import { describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.js';
import { adminPrincipal, aSession, contextOf, TEST_DIALECTS } from '../testing/index.js';
import { useTestStore } from '../testing/suites.js';

const admin = contextOf(adminPrincipal);

/** Profile rename and delete (docs/domain.md §6.1–6.2), on both dialects. */
for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`profile administration on ${dialect}`, () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 3));
    const t = useTestStore(dialect, { clock });

    const owe = (id: string, sessionId: string, transportProfile?: string) =>
      t.store.deliveries.create(admin, {
        id,
        sessionId,
        payload: { text: `reply ${id}` },
        maxAttempts: 3,
        ...(transportProfile ? { transportProfile } : {}),
      });

    it('[profiles.rename] a rename rewrites transport profiles that name the old profile, and only those', async () => {
      await aSession(t.store, {
        id: 'tp-own',
        profile: 'tp-old',
        source: 'telegram',
        lines: 1,
        advanceMs: 1000,
        transportProfile: 'tp-old',
      });
      await aSession(t.store, {
        id: 'tp-bot',
        profile: 'tp-old',
        source: 'telegram',
        lines: 1,
        advanceMs: 1000,
        transportProfile: 'tp-other-bot',
      });
      await aSession(t.store, { id: 'tp-none', profile: 'tp-old', source: 'telegram', lines: 1, advanceMs: 1000 });
      // Another tenant whose transport profile happens to carry the name is not this profile's.
      await aSession(t.store, {
        id: 'tp-elsewhere',
        profile: 'tp-neighbour',
        source: 'telegram',
        lines: 1,
        advanceMs: 1000,
        transportProfile: 'tp-old',
      });
      await owe('tp-d-own', 'tp-own', 'tp-old');
      await owe('tp-d-bot', 'tp-bot', 'tp-other-bot');
      await owe('tp-d-none', 'tp-none');

      const dry = await t.store.profileAdmin.rename(admin, 'tp-old', 'tp-new', true);
      expect(dry.counts.transportProfiles).toBe(2);
      expect((await t.store.sessions.get(admin, 'tp-own')).transportProfile).toBe('tp-old');

      const result = await t.store.profileAdmin.rename(admin, 'tp-old', 'tp-new');
      expect(result.counts).toMatchObject({ sessions: 3, deliveries: 3, transportProfiles: 2 });
      expect((await t.store.sessions.get(admin, 'tp-own')).transportProfile).toBe('tp-new');
      expect((await t.store.sessions.get(admin, 'tp-bot')).transportProfile).toBe('tp-other-bot');
      expect((await t.store.sessions.get(admin, 'tp-none')).transportProfile).toBeNull();
      expect((await t.store.sessions.get(admin, 'tp-elsewhere')).transportProfile).toBe('tp-old');
      expect(await t.store.deliveries.get(admin, 'tp-d-own')).toMatchObject({
        profile: 'tp-new',
        transportProfile: 'tp-new',
      });
      expect(await t.store.deliveries.get(admin, 'tp-d-bot')).toMatchObject({ transportProfile: 'tp-other-bot' });
      expect(await t.store.deliveries.get(admin, 'tp-d-none')).toMatchObject({ transportProfile: null });
    });

    it('[deliveries.abandoned-on-delete] purging a profile with its sessions abandons their obligations, never drops them', async () => {
      await aSession(t.store, {
        id: 'pp-1',
        profile: 'pp-gone',
        source: 'telegram',
        lines: 1,
        advanceMs: 1000,
        transportProfile: 'pp-gone',
      });
      await aSession(t.store, { id: 'pp-2', profile: 'pp-gone', source: 'telegram', lines: 1, advanceMs: 1000 });
      await owe('pp-d-1', 'pp-1', 'pp-gone');
      await owe('pp-d-2', 'pp-2');
      const result = await t.store.profileAdmin.delete(admin, 'pp-gone', { deleteSessions: true, dryRun: false });
      expect(result).toMatchObject({ profileRemoved: true, counts: { sessions: 2 } });
      const receipt = await t.store.receipts.get(admin, result.receipt!.operationId);
      expect(receipt.counts.deliveries).toBe(2);
      for (const id of ['pp-d-1', 'pp-d-2']) {
        // Still there (an administrator sees them), abandoned with the reason, the payload erased.
        expect(await t.store.deliveries.get(admin, id)).toMatchObject({
          state: 'abandoned',
          abandonedReason: 'session_deleted',
          payload: null,
        });
      }
      const rows = await t.store.db
        .selectFrom('deliveries')
        .select(['id', 'state'])
        .where('id', 'in', ['pp-d-1', 'pp-d-2'])
        .orderBy('id')
        .execute();
      expect(rows).toEqual([
        { id: 'pp-d-1', state: 'abandoned' },
        { id: 'pp-d-2', state: 'abandoned' },
      ]);
    });
  });
}
