import { describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.js';
import { RevisionConflictError, SessionBusyError, StaleGenerationError } from '../shared/errors.js';
import {
  acrossRestart,
  adminPrincipal,
  aSession,
  contextOf,
  TEST_DIALECTS,
  type TestStore,
  tokensOf,
} from '../testing/index.js';
import { useTestStore } from '../testing/suites.js';

const admin = contextOf(adminPrincipal);
const MINUTE = 60_000;

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`session runtime state on ${dialect}`, () => {
    const clock = new ManualClock(Date.UTC(2026, 11, 6, 9));
    const t = useTestStore(dialect, { clock });
    const revisionOf = async (id: string) => (await t.store.sessions.get(admin, id)).revision;
    const patch = async (id: string, body: Parameters<TestStore['store']['sessions']['update']>[2], extra = {}) =>
      t.store.sessions.update(admin, id, body, { ifMatch: await revisionOf(id), ...extra });

    it('[session.tool-pins] the offered tools are set at create and re-pinned by a revision-checked PATCH', async () => {
      const created = await aSession(t.store, {
        id: 'rt-tools',
        profile: 'rt',
        source: 'telegram',
        toolNames: ['web_search', 'shell', 'memory'],
      });
      expect(created.toolNames).toEqual(['web_search', 'shell', 'memory']);
      const plain = await aSession(t.store, { id: 'rt-plain', profile: 'rt' });
      expect(plain.toolNames).toBeNull();

      // A refresh re-pins them: order kept, revision bumped.
      const repinned = await patch('rt-tools', { toolNames: ['shell', 'browser'] });
      expect(repinned.toolNames).toEqual(['shell', 'browser']);
      expect(repinned.revision).toBe(created.revision + 1);
      // The same pins again change nothing (no revision bump).
      expect((await patch('rt-tools', { toolNames: ['shell', 'browser'] })).revision).toBe(repinned.revision);
      // A stale revision is refused and changes nothing.
      await expect(
        t.store.sessions.update(admin, 'rt-tools', { toolNames: ['x'] }, { ifMatch: created.revision }),
      ).rejects.toBeInstanceOf(RevisionConflictError);
      expect((await t.store.sessions.get(admin, 'rt-tools')).toolNames).toEqual(['shell', 'browser']);
      // null unpins.
      expect((await patch('rt-tools', { toolNames: null })).toolNames).toBeNull();
    });

    it('[session.model-config-patch] modelConfig is replaced as a whole by a revision-checked PATCH; null clears it', async () => {
      const created = await aSession(t.store, {
        id: 'rt-model',
        profile: 'rt',
        modelConfig: { temperature: 0.3, max_iterations: 90 },
      });
      const replaced = await patch('rt-model', { modelConfig: { temperature: 0.7 } });
      expect(replaced.modelConfig).toEqual({ temperature: 0.7 });
      expect(replaced.revision).toBe(created.revision + 1);
      await expect(
        t.store.sessions.update(admin, 'rt-model', { modelConfig: {} }, { ifMatch: created.revision }),
      ).rejects.toBeInstanceOf(RevisionConflictError);
      expect((await patch('rt-model', { modelConfig: null })).modelConfig).toBeNull();
    });

    it('[session.runtime-state-inherited] a continuation starts with its parent’s tool pins and model configuration', async () => {
      await aSession(t.store, {
        id: 'rt-chain',
        profile: 'rt',
        source: 'telegram',
        sessionKey: 'agent:rt:telegram:dm:chain',
        toolNames: ['shell'],
        modelConfig: { temperature: 0.1 },
        messages: [{ role: 'user', content: 'hello' }],
      });
      const { child } = await t.store.lineage.compress(
        admin,
        'rt-chain',
        { summary: 's', keepLastMessages: 0 },
        await tokensOf(t.store, 'rt-chain'),
      );
      expect(child).toMatchObject({ toolNames: ['shell'], modelConfig: { temperature: 0.1 } });
      const reset = await t.store.lineage.reset(
        admin,
        child.id,
        { reason: 'session_reset' },
        await tokensOf(t.store, child.id),
      );
      expect(reset.child).toMatchObject({ toolNames: ['shell'], modelConfig: { temperature: 0.1 } });
    });

    it('[session.compression-retry-after] the anti-thrash deadline is set, read back, and cleared by a successful compression in the same transaction', async () => {
      await aSession(t.store, {
        id: 'rt-deadline',
        profile: 'rt',
        source: 'telegram',
        messages: [{ role: 'user', content: 'long chat' }],
      });
      const deadline = clock.now() + 10 * MINUTE;
      const set = await patch('rt-deadline', {
        compressionRetryAfter: new Date(deadline).toISOString(),
        compressionRetryReason: 'summary model timed out',
      });
      expect(set).toMatchObject({
        compressionRetryAfter: new Date(deadline).toISOString(),
        compressionRetryReason: 'summary model timed out',
      });
      // Epoch milliseconds are accepted too; a new deadline without a reason drops the old reason.
      const later = await patch('rt-deadline', { compressionRetryAfter: deadline + MINUTE });
      expect(later).toMatchObject({
        compressionRetryAfter: new Date(deadline + MINUTE).toISOString(),
        compressionRetryReason: null,
      });
      await patch('rt-deadline', { compressionRetryAfter: deadline, compressionRetryReason: 'again' });

      // A compression that fails (a stale revision) leaves the deadline as it was.
      const stale = { ...(await tokensOf(t.store, 'rt-deadline')), ifMatch: 1 };
      await expect(
        t.store.lineage.compress(admin, 'rt-deadline', { summary: 'x', keepLastMessages: 0 }, stale),
      ).rejects.toBeInstanceOf(RevisionConflictError);
      expect((await t.store.sessions.get(admin, 'rt-deadline')).compressionRetryAfter).toBe(
        new Date(deadline).toISOString(),
      );

      // The successful one clears it on the parent; the child starts without one.
      const { parent, child } = await t.store.lineage.compress(
        admin,
        'rt-deadline',
        { summary: 'summary', keepLastMessages: 0 },
        await tokensOf(t.store, 'rt-deadline'),
      );
      expect(parent).toMatchObject({ compressionRetryAfter: null, compressionRetryReason: null });
      expect(child).toMatchObject({ compressionRetryAfter: null, compressionRetryReason: null });

      // Cleared on demand with null.
      await patch(child.id, { compressionRetryAfter: deadline, compressionRetryReason: 'r' });
      expect(await patch(child.id, { compressionRetryAfter: null })).toMatchObject({
        compressionRetryAfter: null,
        compressionRetryReason: null,
      });
    });

    it('[session.runtime-state-fenced] during another holder’s live turn, runtime state needs the turn or the generation; titles need only the revision', async () => {
      await aSession(t.store, { id: 'rt-busy', profile: 'rt', source: 'telegram' });
      const turn = await t.store.turns.begin(admin, 'rt-busy', { holder: 'worker-a', ttlSeconds: 60 });
      for (const body of [
        { toolNames: ['shell'] },
        { modelConfig: { temperature: 1 } },
        { compressionRetryAfter: clock.now() + MINUTE },
      ]) {
        await expect(patch('rt-busy', body)).rejects.toBeInstanceOf(SessionBusyError);
        await expect(patch('rt-busy', body, { turnId: 'not-the-turn' })).rejects.toBeInstanceOf(StaleGenerationError);
      }
      expect(await t.store.sessions.get(admin, 'rt-busy')).toMatchObject({
        toolNames: null,
        modelConfig: null,
        compressionRetryAfter: null,
      });
      // Presentation is not fenced by the turn.
      expect((await patch('rt-busy', { title: 'Renamed while busy' })).title).toBe('Renamed while busy');
      // The turn's own worker (or the current generation) may.
      expect((await patch('rt-busy', { toolNames: ['shell'] }, { turnId: turn.turnId })).toolNames).toEqual(['shell']);
      const generation = (await t.store.sessions.get(admin, 'rt-busy')).generation;
      expect(
        (await patch('rt-busy', { modelConfig: { temperature: 1 } }, { expectedGeneration: generation })).modelConfig,
      ).toEqual({ temperature: 1 });
      // Once the lease has lapsed, If-Match alone is enough again.
      clock.advance(2 * MINUTE);
      expect((await patch('rt-busy', { toolNames: ['browser'] })).toolNames).toEqual(['browser']);
    });
  });

  describe.skipIf(!available)(`session runtime state across a restart on ${dialect}`, () => {
    it('[session.compression-retry-after] tool pins, model configuration and the deadline survive a restart of the store', async () => {
      const deadline = Date.UTC(2030, 0, 1);
      await acrossRestart(
        dialect,
        async (first) => {
          const session = await aSession(first, {
            id: 'rt-restart',
            profile: 'rt',
            toolNames: ['a', 'b'],
          });
          await first.sessions.update(
            admin,
            'rt-restart',
            { modelConfig: { k: 1 }, compressionRetryAfter: deadline, compressionRetryReason: 'why' },
            { ifMatch: session.revision },
          );
        },
        async (second) => {
          expect(await second.sessions.get(admin, 'rt-restart')).toMatchObject({
            toolNames: ['a', 'b'],
            modelConfig: { k: 1 },
            compressionRetryAfter: new Date(deadline).toISOString(),
            compressionRetryReason: 'why',
          });
        },
      );
    });
  });
}
