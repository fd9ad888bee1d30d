import { describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.js';
import { NotFoundError, PreconditionRequiredError, RevisionConflictError } from '../shared/errors.js';
import {
  aContinuation,
  adminPrincipal,
  aSession,
  contextOf,
  memberPrincipal,
  TEST_DIALECTS,
} from '../testing/index.js';
import { useTestStore } from '../testing/suites.js';

const admin = contextOf(adminPrincipal);
const baseList = {
  status: 'all',
  archived: 'exclude',
  includeChildren: false,
  limit: 50,
  order: 'recent',
} as const;

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`sessions on ${dialect}`, () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1));
    const t = useTestStore(dialect, { clock });

    it('[session.ids] mints sortable ids and starts at revision 1, generation 0', async () => {
      const a = await aSession(t.store);
      clock.advance(1);
      const b = await aSession(t.store);
      expect(a.id < b.id).toBe(true);
      expect(a).toMatchObject({ revision: 1, generation: 0, createdSource: 'cli', archived: false, endedAt: null });
    });

    it('refuses a parent outside the profile or unknown', async () => {
      await aSession(t.store, { id: 'parent-q', profile: 'q' });
      await expect(
        aSession(t.store, {
          parentSessionId: 'parent-q',
          lineageKind: 'branch',
        }),
      ).rejects.toBeInstanceOf(NotFoundError);
    });

    it('update needs If-Match and decides conflicts in the database', async () => {
      const session = await aSession(t.store, { id: 'upd' });
      await expect(t.store.sessions.update(admin, 'upd', { pinned: true }, {})).rejects.toBeInstanceOf(
        PreconditionRequiredError,
      );
      const results = await Promise.allSettled([
        t.store.sessions.update(admin, 'upd', { pinned: true }, { ifMatch: session.revision }),
        t.store.sessions.update(admin, 'upd', { archived: true }, { ifMatch: session.revision }),
      ]);
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      const rejected = results.find((result) => result.status === 'rejected') as PromiseRejectedResult;
      expect(rejected.reason).toBeInstanceOf(RevisionConflictError);
      expect((rejected.reason as RevisionConflictError).currentRevision).toBe(2);
    });

    it('[session.revision-generation] a no-op update changes nothing, not even the revision', async () => {
      const session = await aSession(t.store, { id: 'noop' });
      const same = await t.store.sessions.update(admin, 'noop', { pinned: false, source: 'cli' }, { ifMatch: 1 });
      expect(same.revision).toBe(session.revision);
    });

    it('[lineage.flags-whole-chain] archive, pin and hide apply to the whole compression lineage', async () => {
      await aSession(t.store, { id: 'c-root', profile: 'chain' });
      await aContinuation(t.store, 'c-root', { id: 'c-mid' });
      await aContinuation(t.store, 'c-mid', { id: 'c-tip' });
      await aSession(t.store, {
        id: 'c-branch',
        profile: 'chain',
        parentSessionId: 'c-mid',
        lineageKind: 'branch',
      });
      await t.store.sessions.update(admin, 'c-tip', { archived: true }, { ifMatch: 1 });
      for (const id of ['c-root', 'c-mid', 'c-tip'])
        expect((await t.store.sessions.get(admin, id)).archived).toBe(true);
      expect((await t.store.sessions.get(admin, 'c-branch')).archived).toBe(false);
      const list = await t.store.sessions.list(admin, { ...baseList, profile: 'chain', archived: 'include' });
      expect(list.items.map((item) => item.id).sort()).toEqual(['c-branch', 'c-tip']);
      expect(list.items.find((item) => item.id === 'c-tip')?.rootId).toBe('c-root');
    });

    it('[session.lifecycle-fields] [security.owner-fence] lists with the owner fence and lastActivityAt that never moves backwards', async () => {
      const member = contextOf(memberPrincipal(['p']));
      const listed = await t.store.sessions.list(member, { ...baseList, limit: 200 });
      expect(listed.items.length).toBeGreaterThan(0);
      expect(listed.items.every((item) => item.profile === 'p')).toBe(true);
      await expect(t.store.sessions.get(member, 'parent-q')).rejects.toBeInstanceOf(NotFoundError);

      const session = await aSession(t.store, { id: 'activity' });
      clock.advance(-60_000);
      await t.store.messages.append(admin, 'activity', { messages: [{ role: 'user', content: 'from the past' }] });
      clock.advance(60_000);
      expect((await t.store.sessions.get(admin, 'activity')).lastActivityAt).toBe(session.lastActivityAt);
    });
  });
}
