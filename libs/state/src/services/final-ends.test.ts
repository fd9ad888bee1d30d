import { describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.js';
import type { OperationContext } from '../shared/context.js';
import { SessionClosedError } from '../shared/errors.js';
import { adminPrincipal, contextOf, TEST_DIALECTS, tokensOf } from '../testing/index.js';
import { useTestStore } from '../testing/suites.js';
import { routingKey } from './route.service.js';

/**
 * Ends nobody clears (docs/domain.md §4.7), and the one case a deliberate close stays closed even for
 * the transport that delivers it (§4.5): a compression continuation exists.
 */
const admin = contextOf(adminPrincipal);
const dashboard: OperationContext = {
  principal: { ...adminPrincipal, kind: 'user', name: 'ada' },
  channel: 'dashboard',
};

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`final ends on ${dialect}`, () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 5));
    const t = useTestStore(dialect, { clock });
    const chat = (id: string) => {
      clock.advance(1000);
      return t.store.sessions.create(admin, {
        id,
        profile: 'fin',
        source: 'telegram',
        sessionKey: routingKey('fin', 'telegram', 'dm', id),
        userId: 'u1',
        chatType: 'dm',
        chatId: id,
        transportProfile: 'bot-a',
        messages: [{ role: 'user', content: `hello ${id}` }],
      });
    };
    const resolve = (id: string) =>
      t.store.routes.resolve(admin, {
        profile: 'fin',
        source: 'telegram',
        userId: 'u1',
        chatType: 'dm',
        chatId: id,
        transportProfile: 'bot-a',
      });

    it('[lifecycle.final-ends] compression, branched and reset ends are never cleared: not by a reopen, a turn, a compression, an append or a resolve', async () => {
      const ended: Record<string, string> = {};
      await chat('fin-compressed');
      await t.store.lineage.compress(
        admin,
        'fin-compressed',
        { summary: 's', keepLastMessages: 0 },
        await tokensOf(t.store, 'fin-compressed'),
      );
      ended['fin-compressed'] = 'compression';
      for (const reason of ['branched', 'session_reset', 'daily', 'suspended'] as const) {
        const id = `fin-${reason}`;
        await chat(id);
        // A completed handoff makes other ends revivable (§4.8), never these.
        await t.store.handoff.request(admin, id, 'desktop', {});
        await t.store.handoff.claim(admin, id, {});
        await t.store.handoff.complete(admin, id, {});
        await t.store.sessions.end(admin, id, { reason }, await tokensOf(t.store, id));
        ended[id] = reason;
      }
      for (const [id, reason] of Object.entries(ended)) {
        const before = await t.store.sessions.get(admin, id);
        expect(before.endReason, id).toBe(reason);
        // Not even the transport that delivers the conversation, nor a person in the dashboard.
        await expect(
          t.store.sessions.reopen(admin, id, { transportProfile: 'bot-a' }, await tokensOf(t.store, id)),
          id,
        ).rejects.toBeInstanceOf(SessionClosedError);
        await expect(
          t.store.sessions.reopen(dashboard, id, {}, await tokensOf(t.store, id)),
          id,
        ).rejects.toBeInstanceOf(SessionClosedError);
        await expect(t.store.turns.begin(admin, id, { holder: 'worker', ttlSeconds: 30 }), id).rejects.toBeInstanceOf(
          SessionClosedError,
        );
        await expect(
          t.store.lineage.compress(admin, id, { summary: 's', keepLastMessages: 0 }, await tokensOf(t.store, id)),
          id,
        ).rejects.toBeInstanceOf(SessionClosedError);
        if (reason === 'compression') {
          await expect(
            t.store.messages.append(admin, id, { messages: [{ role: 'user', content: 'late' }] }),
            id,
          ).rejects.toBeInstanceOf(SessionClosedError);
        } else {
          // A late message is kept; the end stays.
          const appended = await t.store.messages.append(admin, id, { messages: [{ role: 'user', content: 'late' }] });
          expect(appended.reopened, id).toBeUndefined();
        }
        expect((await resolve(id)).sessionId, id).not.toBe(id);
        expect(await t.store.sessions.get(admin, id), id).toMatchObject({
          endedAt: before.endedAt,
          endReason: reason,
        });
      }
    });

    it('[lifecycle.deliberate-close] a deliberate close is never reopened once a compression continuation exists, not even by its transport or a person', async () => {
      await chat('fin-closed');
      await t.store.sessions.end(admin, 'fin-closed', { reason: 'cli_close' }, await tokensOf(t.store, 'fin-closed'));
      // The runtime recorded the continuation itself (an import or a gateway compressing elsewhere).
      await t.store.sessions.create(admin, {
        id: 'fin-closed-next',
        profile: 'fin',
        source: 'telegram',
        parentSessionId: 'fin-closed',
        lineageKind: 'compression',
      });
      await expect(
        t.store.sessions.reopen(
          admin,
          'fin-closed',
          { transportProfile: 'bot-a' },
          await tokensOf(t.store, 'fin-closed'),
        ),
      ).rejects.toBeInstanceOf(SessionClosedError);
      await expect(
        t.store.sessions.reopen(dashboard, 'fin-closed', {}, await tokensOf(t.store, 'fin-closed')),
      ).rejects.toBeInstanceOf(SessionClosedError);
      expect(await t.store.sessions.get(admin, 'fin-closed')).toMatchObject({ endReason: 'cli_close' });
      // Without a continuation the same reopen is allowed (§4.5).
      await chat('fin-closed-alone');
      await t.store.sessions.end(
        admin,
        'fin-closed-alone',
        { reason: 'cli_close' },
        await tokensOf(t.store, 'fin-closed-alone'),
      );
      const reopened = await t.store.sessions.reopen(
        admin,
        'fin-closed-alone',
        { transportProfile: 'bot-a' },
        await tokensOf(t.store, 'fin-closed-alone'),
      );
      expect(reopened.endedAt).toBeNull();
    });
  });
}
