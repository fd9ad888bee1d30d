import { describe, expect, it, vi } from 'vitest';
import { SessionRepository } from '../repositories/session.repository.js';
import { ManualClock } from '../shared/clock.js';
import { aChat, adminPrincipal, contextOf, TEST_DIALECTS } from '../testing/index.js';
import { useTestStore } from '../testing/suites.js';

const admin = contextOf(adminPrincipal);

/**
 * A revival is decided on reads taken outside its transaction; on SQLite it is not decided again
 * when the writer's change stamp shows nothing changed since (db/change-stamp.ts). These replay a
 * write that lands between the reads and the transaction: the decision must be made again.
 */
for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`a revival decided on a stale read on ${dialect}`, () => {
    const clock = new ManualClock(Date.UTC(2026, 9, 1));
    const t = useTestStore(dialect, { clock });
    const resolve = (chat: string) =>
      t.store.routes.resolve(admin, { profile: 'rr', source: 'telegram', chatType: 'dm', chatId: chat });
    const endByAccident = async (id: string) => {
      const { revision } = await t.store.sessions.get(admin, id);
      await t.store.sessions.end(admin, id, { reason: 'agent_close' }, { ifMatch: revision });
    };
    /** Runs `between` once, right after the next resolve's last read of the chat's rows (by its tuple). */
    const interleave = (between: () => Promise<unknown>) => {
      const original = SessionRepository.prototype.peerTupleSessions;
      let done = false;
      return vi.spyOn(SessionRepository.prototype, 'peerTupleSessions').mockImplementation(async function (
        this: SessionRepository,
        ...args
      ) {
        const rows = await original.apply(this, args);
        if (!done) {
          done = true;
          await between();
        }
        return rows;
      });
    };

    it('[resolve.revive-reopens] an open row of the chat created after the read wins, and the ended one stays ended', async () => {
      await aChat(t.store, { id: 'rr-old', profile: 'rr', chatId: 'c1', lines: 1, advanceMs: 60_000 });
      await endByAccident('rr-old');
      const spy = interleave(() => aChat(t.store, { id: 'rr-new', profile: 'rr', chatId: 'c1', advanceMs: 1000 }));
      try {
        expect(await resolve('c1')).toMatchObject({ sessionId: 'rr-new', via: 'recovered' });
      } finally {
        spy.mockRestore();
      }
      expect((await t.store.sessions.get(admin, 'rr-old')).endedAt).not.toBeNull();
    });

    it('[resolve.revive-reopens] a row archived after the read is not revived', async () => {
      await aChat(t.store, { id: 'rr-closed', profile: 'rr', chatId: 'c2', lines: 1, advanceMs: 60_000 });
      await endByAccident('rr-closed');
      const archive = async () => {
        const { revision } = await t.store.sessions.get(admin, 'rr-closed');
        await t.store.sessions.update(admin, 'rr-closed', { archived: true }, { ifMatch: revision });
      };
      const spy = interleave(archive);
      try {
        expect(await resolve('c2')).toMatchObject({ sessionId: null, via: 'none' });
      } finally {
        spy.mockRestore();
      }
      expect((await t.store.sessions.get(admin, 'rr-closed')).endedAt).not.toBeNull();
    });

    it('[resolve.revive-reopens] with nothing in between, the revival reopens the row once', async () => {
      await aChat(t.store, { id: 'rr-quiet', profile: 'rr', chatId: 'c3', lines: 1, advanceMs: 60_000 });
      await endByAccident('rr-quiet');
      const before = await t.store.sessions.get(admin, 'rr-quiet');
      expect(await resolve('c3')).toMatchObject({ sessionId: 'rr-quiet', via: 'recovered' });
      const after = await t.store.sessions.get(admin, 'rr-quiet');
      expect(after.endedAt).toBeNull();
      expect(after.endReason).toBeNull();
      expect(after.revision).toBe(before.revision + 1);
    });
  });
}
