import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionReopenedEvent } from '../domain/hook-registry.js';
import { ManualClock } from '../shared/clock.js';
import {
  adminPrincipal,
  contextOf,
  HermesFixture,
  openTestStore,
  TEST_DIALECTS,
  type TestStore,
} from '../testing/index.js';
import type { JobContext } from './job.service.js';
import { routingKey } from './route.service.js';

/**
 * The data-loss sequences of docs/domain.md §4.3, §5.1.5 and §10.3: a revived chat that stayed
 * ended and was pruned while people talked in it, retention that deleted conversations still in
 * use, and imported open chats ended by the first liveness sweep.
 */
const admin = contextOf(adminPrincipal);
const SECOND = 1000;
const DAY = 86_400 * SECOND;

const passContext = (): JobContext => ({
  interval: { start: 0, end: 0 },
  holder: 'test',
  attempt: 1,
  signal: new AbortController().signal,
  checkpoint: async () => undefined,
});

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`nothing live is ever lost on ${dialect}`, () => {
    let t: TestStore;
    let onThread: TestStore;
    const clock = new ManualClock(Date.UTC(2026, 10, 1));
    const reopened: SessionReopenedEvent[] = [];
    const peer = (profile: string, chat: string) => routingKey(profile, 'telegram', 'dm', chat);
    const chat = (store: TestStore, profile: string, id: string, chatId: string) =>
      store.store.sessions.create(admin, {
        id,
        profile,
        source: 'telegram',
        sessionKey: peer(profile, chatId),
        chatType: 'dm',
        chatId,
        messages: [{ role: 'user', content: `hello from ${id}` }],
      });
    const end = async (store: TestStore, id: string, reason: string) =>
      store.store.sessions.end(
        admin,
        id,
        { reason: reason as never },
        { ifMatch: (await store.store.sessions.get(admin, id)).revision },
      );
    const retentionPass = async (profile: string, retentionDays: number) => {
      await t.store.retention.put(admin, profile, retentionDays);
      return t.store.retention.runPass(passContext());
    };
    const exists = async (id: string) =>
      (await t.store.sessions.list(admin, { status: 'all', archived: 'include', limit: 200 })).items.some(
        (item) => item.id === id,
      );

    beforeAll(async () => {
      t = await openTestStore(dialect, {
        clock,
        runtime: { gatewayTimeoutMs: 30 * SECOND, orphanIdleMs: DAY, handoffTimeoutMs: 60 * SECOND },
      });
      t.store.hooks.onSessionReopened((event) => {
        reopened.push(event);
      });
      // The same rules on the append writer's thread (SQLite files: the API's default path).
      onThread = dialect === 'sqlite' ? await openTestStore(dialect, { clock, appendWriter: 'always' }) : t;
    });
    afterAll(async () => {
      if (onThread !== t) await onThread?.close();
      await t?.close();
    });

    it('[resolve.revive-reopens] resolve recovered → append without a turn → retention 0 and 1 keeps the conversation', async () => {
      await chat(t, 'keep', 'revived', 'c1');
      await end(t, 'revived', 'agent_close');
      const ended = await t.store.sessions.get(admin, 'revived');
      clock.advance(3 * DAY);

      const resolved = await t.store.routes.resolve(admin, {
        profile: 'keep',
        source: 'telegram',
        chatType: 'dm',
        chatId: 'c1',
        transportProfile: 'bot-a',
      });
      expect(resolved).toMatchObject({ sessionId: 'revived', via: 'recovered' });
      const revived = await t.store.sessions.get(admin, 'revived');
      // Open again, in the same transaction as the decision: one revision for the stamp and the revival.
      expect(revived).toMatchObject({ endedAt: null, endReason: null, transportProfile: 'bot-a' });
      expect(revived.revision).toBe(ended.revision + 1);
      await t.store.hooks.idle();
      expect(reopened).toContainEqual({
        sessionId: 'revived',
        profile: 'keep',
        clearedEndReason: 'agent_close',
        via: 'resolve',
        revision: revived.revision,
      });
      // Two consecutive resolves answer the same, and the second writes nothing.
      expect(
        await t.store.routes.resolve(admin, { profile: 'keep', source: 'telegram', chatType: 'dm', chatId: 'c1' }),
      ).toEqual(resolved);
      expect((await t.store.sessions.get(admin, 'revived')).revision).toBe(revived.revision);

      // The gateway appends without beginning a turn.
      await t.store.messages.append(admin, 'revived', { messages: [{ role: 'user', content: 'still here' }] });
      const open = await t.store.sessions.list(admin, { status: 'open', profile: 'keep', limit: 50 });
      expect(open.items.map((item) => item.id)).toContain('revived');

      for (const days of [0, 1]) {
        const pass = await retentionPass('keep', days);
        expect(pass.deleted).toBe(0);
        expect(await exists('revived')).toBe(true);
      }
    });

    it('[append.revives-recoverable] an append to an accidentally ended session reopens it (event loop and writer thread)', async () => {
      for (const store of new Set([t, onThread])) {
        const id = store === t ? 'appended' : 'appended-thread';
        await chat(store, 'keep', id, `c-${id}`);
        await end(store, id, 'ws_orphan_reap');
        const before = await store.store.sessions.get(admin, id);
        const answer = await store.store.messages.append(admin, id, {
          messages: [{ role: 'assistant', content: 'back again' }],
        });
        expect(answer.reopened).toEqual({ endReason: 'ws_orphan_reap' });
        // One change, one revision: the append and its revival together.
        expect(answer.revision).toBe(before.revision + 1);
        const after = await store.store.sessions.get(admin, id);
        expect(after).toMatchObject({ endedAt: null, endReason: null, revision: answer.revision });
      }
      await t.store.hooks.idle();
      expect(reopened).toContainEqual(expect.objectContaining({ sessionId: 'appended', via: 'append' }));
      if (onThread !== t) {
        // The thread's revival reaches the observers of the event loop that owns the store.
        const heard: SessionReopenedEvent[] = [];
        onThread.store.hooks.onSessionReopened((event) => {
          heard.push(event);
        });
        await chat(onThread, 'keep', 'appended-thread-2', 'c-thread-2');
        await end(onThread, 'appended-thread-2', 'agent_close');
        await onThread.store.messages.append(admin, 'appended-thread-2', {
          messages: [{ role: 'user', content: 'x' }],
        });
        await onThread.store.hooks.idle();
        await expect.poll(() => heard.map((event) => event.sessionId)).toContain('appended-thread-2');
      }
    });

    it('[append.revives-recoverable] deliberate ends stay ended: an append to a closed session does not reopen it', async () => {
      await chat(t, 'keep', 'closed', 'c-closed');
      await end(t, 'closed', 'cli_close');
      const answer = await t.store.messages.append(admin, 'closed', { messages: [{ role: 'user', content: 'late' }] });
      expect(answer.reopened).toBeUndefined();
      expect(await t.store.sessions.get(admin, 'closed')).toMatchObject({ endReason: 'cli_close' });
    });

    it('[lifecycle.revived-means-open] [lifecycle.automatic-reasons] a turn and an explicit reopen announce the revival too; compression does not', async () => {
      await chat(t, 'keep', 'by-turn', 'c-turn');
      await end(t, 'by-turn', 'superseded_by_resume');
      const turn = await t.store.turns.begin(admin, 'by-turn', { holder: 'worker', ttlSeconds: 60 });
      await t.store.turns.complete(admin, 'by-turn', turn.turnId);
      await chat(t, 'keep', 'by-reopen', 'c-reopen');
      await end(t, 'by-reopen', 'tui_close');
      const closed = await t.store.sessions.get(admin, 'by-reopen');
      await t.store.sessions.reopen(admin, 'by-reopen', { transportProfile: 'telegram' }, { ifMatch: closed.revision });
      await chat(t, 'keep', 'by-compress', 'c-compress');
      await end(t, 'by-compress', 'idle_timeout');
      const parent = await t.store.sessions.get(admin, 'by-compress');
      await t.store.lineage.compress(
        admin,
        'by-compress',
        { summary: 'so far', keepLastMessages: 0 },
        { ifMatch: parent.revision, expectedGeneration: parent.generation },
      );
      await t.store.hooks.idle();
      const heard = reopened.filter((event) => event.sessionId.startsWith('by-'));
      expect(heard.map(({ sessionId, via, clearedEndReason }) => ({ sessionId, via, clearedEndReason }))).toEqual([
        { sessionId: 'by-turn', via: 'turn', clearedEndReason: 'superseded_by_resume' },
        { sessionId: 'by-reopen', via: 'reopen', clearedEndReason: 'tui_close' },
      ]);
    });

    it('[resolve.stamps-caller] a resolve through the route re-stamps the transport profile the caller names', async () => {
      await chat(t, 'keep', 'routed-stamp', 'c-stamp');
      await t.store.routes.set(admin, {
        profile: 'keep',
        sessionKey: peer('keep', 'c-stamp'),
        sessionId: 'routed-stamp',
      });
      const before = await t.store.sessions.get(admin, 'routed-stamp');
      const ask = { profile: 'keep', source: 'telegram', chatType: 'dm', chatId: 'c-stamp', transportProfile: 'bot-b' };
      expect(await t.store.routes.resolve(admin, ask)).toMatchObject({ sessionId: 'routed-stamp', via: 'route' });
      const after = await t.store.sessions.get(admin, 'routed-stamp');
      expect(after).toMatchObject({ transportProfile: 'bot-b', revision: before.revision + 1 });
      // Naming the same one again writes nothing.
      await t.store.routes.resolve(admin, ask);
      expect((await t.store.sessions.get(admin, 'routed-stamp')).revision).toBe(after.revision);
    });

    it('[retention.spares-living] retention never deletes a session with recent activity, a live lease, a fresh route or owed deliveries', async () => {
      // Four sessions ended two days ago, each alive in one way; and one control that is not.
      for (const id of ['active', 'leased', 'routed', 'owed', 'control']) await chat(t, 'alive', id, `c-${id}`);
      const turn = await t.store.turns.begin(admin, 'leased', { holder: 'worker', ttlSeconds: 7 * 86_400 });
      for (const id of ['active', 'routed', 'owed', 'control']) await end(t, id, 'cli_close');
      await t.store.sessions.end(
        admin,
        'leased',
        { reason: 'cli_close' },
        { ifMatch: (await t.store.sessions.get(admin, 'leased')).revision, turnId: turn.turnId },
      );
      await t.store.deliveries.create(admin, {
        id: 'owed-1',
        sessionId: 'owed',
        payload: { text: 'reply' },
        maxAttempts: 3,
      });
      clock.advance(2 * DAY);
      // Activity after the end: a late message to the closed chat (no revival: a deliberate end).
      await t.store.messages.append(admin, 'active', { messages: [{ role: 'user', content: 'are you there?' }] });
      await t.store.routes.set(admin, { profile: 'alive', sessionKey: peer('alive', 'c-routed'), sessionId: 'routed' });
      clock.advance(SECOND);

      const dryRun = await t.store.deletion.retentionPrune(admin, { olderThanDays: 1, profile: 'alive', dryRun: true });
      expect(dryRun.candidates).toEqual(['control']);
      await retentionPass('alive', 1);
      for (const id of ['active', 'leased', 'routed', 'owed']) expect(await exists(id)).toBe(true);
      expect(await exists('control')).toBe(false);
    });

    it('[sweep.imported-unclaimed-kept] the sweep leaves imported open chats as Hermes left them until a gateway claims them', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'statehouse-imported-open-'));
      try {
        const path = join(dir, 'state.db');
        const fixture = new HermesFixture(path, 30);
        const startedAt = (clock.now() - 10 * DAY) / 1000;
        for (const id of ['imp-a', 'imp-b', 'imp-c']) {
          fixture.session({
            id,
            source: 'telegram',
            started_at: startedAt,
            last_activity_at: startedAt + 60,
            profile_name: 'imported',
            session_key: peer('imported', id),
            chat_id: id,
            chat_type: 'dm',
          });
          fixture.message(id, { role: 'user', content: `from hermes ${id}`, timestamp: startedAt + 60 });
        }
        fixture.close();
        await t.store.imports.runHermes(admin, { path, profile: 'imported', onConflict: 'skip', dryRun: false });
        const imported = await t.store.sessions.get(admin, 'imp-a');
        expect(imported).toMatchObject({
          endedAt: null,
          awaitingClaim: true,
          importedAt: new Date(clock.now()).toISOString(),
        });

        clock.advance(2 * DAY);
        const sweep = await t.store.gateways.sweep('test');
        expect(sweep.reapedIds.filter((id) => id.startsWith('imp-'))).toEqual([]);
        for (const id of ['imp-a', 'imp-b', 'imp-c']) {
          expect(await t.store.sessions.get(admin, id)).toMatchObject({ endedAt: null, awaitingClaim: true });
        }

        // A writer here claims two of them: a turn, an append. From then on the usual rules apply.
        const turn = await t.store.turns.begin(admin, 'imp-a', { holder: 'gw', ttlSeconds: 60 });
        await t.store.turns.complete(admin, 'imp-a', turn.turnId);
        await t.store.messages.append(admin, 'imp-b', { messages: [{ role: 'user', content: 'hello from here' }] });
        for (const id of ['imp-a', 'imp-b']) expect((await t.store.sessions.get(admin, id)).awaitingClaim).toBe(false);
        clock.advance(2 * DAY);
        const later = await t.store.gateways.sweep('test');
        expect(later.reapedIds.filter((id) => id.startsWith('imp-')).sort()).toEqual(['imp-a', 'imp-b']);
        expect(await t.store.sessions.get(admin, 'imp-c')).toMatchObject({ endedAt: null, awaitingClaim: true });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
