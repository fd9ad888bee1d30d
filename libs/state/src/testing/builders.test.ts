import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.js';
import {
  aBranch,
  aChat,
  aCompressionChain,
  aContinuation,
  adminPrincipal,
  aProfile,
  aSession,
  contextOf,
  conversation,
  openTestStore,
  someMessages,
  TEST_DIALECTS,
  type TestStore,
  tokensOf,
} from './index.js';

const admin = contextOf(adminPrincipal);

/** The builders write what they say, through the store's own services, on both dialects. */
for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`test builders on ${dialect}`, () => {
    const clock = new ManualClock(Date.UTC(2026, 6, 1));
    let t: TestStore;
    beforeAll(async () => {
      t = await openTestStore(dialect, { clock });
    });
    afterAll(async () => t?.close());

    it('aSession fills profile and source, and gives a transcript of `lines` messages', async () => {
      const before = clock.now();
      const session = await aSession(t.store, { id: 'b-one', lines: 3, advanceMs: 5_000 });
      expect(clock.now()).toBe(before + 5_000);
      expect(session).toMatchObject({ id: 'b-one', profile: 'p', createdSource: 'cli', messageCount: 3 });
      const page = await t.store.messages.list(admin, 'b-one', {
        limit: 10,
        includeCompacted: true,
        includeHidden: false,
        includeInactive: false,
        order: 'oldest',
      });
      expect(page.items.map(({ role, content }) => ({ role, content }))).toEqual(
        conversation(3, 'b-one').map(({ role, content }) => ({ role, content })),
      );
    });

    it('aChat routes the session by the key a gateway derives', async () => {
      const chat = await aChat(t.store, { id: 'b-chat', profile: 'bp', chatId: 'c9' });
      expect(chat).toMatchObject({
        sessionKey: 'agent:bp:telegram:dm:c9',
        chatId: 'c9',
        chatType: 'dm',
        createdSource: 'telegram',
      });
    });

    it('someMessages appends n messages in one call; tokensOf reads the current preconditions', async () => {
      await aSession(t.store, { id: 'b-append' });
      const appended = await someMessages(t.store, 'b-append', 4);
      expect(appended.ids).toHaveLength(4);
      expect(appended.created).toBe(4);
      const session = await t.store.sessions.get(admin, 'b-append');
      expect(session.messageCount).toBe(4);
      expect(await tokensOf(t.store, 'b-append')).toEqual({
        ifMatch: session.revision,
        expectedGeneration: session.generation,
      });
    });

    it('aCompressionChain compresses a root length - 1 times; aContinuation and aBranch add children', async () => {
      const ids = await aCompressionChain(t.store, { id: 'b-root', length: 3, advanceMs: 1_000 });
      expect(ids).toEqual(['b-root', 'b-root-c1', 'b-root-c2']);
      const lineage = await t.store.lineage.lineageOf(admin, 'b-root');
      expect(lineage.chain).toEqual(ids);
      const continuation = await aContinuation(t.store, 'b-one', { id: 'b-one-next' });
      expect(continuation).toMatchObject({ parentSessionId: 'b-one', lineageKind: 'compression', profile: 'p' });
      const branch = await aBranch(t.store, 'b-root-c2', { childId: 'b-branch' });
      expect(branch.child).toMatchObject({ id: 'b-branch', parentSessionId: 'b-root-c2', lineageKind: 'branch' });
    });

    it('aProfile registers a profile with its sessions', async () => {
      const profile = await aProfile(t.store, 'b-prof', { sessions: 2 });
      expect(profile).toMatchObject({ name: 'b-prof', sessionCount: 2 });
      expect((await t.store.sessions.get(admin, 'b-prof-1')).profile).toBe('b-prof');
    });
  });
}
