import { LABELS_MAX } from '@statehouse/contracts';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.js';
import { ConflictError, ValidationError } from '../shared/errors.js';
import { adminPrincipal, contextOf, memberPrincipal, TEST_DIALECTS } from '../testing/index.js';
import { useTestStore } from '../testing/suites.js';

const admin = contextOf(adminPrincipal);

/** Labels in the store (docs/domain.md §15), on both dialects. */
for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`labels on ${dialect}`, () => {
    const clock = new ManualClock(Date.UTC(2026, 11, 7));
    const t = useTestStore(dialect, { clock });

    const session = (id: string, profile: string) => {
      clock.advance(1000);
      return t.store.sessions.create(admin, {
        id,
        profile,
        source: 'cli',
        messages: [
          { role: 'user', content: `hello ${id}` },
          { role: 'assistant', content: 'hi' },
        ],
      });
    };

    it('[labels.name-unique] two creators racing for one name in different case: exactly one label', async () => {
      await session('race-1', 'st');
      const results = await Promise.allSettled([
        t.store.labels.create(admin, 'st', { name: 'Hot', colour: 'red' }),
        t.store.labels.create(admin, 'st', { name: 'hot', colour: 'blue' }),
      ]);
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      const loser = results.find((result) => result.status === 'rejected') as PromiseRejectedResult;
      expect(loser.reason).toBeInstanceOf(ConflictError);
      expect((await t.store.labels.list(admin, 'st')).items).toHaveLength(1);
    });

    it('[labels.profile-scoped] a profile keeps at most LABELS_MAX labels; a member reaches only its profiles', async () => {
      await session('cap-1', 'st-cap');
      for (let i = 0; i < LABELS_MAX; i++) {
        await t.store.labels.create(admin, 'st-cap', { name: `label ${String(i).padStart(3, '0')}`, colour: 'grey' });
      }
      await expect(
        t.store.labels.create(admin, 'st-cap', { name: 'one too many', colour: 'grey' }),
      ).rejects.toBeInstanceOf(ValidationError);
      const member = contextOf(memberPrincipal(['st']));
      await expect(t.store.labels.list(member, 'st-cap')).rejects.toMatchObject({ code: 'not_found' });
      expect((await t.store.labels.list(member, 'st')).items.map((label) => label.name)).toEqual(['Hot']);
    });

    it('[labels.session-life] a compression child carries its parent’s labels; a reset child does not', async () => {
      await t.store.labels.create(admin, 'st', { name: 'follow', colour: 'teal' });
      await session('life-1', 'st');
      await t.store.labels.apply(admin, 'st', 'follow', ['life-1']);
      const tokens = async (id: string) => {
        const current = await t.store.sessions.get(admin, id);
        return { ifMatch: current.revision, expectedGeneration: current.generation };
      };
      const { child } = await t.store.lineage.compress(
        admin,
        'life-1',
        { summary: 'so far', keepLastMessages: 1, childId: 'life-1c' },
        await tokens('life-1'),
      );
      expect((await t.store.labels.ofSession(admin, child.id)).items).toEqual([{ name: 'follow', colour: 'teal' }]);
      const reset = await t.store.lineage.reset(
        admin,
        child.id,
        { reason: 'session_reset', childId: 'life-1r' },
        await tokens(child.id),
      );
      expect((await t.store.labels.ofSession(admin, reset.child.id)).items).toEqual([]);
      expect(
        (await t.store.labels.list(admin, 'st')).items.find((label) => label.name === 'follow')?.sessionCount,
      ).toBe(2);
    });
  });
}
