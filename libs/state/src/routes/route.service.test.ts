import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConversationGenerationRepository } from '../generations/conversation-generation.repository.js';
import type { SessionDeletedEvent, SessionMovedEvent } from '../hooks/hook-registry.js';
import { ManualClock } from '../shared/clock.js';
import { ConflictError, NotFoundError, ProfileCollisionError } from '../shared/errors.js';
import {
  adminPrincipal,
  contextOf,
  openTestStore,
  scanForIds,
  TEST_DIALECTS,
  type TestStore,
} from '../testing/index.js';
import { routingKey } from './route.service.js';

const admin = contextOf(adminPrincipal);

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`routes, handoff and profiles on ${dialect}`, () => {
    let t: TestStore;
    const clock = new ManualClock(Date.UTC(2026, 9, 1));
    const events: SessionDeletedEvent[] = [];
    const moves: SessionMovedEvent[] = [];
    const tokens = async (id: string) => {
      const s = await t.store.sessions.get(admin, id);
      return { ifMatch: s.revision, expectedGeneration: s.generation };
    };
    const peer = (profile: string, chat: string) => routingKey(profile, 'telegram', 'dm', chat);
    const session = async (id: string, profile: string, chat: string, extra: Record<string, unknown> = {}) => {
      clock.advance(60_000);
      return t.store.sessions.create(admin, {
        id,
        profile,
        source: 'telegram',
        sessionKey: peer(profile, chat),
        chatType: 'dm',
        chatId: chat,
        messages: [{ role: 'user', content: `hello ${id}` }],
        ...extra,
      });
    };
    const resolve = (profile: string, chat: string) =>
      t.store.routes.resolve(admin, { profile, source: 'telegram', chatType: 'dm', chatId: chat });
    const end = async (id: string, reason: string) =>
      t.store.sessions.end(
        admin,
        id,
        { reason: reason as never },
        { ifMatch: (await t.store.sessions.get(admin, id)).revision },
      );

    beforeAll(async () => {
      t = await openTestStore(dialect, { clock });
      t.store.hooks.onSessionDeleted((event) => {
        events.push(event);
      });
      t.store.hooks.onSessionMoved((event) => {
        moves.push(event);
      });
    });
    afterAll(async () => t?.close());

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

    it('a route to a live row wins', async () => {
      await session('r-live', 'rp', 'c1');
      await session('r-newer', 'rp', 'c1');
      await t.store.routes.set(admin, { profile: 'rp', sessionKey: peer('rp', 'c1'), sessionId: 'r-live' });
      expect(await resolve('rp', 'c1')).toEqual({ sessionId: 'r-live', via: 'route', sessionKey: peer('rp', 'c1') });
    });

    it('an accidental (recoverable) end is resumed; an explicit close is not', async () => {
      await session('r-acc', 'rp', 'c2');
      await end('r-acc', 'agent_close');
      expect(await resolve('rp', 'c2')).toMatchObject({ sessionId: 'r-acc', via: 'recovered' });
      await session('r-closed', 'rp', 'c3');
      await end('r-closed', 'cli_close');
      expect(await resolve('rp', 'c3')).toMatchObject({ sessionId: null, via: 'none' });
    });

    it('a completed handoff is resumed even with an explicit close stamp; failed and pending ones are not', async () => {
      await session('r-hand', 'rp', 'c4');
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

    it('a later reset on the same peer fences an older row, completed handoff or not', async () => {
      await session('r-old', 'rp', 'c5');
      await t.store.handoff.request(admin, 'r-old', 'desktop', {});
      await t.store.handoff.claim(admin, 'r-old', {});
      await t.store.handoff.complete(admin, 'r-old', {});
      await end('r-old', 'agent_close');
      await session('r-reset', 'rp', 'c5');
      clock.advance(1000);
      const { child } = await t.store.lineage.reset(
        admin,
        'r-reset',
        { reason: 'session_reset' },
        await tokens('r-reset'),
      );
      await end(child.id, 'cli_close');
      expect((await resolve('rp', 'c5')).sessionId).toBeNull();
    });

    it('handoff transitions are compare-and-set', async () => {
      await session('h-cas', 'rp', 'c6');
      await expect(t.store.handoff.claim(admin, 'h-cas', {})).rejects.toBeInstanceOf(ConflictError);
      await t.store.handoff.request(admin, 'h-cas', 'slack', {});
      await expect(t.store.handoff.request(admin, 'h-cas', 'slack', {})).rejects.toBeInstanceOf(ConflictError);
      const results = await Promise.allSettled([
        t.store.handoff.claim(admin, 'h-cas', {}),
        t.store.handoff.claim(admin, 'h-cas', {}),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    });

    it('compress, reset and delete keep routes and sessions in agreement', async () => {
      await session('k1', 'kp', 'k');
      await t.store.routes.set(admin, { profile: 'kp', sessionKey: peer('kp', 'k'), sessionId: 'k1' });
      const compressed = await t.store.lineage.compress(
        admin,
        'k1',
        { summary: 's', keepLastMessages: 0, childId: 'k2' },
        await tokens('k1'),
      );
      expect((await resolve('kp', 'k')).sessionId).toBe(compressed.child.id);
      const reset = await t.store.lineage.reset(
        admin,
        'k2',
        { reason: 'session_reset', childId: 'k3' },
        await tokens('k2'),
      );
      expect(await resolve('kp', 'k')).toMatchObject({ sessionId: reset.child.id, via: 'route' });
      expect(await t.store.routes.check(admin)).toMatchObject({ ok: true });
      const deleted = await t.store.deletion.deleteOne(
        admin,
        'k3',
        { includeCompressionChain: false, ifEmpty: false },
        await tokens('k3'),
      );
      const receipt = await t.store.receipts.get(admin, deleted.receipt!.operationId);
      expect(receipt.counts.routes).toBe(1);
      expect((await t.store.routes.list(admin, { profile: 'kp', limit: 50 })).items).toEqual([]);
      expect(await t.store.routes.check(admin)).toMatchObject({ ok: true });
    });

    it('the conversation generation survives deletion of every session of the peer', async () => {
      const generations = new ConversationGenerationRepository();
      await session('g1', 'gp', 'g');
      await t.store.lineage.reset(admin, 'g1', { reason: 'daily', childId: 'g2' }, await tokens('g1'));
      await t.store.lineage.reset(admin, 'g2', { reason: 'daily', childId: 'g3' }, await tokens('g2'));
      expect((await t.store.sessions.get(admin, 'g3')).conversationGeneration).toBe(2);
      const all = await t.store.deletion.preview(admin, { ids: ['g1', 'g2', 'g3'], includeCompressionChain: false });
      expect(all.sessions).toHaveLength(3);
      for (const id of ['g3', 'g2', 'g1'])
        await t.store.deletion.deleteOne(
          admin,
          id,
          { includeCompressionChain: false, ifEmpty: false },
          await tokens(id),
        );
      expect(await generations.current(t.store.db, 'telegram', peer('gp', 'g'))).toBe(2);
      await session('g4', 'gp', 'g');
      expect((await t.store.sessions.get(admin, 'g4')).conversationGeneration).toBe(2);
      const next = await t.store.lineage.reset(
        admin,
        'g4',
        { reason: 'session_reset', childId: 'g5' },
        await tokens('g4'),
      );
      expect(next.child.conversationGeneration).toBe(3);
    });

    it('rename rewrites exact prefixes only (a_b vs axb), follows tokens, users, generations and origins', async () => {
      await session('ab1', 'a_b', 'x', { origin: { profile: 'a_b', platform: 'telegram' } });
      await session('axb1', 'axb', 'x', { origin: { profile: 'axb' } });
      await t.store.routes.set(admin, {
        profile: 'a_b',
        sessionKey: peer('a_b', 'x'),
        sessionId: 'ab1',
        origin: { profile: 'a_b' },
      });
      await t.store.routes.set(admin, { profile: 'axb', sessionKey: peer('axb', 'x'), sessionId: 'axb1' });
      await t.store.lineage.reset(admin, 'ab1', { reason: 'idle', childId: 'ab2' }, await tokens('ab1'));
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

    it('a colliding rename changes nothing', async () => {
      await session('col1', 'colp', 'y');
      await t.store.routes.set(admin, { profile: 'colp', sessionKey: peer('colp', 'y'), sessionId: 'col1' });
      await t.store.routes.set(admin, { profile: 'colp', sessionKey: peer('target', 'y'), sessionId: 'col1' });
      await expect(t.store.profileAdmin.rename(admin, 'colp', 'target')).rejects.toBeInstanceOf(ProfileCollisionError);
      await expect(t.store.profileAdmin.rename(admin, 'colp', 'axb')).rejects.toBeInstanceOf(ProfileCollisionError);
      expect((await t.store.sessions.get(admin, 'col1')).profile).toBe('colp');
      expect((await t.store.routes.list(admin, { profile: 'colp', limit: 10 })).items).toHaveLength(2);
      await expect(t.store.profileAdmin.rename(admin, 'nope', 'other')).rejects.toBeInstanceOf(NotFoundError);
    });

    it('profile delete purges identity, keeps sessions unless asked, and deletes them with a profile_delete receipt', async () => {
      await session('pd1', 'pd', 'z');
      await session('pd-helper', 'pd', 'z2', { parentSessionId: 'pd1', lineageKind: 'delegate' });
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

    it('profile repair moves a session and its chain, with a profile_repair receipt in the old profile', async () => {
      await session('mv1', 'from', 'm', { title: 'Shared title' });
      await session('mv-there', 'to', 'm', { title: 'Shared title' });
      await t.store.routes.set(admin, { profile: 'from', sessionKey: peer('from', 'm'), sessionId: 'mv1' });
      await t.store.lineage.compress(
        admin,
        'mv1',
        { summary: 's', keepLastMessages: 0, childId: 'mv2' },
        await tokens('mv1'),
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
      expect(
        (
          await t.store.messages.list(admin, 'mv2', {
            limit: 10,
            includeCompacted: true,
            includeHidden: true,
            includeInactive: true,
            order: 'oldest',
          })
        ).items,
      ).toHaveLength(1);
      await t.store.hooks.idle();
      // A move is not a deletion: deletion observers hear nothing, move observers hear the live ids.
      expect(events).toEqual([]);
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
