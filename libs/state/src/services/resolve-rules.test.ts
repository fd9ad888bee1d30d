import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.js';
import { SessionBusyError } from '../shared/errors.js';
import { adminPrincipal, contextOf, endSession, TEST_DIALECTS, tokensOf } from '../testing/index.js';
import { useTestStore } from '../testing/suites.js';
import { routingKey } from './route.service.js';

const admin = contextOf(adminPrincipal);

/** Resolving a chat (docs/domain.md §6.3), rule by rule, on both dialects. */
for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`resolve rules on ${dialect}`, () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 5));
    const t = useTestStore(dialect, { clock });

    const peer = (chat: string) => routingKey('rr', 'telegram', 'dm', chat);
    const chat = (id: string, chatId: string, extra: Record<string, unknown> = {}) => {
      clock.advance(60_000);
      return t.store.sessions.create(admin, {
        id,
        profile: 'rr',
        source: 'telegram',
        sessionKey: peer(chatId),
        chatType: 'dm',
        chatId,
        messages: [{ role: 'user', content: `hello from ${id}` }],
        ...extra,
      });
    };
    const end = (id: string, reason: string) => endSession(t.store, id, reason);
    const resolve = (chatId: string, extra: Record<string, unknown> = {}) =>
      t.store.routes.resolve(admin, { profile: 'rr', source: 'telegram', chatType: 'dm', chatId, ...extra });

    beforeAll(async () => {
      await t.store.gateways.heartbeat(admin, 'gw-1', {
        profile: 'rr',
        host: 'h',
        pid: 1,
        startedAt: new Date(clock.now()).toISOString(),
      });
    });

    it('[resolve.compressed-tip] the accidentally ended tip of a compressed chain is recovered — not the root, not a new session', async () => {
      await chat('tip-root', 'tip');
      await t.store.routes.set(admin, { profile: 'rr', sessionKey: peer('tip'), sessionId: 'tip-root' });
      clock.advance(1000);
      await t.store.lineage.compress(
        admin,
        'tip-root',
        { summary: 's1', keepLastMessages: 1, childId: 'tip-mid' },
        await tokensOf(t.store, 'tip-root'),
      );
      clock.advance(1000);
      await t.store.lineage.compress(
        admin,
        'tip-mid',
        { summary: 's2', keepLastMessages: 1, childId: 'tip-end' },
        await tokensOf(t.store, 'tip-mid'),
      );
      clock.advance(1000);
      await end('tip-end', 'ws_orphan_reap');
      // Even when an earlier segment shows later activity (a late write, an import), it ended by
      // compression: the conversation lives on in the tip.
      await t.store.db
        .updateTable('sessions')
        .set({ last_activity_at: clock.now() + 60_000 })
        .where('id', 'in', ['tip-root', 'tip-mid'])
        .execute();
      // The route follows the chain to its tip; the tip is ended, so recovery decides.
      expect(await resolve('tip')).toEqual({ sessionId: 'tip-end', via: 'recovered', sessionKey: peer('tip') });
      // Without the route (dropped, or never written), the peer's rows find the same tip.
      await t.store.db.deleteFrom('routes').where('session_key', '=', peer('tip')).execute();
      expect(await resolve('tip')).toEqual({ sessionId: 'tip-end', via: 'recovered', sessionKey: peer('tip') });
      // A turn on it clears the accidental end: the conversation goes on in the tip.
      await t.store.turns.begin(admin, 'tip-end', { holder: 'w', ttlSeconds: 60 });
      expect((await t.store.sessions.get(admin, 'tip-end')).endedAt).toBeNull();
      expect((await t.store.sessions.get(admin, 'tip-root')).endReason).toBe('compression');
    });

    it('[sessions.first-turn-converges] concurrent first turns on one key converge on one row, and one turn runs', async () => {
      const firstTurn = (worker: string) =>
        t.store.sessions.createForKey(admin, {
          profile: 'rr',
          source: 'telegram',
          sessionKey: peer('first'),
          chatType: 'dm',
          chatId: 'first',
          gatewayId: 'gw-1',
          messages: [{ role: 'user', content: `first words, taken by ${worker}` }],
        });
      expect((await resolve('first')).via).toBe('none');
      const answers = await Promise.all([firstTurn('w1'), firstTurn('w2'), firstTurn('w3'), firstTurn('w4')]);
      const ids = new Set(answers.map((answer) => answer.session.id));
      expect(ids.size).toBe(1);
      expect(answers.filter((answer) => answer.created)).toHaveLength(1);
      const [id] = ids;
      const rows = await t.store.db
        .selectFrom('sessions')
        .select('id')
        .where('session_key', '=', peer('first'))
        .execute();
      expect(rows.map((row) => row.id)).toEqual([id]);
      expect(await resolve('first')).toEqual({ sessionId: id, via: 'route', sessionKey: peer('first') });
      // Their turns on the row: one holds the lease, the others are told it is busy.
      const turns = await Promise.allSettled(
        answers.map((_, index) => t.store.turns.begin(admin, id, { holder: `w${index}`, ttlSeconds: 60 })),
      );
      expect(turns.filter((turn) => turn.status === 'fulfilled')).toHaveLength(1);
      for (const turn of turns) if (turn.status === 'rejected') expect(turn.reason).toBeInstanceOf(SessionBusyError);
    });

    it('[sessions.first-turn-converges] a route to an ended, archived or suspended row is claimed by the new session', async () => {
      const claim = (id: string, chatId: string) =>
        t.store.sessions.createForKey(admin, {
          id,
          profile: 'rr',
          source: 'telegram',
          sessionKey: peer(chatId),
          chatType: 'dm',
          chatId,
        });
      await chat('claim-ended', 'claim-a');
      await t.store.routes.set(admin, { profile: 'rr', sessionKey: peer('claim-a'), sessionId: 'claim-ended' });
      await end('claim-ended', 'cli_close');
      expect(await claim('claim-new-a', 'claim-a')).toMatchObject({ created: true, session: { id: 'claim-new-a' } });
      await chat('claim-archived', 'claim-b');
      await t.store.routes.set(admin, { profile: 'rr', sessionKey: peer('claim-b'), sessionId: 'claim-archived' });
      await t.store.sessions.update(
        admin,
        'claim-archived',
        { archived: true },
        await tokensOf(t.store, 'claim-archived'),
      );
      expect(await claim('claim-new-b', 'claim-b')).toMatchObject({ created: true });
      await chat('claim-suspended', 'claim-c');
      await t.store.routes.set(admin, {
        profile: 'rr',
        sessionKey: peer('claim-c'),
        sessionId: 'claim-suspended',
        suspended: true,
      });
      expect(await claim('claim-new-c', 'claim-c')).toMatchObject({ created: true });
      for (const [chatId, id] of [
        ['claim-a', 'claim-new-a'],
        ['claim-b', 'claim-new-b'],
        ['claim-c', 'claim-new-c'],
      ]) {
        expect(await resolve(chatId)).toEqual({ sessionId: id, via: 'route', sessionKey: peer(chatId) });
      }
      // A live route is joined, not replaced.
      expect(await claim('claim-another', 'claim-a')).toMatchObject({ created: false, session: { id: 'claim-new-a' } });
      await expect(t.store.sessions.get(admin, 'claim-another')).rejects.toThrow();
    });

    it('[resolve.repeatable] two consecutive resolves answer the same, and the second writes nothing', async () => {
      // A recovered row, re-stamped and taken by the caller's gateway on the first resolve.
      await chat('twice-a', 'twice', { transportProfile: 'bot-old' });
      await end('twice-a', 'agent_close');
      const request = { transportProfile: 'bot-new', gatewayId: 'gw-1' };
      const first = await resolve('twice', request);
      const afterFirst = await t.store.sessions.get(admin, 'twice-a');
      const second = await resolve('twice', request);
      expect(second).toEqual(first);
      expect(first).toMatchObject({ sessionId: 'twice-a' });
      const afterSecond = await t.store.sessions.get(admin, 'twice-a');
      expect(afterSecond.revision).toBe(afterFirst.revision);
      expect(afterSecond).toMatchObject({ transportProfile: 'bot-new', gatewayId: 'gw-1' });

      // Two revivable rows with the same last activity: the same one, every time.
      await chat('tie-1', 'tie');
      await chat('tie-2', 'tie');
      await t.store.db
        .updateTable('sessions')
        .set({ last_activity_at: clock.now() })
        .where('id', 'in', ['tie-1', 'tie-2'])
        .execute();
      await end('tie-1', 'agent_close');
      await end('tie-2', 'agent_close');
      const answers = [await resolve('tie'), await resolve('tie'), await resolve('tie')];
      expect(new Set(answers.map((answer) => answer.sessionId)).size).toBe(1);

      // A live route, and nothing at all: the same answer twice as well.
      await chat('twice-live', 'live');
      await t.store.routes.set(admin, { profile: 'rr', sessionKey: peer('live'), sessionId: 'twice-live' });
      expect(await resolve('live')).toEqual(await resolve('live'));
      expect(await resolve('nobody')).toEqual({ sessionId: null, via: 'none', sessionKey: peer('nobody') });
      expect(await resolve('nobody')).toEqual({ sessionId: null, via: 'none', sessionKey: peer('nobody') });
    });
  });
}
