import { BRANCH_IN_CHUNKS_ABOVE, CHUNK_STOP_MS, REWIND_IN_CHUNKS_ABOVE } from '@statehouse/state';
import { describe, expect, it } from 'vitest';
import { bearer, sessionMaker, TEST_DIALECTS, useApi } from './harness.js';

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`turns, lineage and lifecycle API on ${dialect}`, () => {
    const { api, admin } = useApi(dialect);
    const create = sessionMaker(api, (id) => ({
      profile: 'lin',
      source: 'telegram',
      sessionKey: `agent:lin:telegram:dm:${id}`,
      messages: [
        { role: 'user', content: `opening of ${id}` },
        { role: 'assistant', content: 'reply one' },
        { role: 'user', content: 'follow-up question' },
        { role: 'assistant', content: 'reply two' },
      ],
    }));
    const tokens = (id: string) => api.tokensOf(id);

    it('destructive routes need both tokens: 428 without, 412 stale revision, 409 stale generation', async () => {
      await create('pre');
      const routes: [string, Record<string, unknown>][] = [
        ['compress', { summary: 's' }],
        ['branch', {}],
        ['reset', { reason: 'session_reset' }],
        ['rewind', { toMessageId: 1 }],
      ];
      for (const [route, body] of routes) {
        const none = await api.http().post(`/v1/sessions/pre/${route}`).set(admin).send(body);
        expect(none.status, route).toBe(428);
        const onlyIfMatch = await api
          .http()
          .post(`/v1/sessions/pre/${route}`)
          .set(admin)
          .set('If-Match', '"1"')
          .send(body);
        expect(onlyIfMatch.status, route).toBe(428);
        expect(onlyIfMatch.body.detail).toContain('X-Expected-Generation');
        const stale = await api
          .http()
          .post(`/v1/sessions/pre/${route}`)
          .set(admin)
          .set({ 'If-Match': '"999"', 'X-Expected-Generation': '0' })
          .send(body);
        expect(stale.status, route).toBe(412);
        expect(stale.body.currentRevision).toBeGreaterThan(0);
        const current = await tokens('pre');
        const staleGeneration = await api
          .http()
          .post(`/v1/sessions/pre/${route}`)
          .set(admin)
          .set({ ...current, 'X-Expected-Generation': '41' })
          .send(body);
        expect(staleGeneration.status, route).toBe(409);
        expect(staleGeneration.body).toMatchObject({ code: 'stale_generation', currentGeneration: 0 });
      }
    });

    it('[turns.lease-fencing] turns: begin bumps generation, another holder is refused, a stale worker cannot append, busy refuses destructive operations', async () => {
      await create('turn');
      const begin = await api
        .http()
        .post('/v1/sessions/turn/turns')
        .set(admin)
        .send({ holder: 'worker-a', ttlSeconds: 30 });
      expect(begin.status).toBe(201);
      expect(begin.body).toMatchObject({ holder: 'worker-a', generation: 1 });
      const session = await api.http().get('/v1/sessions/turn').set(admin);
      expect(session.body.turn).toMatchObject({ holder: 'worker-a', turnId: begin.body.turnId });
      expect(session.body.generation).toBe(1);

      const other = await api.http().post('/v1/sessions/turn/turns').set(admin).send({ holder: 'worker-b' });
      expect(other.status).toBe(409);
      expect(other.body.code).toBe('session_busy');
      for (const [route, body] of [
        ['compress', { summary: 's' }],
        ['reset', { reason: 'session_reset' }],
        ['branch', {}],
      ] as const) {
        const refused = await api
          .http()
          .post(`/v1/sessions/turn/${route}`)
          .set(admin)
          .set(await tokens('turn'))
          .send(body);
        expect(refused.status, route).toBe(409);
        expect(refused.body.code, route).toBe('session_busy');
      }

      const appendA = await api
        .http()
        .post('/v1/sessions/turn/messages')
        .set(admin)
        .set('X-Expected-Generation', '1')
        .send({ messages: [{ role: 'assistant', content: 'from worker a' }] });
      expect(appendA.status).toBe(201);

      // The lease expires; another worker takes the next turn and the first one is fenced. Cut to
      // 1 s only now, by a renewal: begun with a 2 s lease, every check above had to answer inside
      // it (0.66 s of it with the CPUs busy), and a slower stretch expired it mid-checks.
      const shortened = await api
        .http()
        .post(`/v1/sessions/turn/turns/${begin.body.turnId}/renew`)
        .set(admin)
        .send({ ttlSeconds: 1 });
      expect(shortened.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const next = await api
        .http()
        .post('/v1/sessions/turn/turns')
        .set(admin)
        .send({ holder: 'worker-b', ttlSeconds: 30 });
      expect(next.status).toBe(201);
      expect(next.body.generation).toBe(2);
      const stale = await api
        .http()
        .post('/v1/sessions/turn/messages')
        .set(admin)
        .set('X-Expected-Generation', '1')
        .send({ messages: [{ role: 'assistant', content: 'late from worker a' }] });
      expect(stale.status).toBe(409);
      expect(stale.body).toMatchObject({ code: 'stale_generation', currentGeneration: 2 });
      const renewOld = await api.http().post(`/v1/sessions/turn/turns/${begin.body.turnId}/renew`).set(admin).send({});
      expect(renewOld.status).toBe(409);
      const renew = await api
        .http()
        .post(`/v1/sessions/turn/turns/${next.body.turnId}/renew`)
        .set(admin)
        .send({ ttlSeconds: 60 });
      expect(renew.status).toBe(200);
      const complete = await api.http().post(`/v1/sessions/turn/turns/${next.body.turnId}/complete`).set(admin).send();
      expect(complete.status).toBe(204);
      expect((await api.http().get('/v1/sessions/turn').set(admin)).body.turn).toBeNull();
      const afterRelease = await api
        .http()
        .post('/v1/sessions/turn/branch')
        .set(admin)
        .set(await tokens('turn'))
        .send({});
      expect(afterRelease.status).toBe(201);
    });

    it('[lineage.compress] compress: one child with summary and tail; concurrent compressions yield one 201 and one conflict', async () => {
      await create('cmp');
      const headers = await tokens('cmp');
      const [a, b] = await Promise.all([
        api
          .http()
          .post('/v1/sessions/cmp/compress')
          .set(admin)
          .set(headers)
          .send({ summary: 'sum A', keepLastMessages: 2, childId: 'cmp-a' }),
        api
          .http()
          .post('/v1/sessions/cmp/compress')
          .set(admin)
          .set(headers)
          .send({ summary: 'sum B', keepLastMessages: 2, childId: 'cmp-b' }),
      ]);
      const statuses = [a.status, b.status].sort();
      expect(statuses[0]).toBe(201);
      expect([409, 412]).toContain(statuses[1]);
      const winner = a.status === 201 ? a : b;
      expect(winner.body.parent).toMatchObject({ id: 'cmp', endReason: 'compression' });
      expect(winner.body.child).toMatchObject({ parentSessionId: 'cmp', lineageKind: 'compression', messageCount: 3 });
      const loserId = winner === a ? 'cmp-b' : 'cmp-a';
      expect((await api.http().get(`/v1/sessions/${loserId}`).set(admin)).status).toBe(404);

      const closed = await api
        .http()
        .post('/v1/sessions/cmp/messages')
        .set(admin)
        .send({ messages: [{ role: 'user', content: 'too late' }] });
      expect(closed.status).toBe(409);
      expect(closed.body.code).toBe('session_closed');

      const list = await api.http().get('/v1/sessions?profile=lin&limit=200').set(admin);
      const rows = list.body.items.filter((item: { rootId: string }) => item.rootId === 'cmp');
      expect(rows.map((item: { id: string }) => item.id)).toEqual([winner.body.child.id]);
    });

    it('branch of a huge session (copied in chunks): 201 with the child, one Idempotency-Key answer, 412 when the parent moved', async () => {
      // Any branch of more than 3 messages takes the chunked path here (2 000 in production).
      api.store.lineage.tuneBranchCopy({ inChunksAbove: 3 });
      try {
        await create('huge');
        const headers = await tokens('huge');
        const send = () =>
          api
            .http()
            .post('/v1/sessions/huge/branch')
            .set(admin)
            .set(headers)
            .set('Idempotency-Key', 'huge-branch-1')
            .send({ childId: 'huge-b' });
        const first = await send();
        expect(first.status).toBe(201);
        expect(first.body.child).toMatchObject({
          id: 'huge-b',
          parentSessionId: 'huge',
          lineageKind: 'branch',
          messageCount: 4,
        });
        const retry = await send();
        expect(retry.status).toBe(201);
        expect(retry.headers['idempotent-replayed']).toBe('true');
        expect(retry.body).toEqual(first.body);
        const copied = await api.http().get('/v1/sessions/huge-b/messages').set(admin);
        expect(copied.body.items.map((m: { content: string }) => m.content)).toEqual([
          'opening of huge',
          'reply one',
          'follow-up question',
          'reply two',
        ]);
        // Stale tokens: refused before anything is copied, as for a small branch.
        const stale = await api
          .http()
          .post('/v1/sessions/huge/branch')
          .set(admin)
          .set({ ...headers, 'If-Match': `"${Number(JSON.parse(headers['If-Match'])) - 1}"` })
          .send({ childId: 'huge-stale' });
        expect(stale.status).toBe(412);
        expect(stale.body.code).toBe('revision_conflict');
        expect((await api.http().get('/v1/sessions/huge-stale').set(admin)).status).toBe(404);
      } finally {
        api.store.lineage.tuneBranchCopy({ inChunksAbove: BRANCH_IN_CHUNKS_ABOVE });
      }
    });

    it('[lineage.kinds] [lineage.listing] branch, reset and lineage: the tree carries every edge kind; delegates hide from the list', async () => {
      await create('root');
      const compress = await api
        .http()
        .post('/v1/sessions/root/compress')
        .set(admin)
        .set(await tokens('root'))
        .send({ summary: 's', childId: 'root-2' });
      expect(compress.status).toBe(201);
      const messages = await api.http().get('/v1/sessions/root/messages').set(admin);
      const branch = await api
        .http()
        .post('/v1/sessions/root-2/branch')
        .set(admin)
        .set(await tokens('root-2'))
        .send({ childId: 'root-branch', title: 'My branch' });
      expect(branch.status).toBe(201);
      expect(branch.body.child).toMatchObject({ lineageKind: 'branch', title: 'My branch' });
      const missingMessage = await api
        .http()
        .post('/v1/sessions/root-2/branch')
        .set(admin)
        .set(await tokens('root-2'))
        .send({ uptoMessageId: messages.body.items[0].id });
      expect(missingMessage.status).toBe(404);
      const delegate = await api.http().post('/v1/sessions').set(admin).send({
        id: 'root-helper',
        profile: 'lin',
        source: 'subagent',
        parentSessionId: 'root-2',
        lineageKind: 'delegate',
      });
      expect(delegate.status).toBe(201);
      const reset = await api
        .http()
        .post('/v1/sessions/root-2/reset')
        .set(admin)
        .set(await tokens('root-2'))
        .send({ reason: 'session_reset', childId: 'root-new' });
      expect(reset.status).toBe(201);
      expect(reset.body.parent.endReason).toBe('session_reset');
      expect(reset.body.child).toMatchObject({ lineageKind: 'reset', sessionKey: 'agent:lin:telegram:dm:root' });

      const lineage = await api.http().get('/v1/sessions/root/lineage').set(admin);
      expect(lineage.status).toBe(200);
      expect(lineage.body).toMatchObject({
        rootId: 'root',
        tipId: 'root-2',
        chain: ['root', 'root-2'],
        treeRootId: 'root',
      });
      expect(lineage.body.edges).toEqual(
        expect.arrayContaining([
          { from: 'root', to: 'root-2', kind: 'compression' },
          { from: 'root-2', to: 'root-branch', kind: 'branch' },
          { from: 'root-2', to: 'root-helper', kind: 'delegate' },
          { from: 'root-2', to: 'root-new', kind: 'reset' },
        ]),
      );
      const listed = (await api.http().get('/v1/sessions?profile=lin&limit=200').set(admin)).body.items.map(
        (item: { id: string }) => item.id,
      );
      expect(listed).toEqual(expect.arrayContaining(['root-2', 'root-branch', 'root-new']));
      expect(listed).not.toContain('root');
      expect(listed).not.toContain('root-helper');
      const withChildren = (
        await api.http().get('/v1/sessions?profile=lin&limit=200&includeChildren=true').set(admin)
      ).body.items.map((item: { id: string }) => item.id);
      expect(withChildren).toContain('root-helper');
      const member = bearer(await api.memberToken(['other']));
      expect((await api.http().get('/v1/sessions/root/lineage').set(member)).status).toBe(404);
    });

    it('[messages.active-compacted] rewind: rewound messages leave the transcript and search; hidden rows stay hidden', async () => {
      await create('rw', {
        messages: [
          { role: 'system', content: 'hidden guidance', displayKind: 'hidden' },
          { role: 'user', content: 'keep this' },
          { role: 'assistant', content: 'rewindable wombatword answer' },
        ],
      });
      const all = await api.http().get('/v1/sessions/rw/messages?includeHidden=true').set(admin);
      const target = all.body.items[2];
      const before = await api.http().get('/v1/search?q=wombatword').set(admin);
      expect(before.body.items).toHaveLength(1);
      const rewind = await api
        .http()
        .post('/v1/sessions/rw/rewind')
        .set(admin)
        .set(await tokens('rw'))
        .send({ toMessageId: target.id });
      expect(rewind.status).toBe(200);
      expect(rewind.body.rewoundIds).toEqual([target.id]);
      expect(rewind.body.session.messageCount).toBe(1);
      expect((await api.http().get('/v1/search?q=wombatword').set(admin)).body.items).toEqual([]);
      const transcript = await api.http().get('/v1/sessions/rw/messages').set(admin);
      expect(transcript.body.items.map((m: { content: string }) => m.content)).toEqual(['keep this']);
      const unknown = await api
        .http()
        .post('/v1/sessions/rw/rewind')
        .set(admin)
        .set(await tokens('rw'))
        .send({ toMessageId: 999999 });
      expect(unknown.status).toBe(404);
    });

    it('rewind in chunks: the same answer shape, replayed under its Idempotency-Key, the same errors', async () => {
      await create('rwc', {
        messages: Array.from({ length: 40 }, (_, i) => ({
          role: i % 2 ? 'assistant' : 'user',
          content: `chunkrw line ${i}`,
          ...(i % 2 ? { toolCalls: [{ id: `t${i}` }] } : {}),
        })),
      });
      const all = await api.http().get('/v1/sessions/rwc/messages?limit=100').set(admin);
      const ids = all.body.items.map((m: { id: number }) => m.id);
      api.store.rewinds.tuneRewind({ inChunksAbove: 3, maxStep: 5, stopMs: 0 });
      try {
        const seen = await tokens('rwc');
        const send = () =>
          api
            .http()
            .post('/v1/sessions/rwc/rewind')
            .set(admin)
            .set(seen)
            .set('Idempotency-Key', 'rewind-in-chunks')
            .send({ toMessageId: ids[4] });
        const rewind = await send();
        expect(rewind.status).toBe(200);
        expect(rewind.body.rewoundIds).toEqual(ids.slice(4));
        expect(rewind.body.session).toMatchObject({ messageCount: 4, toolCallCount: 2 });
        const replay = await send();
        expect(replay.status).toBe(200);
        expect(replay.headers['idempotent-replayed']).toBe('true');
        expect(replay.body).toEqual(rewind.body);
        const transcript = await api.http().get('/v1/sessions/rwc/messages').set(admin);
        expect(transcript.body.items.map((m: { id: number }) => m.id)).toEqual(ids.slice(0, 4));
        // The tokens the first call was checked with are stale now; an unknown target is 404.
        const stale = await api
          .http()
          .post('/v1/sessions/rwc/rewind')
          .set(admin)
          .set(seen)
          .send({ toMessageId: ids[1] });
        expect(stale.status).toBe(412);
        const unknown = await api
          .http()
          .post('/v1/sessions/rwc/rewind')
          .set(admin)
          .set(await tokens('rwc'))
          .send({ toMessageId: 999999 });
        expect(unknown.status).toBe(404);
      } finally {
        api.store.rewinds.tuneRewind({
          inChunksAbove: REWIND_IN_CHUNKS_ABOVE,
          maxStep: 25_000,
          stopMs: CHUNK_STOP_MS,
        });
      }
    });

    it('rewind in chunks interrupted, then the same request again: the whole answer, replayed after', async () => {
      await create('rwi', {
        messages: Array.from({ length: 40 }, (_, i) => ({
          role: i % 2 ? 'assistant' : 'user',
          content: `resumed line ${i}`,
        })),
      });
      const all = await api.http().get('/v1/sessions/rwi/messages?limit=100').set(admin);
      const ids = all.body.items.map((m: { id: number }) => m.id);
      let pauses = 0;
      const previous = api.store.rewinds.tuneRewind({
        inChunksAbove: 3,
        maxStep: 5,
        stopMs: 0,
        between: async () => {
          if (++pauses === 3) throw new Error('the process died');
        },
      });
      try {
        const seen = await tokens('rwi');
        const send = () =>
          api
            .http()
            .post('/v1/sessions/rwi/rewind')
            .set(admin)
            .set(seen)
            .set('Idempotency-Key', 'rewind-resumed')
            .send({ toMessageId: ids[4] });
        const interrupted = await send();
        expect(interrupted.status).toBe(500);
        // Three chunks of 5 committed: the last 15 messages are gone.
        const half = await api.http().get('/v1/sessions/rwi/messages?limit=100').set(admin);
        expect(half.body.items.map((m: { id: number }) => m.id)).toEqual(ids.slice(0, 25));
        const resumed = await send();
        expect(resumed.status).toBe(200);
        expect(resumed.body.rewoundIds).toEqual(ids.slice(4));
        expect(resumed.body.session).toMatchObject({ messageCount: 4 });
        const replay = await send();
        expect(replay.status).toBe(200);
        expect(replay.headers['idempotent-replayed']).toBe('true');
        expect(replay.body).toEqual(resumed.body);
      } finally {
        api.store.rewinds.tuneRewind(previous);
      }
    });

    it('[lifecycle.first-end-wins] end and reopen: first end wins; automatic ends reopen, deliberate ones answer 409 session_closed', async () => {
      const s = await create('life');
      const noIfMatch = await api.http().post('/v1/sessions/life/end').set(admin).send({ reason: 'agent_close' });
      expect(noIfMatch.status).toBe(428);
      const ended = await api
        .http()
        .post('/v1/sessions/life/end')
        .set(admin)
        .set('If-Match', `"${s.revision}"`)
        .send({ reason: 'agent_close' });
      expect(ended.status).toBe(200);
      expect(ended.body).toMatchObject({ endReason: 'agent_close' });
      expect(ended.headers.etag).toBe(`"${ended.body.revision}"`);
      const second = await api
        .http()
        .post('/v1/sessions/life/end')
        .set(admin)
        .set('If-Match', `"${ended.body.revision}"`)
        .send({ reason: 'cli_close' });
      expect(second.body.endReason).toBe('agent_close');
      const reopen = await api
        .http()
        .post('/v1/sessions/life/reopen')
        .set(admin)
        .set('If-Match', `"${ended.body.revision}"`)
        .send({});
      expect(reopen.status).toBe(200);
      expect(reopen.body.endedAt).toBeNull();
      const reset = await api
        .http()
        .post('/v1/sessions/life/end')
        .set(admin)
        .set('If-Match', `"${reopen.body.revision}"`)
        .send({ reason: 'daily' });
      const refused = await api
        .http()
        .post('/v1/sessions/life/reopen')
        .set(admin)
        .set('If-Match', `"${reset.body.revision}"`)
        .send({});
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe('session_closed');
      // A reason of the caller's own is a label (docs/domain.md §4.9); anything else is refused.
      const badReason = await api
        .http()
        .post('/v1/sessions/life/end')
        .set(admin)
        .set('If-Match', '"1"')
        .send({ reason: 'not a label' });
      expect(badReason.status).toBe(400);
    });
  });
}
