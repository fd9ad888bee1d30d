import { describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.js';
import { adminPrincipal, aSession, contextOf, TEST_DIALECTS, tokensOf } from '../testing/index.js';
import { useTestStore } from '../testing/suites.js';
import { routingKey } from './route.service.js';

/**
 * What a continuation carries over from its parent (docs/domain.md §2.2.2, §2.2.4): the
 * conversation's first surface and the gateway that serves it, whichever operation made the child.
 */
const admin = contextOf(adminPrincipal);

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`session provenance on ${dialect}`, () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 4));
    const t = useTestStore(dialect, { clock });
    const chat = (id: string, extra: Record<string, unknown> = {}) => {
      clock.advance(1000);
      return aSession(t.store, {
        id,
        profile: 'prov',
        source: 'telegram',
        sessionKey: routingKey('prov', 'telegram', 'dm', id),
        chatType: 'dm',
        chatId: id,
        messages: [{ role: 'user', content: `hello ${id}` }],
        ...extra,
      });
    };

    it('[session.created-source] reset and branch children, made either way, keep the root’s first surface; a delegate starts with its own', async () => {
      await chat('cs-root');
      // Another surface resumes the conversation: `source` moves, `createdSource` stays.
      await t.store.sessions.update(admin, 'cs-root', { source: 'desktop' }, await tokensOf(t.store, 'cs-root'));
      const branched = await t.store.lineage.branch(admin, 'cs-root', {}, await tokensOf(t.store, 'cs-root'));
      expect(branched.child).toMatchObject({ lineageKind: 'branch', source: 'desktop', createdSource: 'telegram' });
      const reset = await t.store.lineage.reset(
        admin,
        'cs-root',
        { reason: 'session_reset' },
        await tokensOf(t.store, 'cs-root'),
      );
      expect(reset.child).toMatchObject({ lineageKind: 'reset', source: 'desktop', createdSource: 'telegram' });
      // A continuation recorded by the runtime itself (create with a parent) keeps it too.
      for (const lineageKind of ['branch', 'reset', 'compression'] as const) {
        const child = await aSession(t.store, {
          id: `cs-${lineageKind}`,
          profile: 'prov',
          parentSessionId: reset.child.id,
          lineageKind,
        });
        expect(child, lineageKind).toMatchObject({ source: 'cli', createdSource: 'telegram' });
      }
      const delegate = await aSession(t.store, {
        id: 'cs-delegate',
        profile: 'prov',
        source: 'subagent',
        parentSessionId: reset.child.id,
        lineageKind: 'delegate',
      });
      expect(delegate).toMatchObject({ source: 'subagent', createdSource: 'subagent' });
    });

    it('[session.owner-gateway] the owner gateway follows the conversation into compression and reset children, not into a branch', async () => {
      await t.store.gateways.heartbeat(admin, 'gw-prov', {
        profile: 'prov',
        host: 'host-1',
        pid: 7,
        startedAt: Date.UTC(2026, 10, 4),
      });
      await chat('own-root', { gatewayId: 'gw-prov' });
      const compressed = await t.store.lineage.compress(
        admin,
        'own-root',
        { summary: 'so far', keepLastMessages: 0 },
        await tokensOf(t.store, 'own-root'),
      );
      expect(compressed.child.gatewayId).toBe('gw-prov');
      const reset = await t.store.lineage.reset(
        admin,
        compressed.child.id,
        { reason: 'daily' },
        await tokensOf(t.store, compressed.child.id),
      );
      expect(reset.child.gatewayId).toBe('gw-prov');
      // The gateway sees both segments it now serves as one open session: the reset child.
      const gateway = await t.store.gateways.get(admin, 'gw-prov');
      expect(gateway.openSessions).toBe(1);
      // A branch is the user's own copy, outside the chat's routing: no gateway serves it.
      const branched = await t.store.lineage.branch(admin, reset.child.id, {}, await tokensOf(t.store, reset.child.id));
      expect(branched.child.gatewayId).toBeNull();
    });
  });
}
