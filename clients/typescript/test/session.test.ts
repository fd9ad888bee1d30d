import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStatehouseClient, isProblem, type StatehouseClient } from '../src/index.js';
import { type RealApi, seedSession, startRealApi, TEST_DIALECTS } from './support/api.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`session handles carry revision, generation and turn on ${dialect}`, () => {
    let api: RealApi;
    let client: StatehouseClient;
    let other: StatehouseClient;

    beforeAll(async () => {
      api = await startRealApi(dialect);
      client = createStatehouseClient({ baseUrl: api.base, token: api.adminToken });
      other = createStatehouseClient({ baseUrl: api.base, token: api.adminToken });
    });
    afterAll(async () => api?.stop());

    it('learns the revision from every answer and presents it as If-Match (reading first when unknown)', async () => {
      await seedSession(api, 'handle-1', { messages: 1 });
      const handle = client.session('handle-1');
      expect(handle.revision).toBeUndefined();
      const titled = await handle.update({ title: 'first' });
      expect(titled.title).toBe('first');
      expect(handle.revision).toBe(titled.revision);
      const appended = await handle.append({ messages: [{ role: 'user', content: 'hello' }] });
      expect(handle.revision).toBe(appended.revision);
      await handle.update({ pinned: true });
      expect(handle.session?.pinned).toBe(true);
    });

    it('a stale revision answers revision_conflict; the handle learns currentRevision, so a retry succeeds', async () => {
      await seedSession(api, 'handle-2');
      const mine = client.session('handle-2');
      await mine.refresh();
      await other.session('handle-2').update({ title: 'theirs' });
      const conflict = await mine.update({ title: 'mine' }).catch((error: unknown) => error);
      if (!isProblem(conflict, 'revision_conflict')) throw conflict;
      expect(mine.revision).toBe(conflict.problem.currentRevision);
      const retried = await mine.update({ title: 'mine' });
      expect(retried.title).toBe('mine');
    });

    it('a turn fences appends with X-Turn-Id; a superseded worker gets stale_generation, re-reads and carries on', async () => {
      await seedSession(api, 'handle-3');
      const workerA = client.session('handle-3');
      const turnA = await workerA.beginTurn({ holder: 'worker-a', ttlSeconds: 1 });
      expect(workerA.turnId).toBe(turnA.turnId);
      expect(workerA.generation).toBe(turnA.generation);
      await workerA.append({ messages: [{ role: 'user', content: 'question', platformMessageId: 'q-1' }] });

      // While A's lease is live another worker is refused…
      const workerB = other.session('handle-3');
      const busy = await workerB.beginTurn({ holder: 'worker-b' }).catch((error: unknown) => error);
      expect(isProblem(busy, 'session_busy')).toBe(true);
      // …until it expires: B takes over (a newer generation) and answers.
      await pause(1_200);
      const turnB = await workerB.beginTurn({ holder: 'worker-b', ttlSeconds: 30 });
      expect(turnB.generation).toBe(turnA.generation + 1);
      await workerB.append({ messages: [{ role: 'assistant', content: 'from b' }] });

      // A wakes up and writes with its old turn: fenced out.
      const stale = await workerA
        .append({ messages: [{ role: 'assistant', content: 'from a', platformMessageId: 'a-1' }] })
        .catch((error: unknown) => error);
      if (!isProblem(stale, 'stale_generation')) throw stale;
      expect(stale.problem.currentGeneration).toBe(turnB.generation);
      expect(workerA.turnId).toBeNull();
      expect(workerA.generation).toBe(turnB.generation);

      // The generation it learnt is current: presented as X-Expected-Generation it may write under B's lease.
      await workerA.refresh();
      await workerA.append({ messages: [{ role: 'assistant', content: 'from a', platformMessageId: 'a-1' }] });
      await workerB.completeTurn();
      expect(workerB.turnId).toBeNull();
      const transcript = [];
      for await (const message of workerA.messages()) transcript.push(message.content);
      expect(transcript).toEqual(['question', 'from b', 'from a']);
    });

    it('a turn superseded by one that already completed is still fenced out (the generation travels with the turn)', async () => {
      await seedSession(api, 'handle-6');
      const late = client.session('handle-6');
      await late.beginTurn({ holder: 'late', ttlSeconds: 1 });
      await pause(1_200);
      const quick = other.session('handle-6');
      await quick.beginTurn({ holder: 'quick', ttlSeconds: 30 });
      await quick.append({ messages: [{ role: 'assistant', content: 'quick answer' }] });
      await quick.completeTurn();
      // No lease is live now, so the API does not judge the old X-Turn-Id; the generation it
      // carries alongside is stale, and that refuses the write.
      const refused = await late
        .append({ messages: [{ role: 'assistant', content: 'late answer' }] })
        .catch((error: unknown) => error);
      if (!isProblem(refused, 'stale_generation')) throw refused ?? new Error('the late append was accepted');
      const transcript = [];
      for await (const message of late.messages()) transcript.push(message.content);
      expect(transcript).toEqual(['quick answer']);
    });

    it('destructive operations present If-Match and X-Expected-Generation; a live lease refuses them as busy', async () => {
      await seedSession(api, 'handle-4', { messages: 3 });
      const holder = other.session('handle-4');
      await holder.beginTurn({ holder: 'holder', ttlSeconds: 30 });
      const deleter = client.session('handle-4');
      const busy = await deleter.delete().catch((error: unknown) => error);
      expect(isProblem(busy, 'session_busy')).toBe(true);
      await holder.completeTurn();
      // Completing the turn moved the revision: the deleter re-reads, then deletes.
      await deleter.refresh();
      const deleted = await deleter.delete();
      expect(deleted.deletedIds).toEqual(['handle-4']);
      expect(deleted.receipt?.sequence).toBeGreaterThan(0);
    });

    it('a stale generation on a destructive call is refused and learnt', async () => {
      await seedSession(api, 'handle-5', { messages: 2 });
      const stale = client.session('handle-5');
      await stale.refresh();
      const turn = await other.session('handle-5').beginTurn({ holder: 'x', ttlSeconds: 1 });
      await other.session('handle-5', { turnId: turn.turnId }).completeTurn();
      // The revision moved too: learn it without the generation, so the generation stays stale.
      stale.revision = (await other.session('handle-5').refresh()).revision;
      const refused = await stale.rewind({ toMessageId: 1 }).catch((error: unknown) => error);
      if (!isProblem(refused, 'stale_generation')) throw refused;
      expect(stale.generation).toBe(turn.generation);
      await stale.refresh();
      const messages = [];
      for await (const message of stale.messages()) messages.push(message.id);
      // A rewind to a message removes it and what follows.
      const rewound = await stale.rewind({ toMessageId: messages[1] });
      expect(rewound.rewoundIds).toEqual([messages[1]]);
      expect(stale.revision).toBe(rewound.session.revision);
    });
  });
}
