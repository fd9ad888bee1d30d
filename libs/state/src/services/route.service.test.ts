import { beforeAll, describe, expect, it } from 'vitest';
import type { SessionDeletedEvent, SessionMovedEvent } from '../domain/hook-registry.js';
import { ConversationGenerationRepository } from '../repositories/conversation-generation.repository.js';
import { ManualClock } from '../shared/clock.js';
import { ConflictError, NotFoundError, ProfileCollisionError } from '../shared/errors.js';
import {
  aChat,
  adminPrincipal,
  contextOf,
  EVERY_MESSAGE,
  endSession,
  scanForIds,
  TEST_DIALECTS,
  tokensOf,
} from '../testing/index.js';
import { useTestStore } from '../testing/suites.js';
import { routingKey } from './route.service.js';

const admin = contextOf(adminPrincipal);

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`routes, handoff and profiles on ${dialect}`, () => {
    const clock = new ManualClock(Date.UTC(2026, 9, 1));
    const t = useTestStore(dialect, { clock });
    const events: SessionDeletedEvent[] = [];
    const moves: SessionMovedEvent[] = [];
    const peer = (profile: string, chat: string) => routingKey(profile, 'telegram', 'dm', chat);
    const resolve = (profile: string, chat: string) =>
      t.store.routes.resolve(admin, { profile, source: 'telegram', chatType: 'dm', chatId: chat });
    const end = (id: string, reason: string) => endSession(t.store, id, reason);

    beforeAll(async () => {
      t.store.hooks.onSessionDeleted((event) => {
        events.push(event);
      });
      t.store.hooks.onSessionMoved((event) => {
        moves.push(event);
      });
    });

    it('an empty thread id is a value, not a missing one (it once broke the query on PostgreSQL)', async () => {
      const resolved = await t.store.routes.resolve(admin, {
        profile: 'rp-empty',
        source: 'telegram',
        chatType: '',
        chatId: '',
        threadId: '',
      });
      expect(resolved.via).toBe('none');
    });

    it('[resolve.precedence] a route to a live row wins', async () => {
      await aChat(t.store, { id: 'r-live', profile: 'rp', chatId: 'c1', lines: 1, advanceMs: 60_000 });
      await aChat(t.store, { id: 'r-newer', profile: 'rp', chatId: 'c1', lines: 1, advanceMs: 60_000 });
      await t.store.routes.set(admin, { profile: 'rp', sessionKey: peer('rp', 'c1'), sessionId: 'r-live' });
      expect(await resolve('rp', 'c1')).toEqual({ sessionId: 'r-live', via: 'route', sessionKey: peer('rp', 'c1') });
    });

    it('[lifecycle.recoverable-reasons] [resolve.precedence] an accidental (recoverable) end is resumed; an explicit close is not', async () => {
      await aChat(t.store, { id: 'r-acc', profile: 'rp', chatId: 'c2', lines: 1, advanceMs: 60_000 });
      await end('r-acc', 'agent_close');
      expect(await resolve('rp', 'c2')).toMatchObject({ sessionId: 'r-acc', via: 'recovered' });
      await aChat(t.store, { id: 'r-closed', profile: 'rp', chatId: 'c3', lines: 1, advanceMs: 60_000 });
      await end('r-closed', 'cli_close');
      expect(await resolve('rp', 'c3')).toMatchObject({ sessionId: null, via: 'none' });
    });

    it('[lifecycle.handoff-revivable] [resolve.precedence] a completed handoff is resumed even with an explicit close stamp; failed and pending ones are not', async () => {
      await aChat(t.store, { id: 'r-hand', profile: 'rp', chatId: 'c4', lines: 1, advanceMs: 60_000 });
      await t.store.handoff.request(admin, 'r-hand', 'desktop', {});
      await end('r-hand', 'cli_close');
      expect((await resolve('rp', 'c4')).sessionId).toBeNull();
      await t.store.handoff.claim(admin, 'r-hand', {});
      expect((await resolve('rp', 'c4')).sessionId).toBeNull();
      await t.store.handoff.fail(admin, 'r-hand', 'desktop went away', {});
      expect((await resolve('rp', 'c4')).sessionId).toBeNull();
      await t.store.handoff.request(admin, 'r-hand', 'desktop', {});
      await t.store.handoff.claim(admin, 'r-hand', {});
      const done = await t.store.handoff.complete(admin, 'r-hand', {});
      expect(done).toMatchObject({ handoffState: 'completed', handoffPlatform: 'desktop', handoffError: null });
      expect(await resolve('rp', 'c4')).toMatchObject({ sessionId: 'r-hand', via: 'recovered' });
    });

    it('[lifecycle.reset-reasons] [lifecycle.handoff-revivable] [resolve.precedence] a later reset on the same peer fences an older row, completed handoff or not', async () => {
      await aChat(t.store, { id: 'r-old', profile: 'rp', chatId: 'c5', lines: 1, advanceMs: 60_000 });
      await t.store.handoff.request(admin, 'r-old', 'desktop', {});
      await t.store.handoff.claim(admin, 'r-old', {});
      await t.store.handoff.complete(admin, 'r-old', {});
      await end('r-old', 'agent_close');
      await aChat(t.store, { id: 'r-reset', profile: 'rp', chatId: 'c5', lines: 1, advanceMs: 60_000 });
      clock.advance(1000);
      const { child } = await t.store.lineage.reset(
        admin,
        'r-reset',
        { reason: 'session_reset' },
        await tokensOf(t.store, 'r-reset'),
      );
      await end(child.id, 'cli_close');
      expect((await resolve('rp', 'c5')).sessionId).toBeNull();
    });

    it('[handoff.state-machine] handoff transitions are compare-and-set', async () => {
      await aChat(t.store, { id: 'h-cas', profile: 'rp', chatId: 'c6', lines: 1, advanceMs: 60_000 });
      await expect(t.store.handoff.claim(admin, 'h-cas', {})).rejects.toBeInstanceOf(ConflictError);
      await t.store.handoff.request(admin, 'h-cas', 'slack', {});
      await expect(t.store.handoff.request(admin, 'h-cas', 'slack', {})).rejects.toBeInstanceOf(ConflictError);
      const results = await Promise.allSettled([
        t.store.handoff.claim(admin, 'h-cas', {}),
        t.store.handoff.claim(admin, 'h-cas', {}),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    });

    it('[routes.same-transaction] compress, reset and delete keep routes and sessions in agreement', async () => {
      await aChat(t.store, { id: 'k1', profile: 'kp', chatId: 'k', lines: 1, advanceMs: 60_000 });
      await t.store.routes.set(admin, { profile: 'kp', sessionKey: peer('kp', 'k'), sessionId: 'k1' });
      const compressed = await t.store.lineage.compress(
        admin,
        'k1',
        { summary: 's', keepLastMessages: 0, childId: 'k2' },
        await tokensOf(t.store, 'k1'),
      );
      expect((await resolve('kp', 'k')).sessionId).toBe(compressed.child.id);
      const reset = await t.store.lineage.reset(
        admin,
        'k2',
        { reason: 'session_reset', childId: 'k3' },
        await tokensOf(t.store, 'k2'),
      );
      expect(await resolve('kp', 'k')).toMatchObject({ sessionId: reset.child.id, via: 'route' });
      expect(await t.store.routes.check(admin)).toMatchObject({ ok: true });
      const deleted = await t.store.deletion.deleteOne(
        admin,
        'k3',
        { includeCompressionChain: false, ifEmpty: false },
        await tokensOf(t.store, 'k3'),
      );
      const receipt = await t.store.receipts.get(admin, deleted.receipt!.operationId);
      expect(receipt.counts.routes).toBe(1);
      expect((await t.store.routes.list(admin, { profile: 'kp', limit: 50 })).items).toEqual([]);
      expect(await t.store.routes.check(admin)).toMatchObject({ ok: true });
    });

    it('[generations.reset-only] the conversation generation survives deletion of every session of the peer', async () => {
      const generations = new ConversationGenerationRepository();
      await aChat(t.store, { id: 'g1', profile: 'gp', chatId: 'g', lines: 1, advanceMs: 60_000 });
      await t.store.lineage.reset(admin, 'g1', { reason: 'daily', childId: 'g2' }, await tokensOf(t.store, 'g1'));
      await t.store.lineage.reset(admin, 'g2', { reason: 'daily', childId: 'g3' }, await tokensOf(t.store, 'g2'));
      expect((await t.store.sessions.get(admin, 'g3')).conversationGeneration).toBe(2);
      const all = await t.store.deletion.preview(admin, { ids: ['g1', 'g2', 'g3'], includeCompressionChain: false });
      expect(all.sessions).toHaveLength(3);
      for (const id of ['g3', 'g2', 'g1'])
        await t.store.deletion.deleteOne(
          admin,
          id,
          { includeCompressionChain: false, ifEmpty: false },
          await tokensOf(t.store, id),
        );
      expect(await generations.current(t.store.db, 'telegram', peer('gp', 'g'))).toBe(2);
      await aChat(t.store, { id: 'g4', profile: 'gp', chatId: 'g', lines: 1, advanceMs: 60_000 });
      expect((await t.store.sessions.get(admin, 'g4')).conversationGeneration).toBe(2);
      const next = await t.store.lineage.reset(
        admin,
        'g4',
        { reason: 'session_reset', childId: 'g5' },
        await tokensOf(t.store, 'g4'),
      );
      expect(next.child.conversationGeneration).toBe(3);
    });

    it('[routes.key-prefix-exact] [profiles.rename] rename rewrites exact prefixes only (a_b vs axb), follows tokens, users, generations and origins', async () => {
      await aChat(t.store, {
        id: 'ab1',
        profile: 'a_b',
        chatId: 'x',
        lines: 1,
        advanceMs: 60_000,
        origin: { profile: 'a_b', platform: 'telegram' },
      });
      await aChat(t.store, {
        id: 'axb1',
        profile: 'axb',
        chatId: 'x',
        lines: 1,
        advanceMs: 60_000,
        origin: { profile: 'axb' },
      });
      await t.store.routes.set(admin, {
        profile: 'a_b',
        sessionKey: peer('a_b', 'x'),
        sessionId: 'ab1',
        origin: { profile: 'a_b' },
      });
      await t.store.routes.set(admin, { profile: 'axb', sessionKey: peer('axb', 'x'), sessionId: 'axb1' });
      await t.store.lineage.reset(admin, 'ab1', { reason: 'idle', childId: 'ab2' }, await tokensOf(t.store, 'ab1'));
      const token = await t.store.auth.createToken(admin, {
        name: 'ab-member',
        role: 'member',
        profiles: ['a_b', 'axb'],
      });
      await t.store.retention.put(admin, 'a_b', 10);
      const result = await t.store.profileAdmin.rename(admin, 'a_b', 'renamed');
      expect(result.counts).toMatchObject({
        sessions: 2,
        routes: 1,
        sessionKeys: 2,
        origins: 2,
        conversationGenerations: 1,
        retentionPolicies: 1,
        tokens: 1,
      });
      const moved = await t.store.sessions.get(admin, 'ab2');
      expect(moved).toMatchObject({
        profile: 'renamed',
        sessionKey: peer('renamed', 'x'),
        origin: { profile: 'renamed', platform: 'telegram' },
      });
      expect(await t.store.sessions.get(admin, 'axb1')).toMatchObject({ profile: 'axb', sessionKey: peer('axb', 'x') });
      const routes = await t.store.routes.list(admin, { limit: 200 });
      expect(
        routes.items.filter((route) => route.profile === 'renamed').map((route) => [route.sessionKey, route.sessionId]),
      ).toEqual([[peer('renamed', 'x'), 'ab2']]);
      expect(routes.items.find((route) => route.profile === 'axb')?.sessionKey).toBe(peer('axb', 'x'));
      expect((await t.store.auth.authenticateToken(token.token)).profiles).toEqual(['renamed', 'axb']);
      expect(await resolve('renamed', 'x')).toMatchObject({ sessionId: 'ab2', via: 'route' });
      const generations = new ConversationGenerationRepository();
      expect(await generations.current(t.store.db, 'telegram', peer('renamed', 'x'))).toBe(1);
      expect((await t.store.retention.list(admin)).find((policy) => policy.profile === 'renamed')?.retentionDays).toBe(
        10,
      );
      expect((await t.store.profiles.list(admin)).map((profile) => profile.name)).not.toContain('a_b');
    });

    it('[profiles.rename] a colliding rename changes nothing', async () => {
      await aChat(t.store, { id: 'col1', profile: 'colp', chatId: 'y', lines: 1, advanceMs: 60_000 });
      await t.store.routes.set(admin, { profile: 'colp', sessionKey: peer('colp', 'y'), sessionId: 'col1' });
      await t.store.routes.set(admin, { profile: 'colp', sessionKey: peer('target', 'y'), sessionId: 'col1' });
      await expect(t.store.profileAdmin.rename(admin, 'colp', 'target')).rejects.toBeInstanceOf(ProfileCollisionError);
      await expect(t.store.profileAdmin.rename(admin, 'colp', 'axb')).rejects.toBeInstanceOf(ProfileCollisionError);
      expect((await t.store.sessions.get(admin, 'col1')).profile).toBe('colp');
      expect((await t.store.routes.list(admin, { profile: 'colp', limit: 10 })).items).toHaveLength(2);
      await expect(t.store.profileAdmin.rename(admin, 'nope', 'other')).rejects.toBeInstanceOf(NotFoundError);
    });

    it('[deletion.paths] [profiles.delete] profile delete purges identity, keeps sessions unless asked, and deletes them with a profile_delete receipt', async () => {
      await aChat(t.store, { id: 'pd1', profile: 'pd', chatId: 'z', lines: 1, advanceMs: 60_000 });
      await aChat(t.store, {
        id: 'pd-helper',
        profile: 'pd',
        chatId: 'z2',
        lines: 1,
        advanceMs: 60_000,
        parentSessionId: 'pd1',
        lineageKind: 'delegate',
      });
      await t.store.routes.set(admin, { profile: 'pd', sessionKey: peer('pd', 'z'), sessionId: 'pd1' });
      const user = await t.store.auth.createUser(admin, {
        username: 'pd-user',
        password: 'long enough pw',
        role: 'member',
        profiles: ['pd'],
      });
      const keep = await t.store.profileAdmin.delete(admin, 'pd', { deleteSessions: false, dryRun: false });
      expect(keep).toMatchObject({
        profileRemoved: false,
        counts: { routes: 1, users: 1, sessions: 0 },
        receipt: null,
      });
      expect((await t.store.sessions.get(admin, 'pd1')).profile).toBe('pd');
      expect((await t.store.auth.listUsers(admin)).find((u) => u.id === user.id)?.profiles).toEqual([]);

      events.length = 0;
      const dry = await t.store.profileAdmin.delete(admin, 'pd', { deleteSessions: true, dryRun: true });
      expect(dry.counts).toMatchObject({ sessions: 2, messages: 2 });
      const gone = await t.store.profileAdmin.delete(admin, 'pd', { deleteSessions: true, dryRun: false });
      expect(gone).toMatchObject({ profileRemoved: true, counts: { sessions: 2, messages: 2 } });
      const receipt = await t.store.receipts.get(admin, gone.receipt!.operationId);
      expect(receipt).toMatchObject({
        origin: 'profile_delete',
        reason: 'profile_delete',
        intent: 'maintenance',
        profile: 'pd',
      });
      await t.store.hooks.idle();
      expect(events.map((event) => [event.reason, event.origin])).toEqual([['profile_delete', 'profile_delete']]);
      expect(await scanForIds(t.store, ['pd1', 'pd-helper'])).toEqual([]);
      expect((await t.store.profiles.list(admin)).map((profile) => profile.name)).not.toContain('pd');
    });

    it('[deletion.paths] [observers.move-is-departure] profile repair moves a session and its chain, with a profile_repair receipt in the old profile', async () => {
      await aChat(t.store, {
        id: 'mv1',
        profile: 'from',
        chatId: 'm',
        lines: 1,
        advanceMs: 60_000,
        title: 'Shared title',
      });
      await aChat(t.store, {
        id: 'mv-there',
        profile: 'to',
        chatId: 'm',
        lines: 1,
        advanceMs: 60_000,
        title: 'Shared title',
      });
      await t.store.routes.set(admin, { profile: 'from', sessionKey: peer('from', 'm'), sessionId: 'mv1' });
      await t.store.lineage.compress(
        admin,
        'mv1',
        { summary: 's', keepLastMessages: 0, childId: 'mv2' },
        await tokensOf(t.store, 'mv1'),
      );
      events.length = 0;
      const result = await t.store.profileAdmin.move(admin, 'mv1', 'to');
      expect(result.movedIds.sort()).toEqual(['mv1', 'mv2']);
      const receipt = await t.store.receipts.get(admin, result.receipt!.operationId);
      expect(receipt).toMatchObject({
        origin: 'profile_repair',
        reason: 'profile_repair',
        profile: 'from',
        counts: { sessions: 2, routes: 1 },
      });
      const moved = await t.store.sessions.get(admin, 'mv2');
      expect(moved).toMatchObject({
        profile: 'to',
        sessionKey: peer('to', 'm'),
        title: 'Shared title (2)',
        parentSessionId: 'mv1',
      });
      expect((await t.store.messages.list(admin, 'mv2', { limit: 10, ...EVERY_MESSAGE })).items).toHaveLength(1);
      await t.store.hooks.idle();
      // Deletion observers hear the sessions leave `from` (and where they went); move observers hear the live ids.
      expect(events).toEqual([
        expect.objectContaining({
          reason: 'profile_repair',
          profile: 'from',
          toProfile: 'to',
          deletedIds: expect.arrayContaining(['mv1', 'mv2']),
        }),
      ]);
      expect(moves).toEqual([
        expect.objectContaining({
          reason: 'profile_repair',
          origin: 'profile_repair',
          fromProfile: 'from',
          toProfile: 'to',
          sessionId: 'mv1',
          movedIds: expect.arrayContaining(['mv1', 'mv2']),
        }),
      ]);
      expect(await t.store.routes.check(admin)).toMatchObject({ ok: true });
    });
  });
}
