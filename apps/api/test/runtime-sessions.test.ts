import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, bearer, bootApi, TEST_DIALECTS } from './harness.js';

/**
 * What agent runtimes keep with their sessions (docs/domain.md §2.2.16–2.2.22, §2.3.8–2.3.9, §3.4.1–3.4.2,
 * §4.9, §7.7, §12): the REST surface Hermes' SessionDB adapter (clients/python) is built on.
 */
for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`runtime session fields on ${dialect}`, () => {
    let api: ApiHarness;
    let admin: Record<string, string>;
    const create = (body: Record<string, unknown>) =>
      api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .send({ profile: 'rt', source: 'cli', ...body });
    const get = async (id: string) => (await api.http().get(`/v1/sessions/${id}`).set(admin)).body;
    const patch = async (id: string, body: Record<string, unknown>) => {
      const session = await get(id);
      return api.http().patch(`/v1/sessions/${id}`).set(admin).set('If-Match', `"${session.revision}"`).send(body);
    };
    const append = (id: string, messages: Record<string, unknown>[]) =>
      api.http().post(`/v1/sessions/${id}/messages`).set(admin).send({ messages });
    const end = async (id: string, reason: string) => {
      const session = await get(id);
      return api
        .http()
        .post(`/v1/sessions/${id}/end`)
        .set(admin)
        .set('If-Match', `"${session.revision}"`)
        .send({ reason });
    };

    beforeAll(async () => {
      api = await bootApi(dialect);
      admin = bearer(api.adminToken);
    });
    afterAll(async () => api?.close());

    it('[session.create-fill] an existing session keeps what it has and gets only its empty fields (200)', async () => {
      expect((await create({ id: 'fill-1', source: 'telegram', userId: 'u1', chatId: 'c1' })).status).toBe(201);
      const filled = await create({
        id: 'fill-1',
        source: 'cli',
        model: 'm-1',
        modelConfig: { max: 9 },
        systemPrompt: 'SYS',
        chatId: 'other',
        ifExists: 'fill',
      });
      expect(filled.status).toBe(200);
      expect(filled.body).toMatchObject({ source: 'telegram', userId: 'u1', chatId: 'c1', model: 'm-1' });
      expect(filled.body.modelConfig).toEqual({ max: 9 });
      expect((await get('fill-1')).systemPrompt).toBe('SYS');
      const again = await create({ id: 'fill-1', model: 'm-2', systemPrompt: 'NEW', ifExists: 'fill' });
      expect(again.body.model).toBe('m-1');
      expect((await get('fill-1')).systemPrompt).toBe('SYS');
      // A retry of a fill replays it: the same answer, 200.
      const keyed = () =>
        api
          .http()
          .post('/v1/sessions')
          .set(admin)
          .set('Idempotency-Key', 'fill-retry')
          .send({ id: 'fill-1', profile: 'rt', source: 'cli', ifExists: 'fill' });
      const firstTry = await keyed();
      const retry = await keyed();
      expect([firstTry.status, retry.status]).toEqual([200, 200]);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.body).toEqual(firstTry.body);
      // Without fill an existing id is a conflict, and another profile's id is one with fill too.
      expect((await create({ id: 'fill-1' })).status).toBe(409);
      expect((await create({ id: 'fill-1', profile: 'rt-other', ifExists: 'fill' })).status).toBe(409);
    });

    it('[session.system-prompt] the snapshot is on the single read and PATCH answers, on list rows only when asked, and goes with its session', async () => {
      await create({ id: 'prompt-1', systemPrompt: 'You are helpful.' });
      expect((await get('prompt-1')).systemPrompt).toBe('You are helpful.');
      const list = await api.http().get('/v1/sessions?profile=rt&idPrefix=prompt-').set(admin);
      expect(list.body.items[0].systemPrompt).toBeUndefined();
      const withPrompt = await api
        .http()
        .get('/v1/sessions?profile=rt&idPrefix=prompt-&include=systemPrompt')
        .set(admin);
      expect(withPrompt.body.items[0].systemPrompt).toBe('You are helpful.');
      const changed = await patch('prompt-1', { systemPrompt: 'Model: x' });
      expect(changed.status).toBe(200);
      expect(changed.body.systemPrompt).toBe('Model: x');
      expect(changed.body.revision).toBe((await get('prompt-1')).revision);
      expect((await patch('prompt-1', { systemPrompt: null })).body.systemPrompt).toBeNull();
      await patch('prompt-1', { systemPrompt: 'again' });
      const tokens = await api.tokensOf('prompt-1');
      expect((await api.http().delete('/v1/sessions/prompt-1').set(admin).set(tokens)).status).toBe(200);
      const rows = await api.store.db
        .selectFrom('session_prompts')
        .selectAll()
        .where('session_id', '=', 'prompt-1')
        .execute();
      expect(rows).toEqual([]);
    });

    it('[session.workspace] cwd, branch and repo root; a cwd prefix is the directory or one under it, compared exactly', async () => {
      await create({ id: 'ws-1', cwd: '/repo' });
      await create({ id: 'ws-2', cwd: '/repo/sub' });
      await create({ id: 'ws-3', cwd: '/repo-wt' });
      await create({ id: 'ws-4', cwd: '/r_po' });
      const changed = await patch('ws-1', { gitBranch: 'main', gitRepoRoot: '/repo' });
      expect(changed.body).toMatchObject({ cwd: '/repo', gitBranch: 'main', gitRepoRoot: '/repo' });
      const ids = async (query: string) =>
        (await api.http().get(`/v1/sessions?profile=rt&view=all&${query}`).set(admin)).body.items
          .map((item: { id: string }) => item.id)
          .sort();
      expect(await ids('cwdPrefix=/repo')).toEqual(['ws-1', 'ws-2']);
      expect(await ids('cwdPrefix=/repo/')).toEqual(['ws-1', 'ws-2']);
      // `_` is an ordinary character of a path, not a wildcard.
      expect(await ids('cwdPrefix=/r_po')).toEqual(['ws-4']);
      const count = await api.http().get('/v1/sessions/count?profile=rt&view=all&cwdPrefix=/repo').set(admin);
      expect(count.body.sessions).toBe(2);
      await patch('ws-3', { archived: true });
      const workspaces = await api.http().get('/v1/sessions/workspaces?profile=rt').set(admin);
      const byCwd = Object.fromEntries(
        workspaces.body.items.map((item: { cwd: string; sessions: number }) => [item.cwd, item.sessions]),
      );
      expect(byCwd).toMatchObject({ '/repo': 1, '/repo/sub': 1, '/r_po': 1 });
      expect(byCwd['/repo-wt']).toBeUndefined();
      const all = await api.http().get('/v1/sessions/workspaces?profile=rt&archived=include').set(admin);
      expect(all.body.items.map((item: { cwd: string }) => item.cwd)).toContain('/repo-wt');
    });

    it('[session.usage-accounting] increments add and record per model; absolute sets; the route is filled once, except by the first accounted call', async () => {
      await create({ id: 'use-1', model: 'gpt-5.6-sol' });
      const usage = (id: string, body: Record<string, unknown>) =>
        api.http().post(`/v1/sessions/${id}/usage`).set(admin).send(body);
      // A call that accounts nothing leaves the route as it was.
      expect((await usage('use-1', { model: 'fallback', billingProvider: 'fb' })).body).toMatchObject({
        model: 'gpt-5.6-sol',
        billingProvider: null,
      });
      // The first accounted call's route replaces the one recorded before any call.
      const first = await usage('use-1', {
        inputTokens: 10,
        outputTokens: 5,
        apiCallCount: 1,
        model: 'glm-5.2',
        billingProvider: 'custom:zai',
        billingBaseUrl: 'https://z/v4',
        estimatedCostUsd: 0.5,
      });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({
        model: 'glm-5.2',
        billingProvider: 'custom:zai',
        billingBaseUrl: 'https://z/v4',
        apiCallCount: 1,
        inputTokens: 10,
        outputTokens: 5,
        estimatedCostUsd: 0.5,
      });
      // Later calls never rewrite it, and add up.
      const second = await usage('use-1', {
        inputTokens: 10,
        outputTokens: 5,
        apiCallCount: 2,
        model: 'other',
        billingProvider: 'openrouter',
        actualCostUsd: 0.25,
        costStatus: 'actual',
      });
      expect(second.body).toMatchObject({
        model: 'glm-5.2',
        billingProvider: 'custom:zai',
        apiCallCount: 3,
        inputTokens: 20,
        actualCostUsd: 0.25,
        costStatus: 'actual',
      });
      const perModel = await api.store.db
        .selectFrom('session_model_usage')
        .select(['model', 'billing_provider', 'api_call_count', 'input_tokens'])
        .where('session_id', '=', 'use-1')
        .orderBy('model')
        .execute();
      expect(
        perModel.map((row) => [row.model, row.billing_provider, Number(row.api_call_count), Number(row.input_tokens)]),
      ).toEqual([
        ['glm-5.2', 'custom:zai', 1, 10],
        ['other', 'openrouter', 2, 10],
      ]);
      const byModel = await api.http().get('/v1/sessions/use-1/usage').set(admin);
      expect(
        byModel.body.items.map((item: { model: string; billingProvider: string; apiCallCount: number }) => [
          item.model,
          item.billingProvider,
          item.apiCallCount,
        ]),
      ).toEqual([
        ['glm-5.2', 'custom:zai', 1],
        ['other', 'openrouter', 2],
      ]);
      expect(byModel.body.items[1]).toMatchObject({ actualCostUsd: 0.25, costStatus: 'actual', task: '' });
      // Absolute sets the totals and records nothing per model.
      const absolute = await usage('use-1', { mode: 'absolute', inputTokens: 7, outputTokens: 3, apiCallCount: 5 });
      expect(absolute.body).toMatchObject({ inputTokens: 7, outputTokens: 3, apiCallCount: 5, estimatedCostUsd: 0 });
      const rows = await api.store.db
        .selectFrom('session_model_usage')
        .select('model')
        .where('session_id', '=', 'use-1')
        .execute();
      expect(rows).toHaveLength(2);
      // The overview's rollups follow the decrease: they sum to the session's counters.
      const rollup = await api.store.db
        .selectFrom('session_usage')
        .select((eb) => [eb.fn.sum<number>('input_tokens').as('input')])
        .where('session_id', '=', 'use-1')
        .executeTakeFirstOrThrow();
      expect(Number(rollup.input)).toBe(7);
      // A model is backfilled only while the session has none.
      await create({ id: 'use-2', source: 'telegram' });
      expect((await usage('use-2', { inputTokens: 1, model: 'openai/gpt-5.4' })).body.model).toBe('openai/gpt-5.4');
      expect((await usage('use-missing', { inputTokens: 1 })).status).toBe(404);
    });

    it('[session.usage-accounting] is fenced like an append under another holder’s live turn', async () => {
      await create({ id: 'use-busy' });
      const turn = await api.http().post('/v1/sessions/use-busy/turns').set(admin).send({ holder: 'w1' });
      const refused = await api.http().post('/v1/sessions/use-busy/usage').set(admin).send({ inputTokens: 1 });
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe('session_busy');
      const allowed = await api
        .http()
        .post('/v1/sessions/use-busy/usage')
        .set(admin)
        .set('X-Turn-Id', turn.body.turnId)
        .send({ inputTokens: 1 });
      expect(allowed.status).toBe(200);
    });

    it('[session.attributes] a PATCH merges; a key set to null goes; null clears; the object stays small', async () => {
      await create({ id: 'attr-1', attributes: { a: 1 } });
      expect((await patch('attr-1', { attributes: { b: 'x' } })).body.attributes).toEqual({ a: 1, b: 'x' });
      expect((await patch('attr-1', { attributes: { a: null } })).body.attributes).toEqual({ b: 'x' });
      expect((await patch('attr-1', { attributes: null })).body.attributes).toBeNull();
      const big = await patch('attr-1', { attributes: { blob: 'x'.repeat(17_000) } });
      expect(big.status).toBe(400);
      expect(big.body.code).toBe('validation_failed');
    });

    it('[end.free-form] a reason of the caller’s own is recorded as other, kept verbatim, and reopened only by its transport', async () => {
      await create({ id: 'end-1', source: 'cli' });
      const ended = await end('end-1', 'user_exit');
      expect(ended.status).toBe(200);
      expect(ended.body).toMatchObject({ endReason: 'other', endReasonDetail: 'user_exit' });
      // First end wins.
      expect((await end('end-1', 'done')).body.endReasonDetail).toBe('user_exit');
      const tokens = await api.tokensOf('end-1');
      const refused = await api.http().post('/v1/sessions/end-1/reopen').set(admin).set(tokens).send({});
      expect(refused.body.code).toBe('reopen_not_permitted');
      const reopened = await api
        .http()
        .post('/v1/sessions/end-1/reopen')
        .set(admin)
        .set(await api.tokensOf('end-1'))
        .send({ transportProfile: 'cli' });
      expect(reopened.status).toBe(200);
      expect(reopened.body).toMatchObject({ endedAt: null, endReason: null, endReasonDetail: null });
      await create({ id: 'end-2' });
      expect((await end('end-2', 'agent_close')).body).toMatchObject({
        endReason: 'agent_close',
        endReasonDetail: null,
      });
      await create({ id: 'end-3' });
      expect((await end('end-3', 'not a label')).status).toBe(400);
    });

    it('[message.replay-fields] kept exactly as given — an empty reasoning content too — and carried into a compression', async () => {
      await create({ id: 'replay-1' });
      const details = [{ type: 'reasoning.summary', summary: 'x' }];
      const items = [{ type: 'reasoning', id: 'rs_1', encrypted_content: 'blob' }];
      await append('replay-1', [
        { role: 'user', content: 'hi', observed: true },
        {
          role: 'assistant',
          content: 'Done',
          reasoningContent: '',
          reasoningDetails: details,
          codexReasoningItems: items,
          codexMessageItems: [{ type: 'message', id: 'msg_1' }],
        },
        { role: 'tool', content: 'ok', toolCallId: 'c1', effectDisposition: 'unknown' },
        { role: 'assistant', content: 'plain' },
      ]);
      const messages = (await api.http().get('/v1/sessions/replay-1/messages').set(admin)).body.items;
      expect(messages[0]).toMatchObject({ observed: true, reasoningContent: null });
      expect(messages[1]).toMatchObject({
        reasoningContent: '',
        reasoningDetails: details,
        codexReasoningItems: items,
        codexMessageItems: [{ type: 'message', id: 'msg_1' }],
        observed: false,
      });
      expect(messages[2].effectDisposition).toBe('unknown');
      expect(messages[3]).toMatchObject({ reasoningContent: null, reasoningDetails: null, codexReasoningItems: null });
      const compressed = await api
        .http()
        .post('/v1/sessions/replay-1/compress')
        .set(admin)
        .set(await api.tokensOf('replay-1'))
        .send({ summary: 'so far', keepLastMessages: 3 });
      expect(compressed.status).toBe(201);
      const tail = (await api.http().get(`/v1/sessions/${compressed.body.child.id}/messages`).set(admin)).body.items;
      expect(tail.find((message: { content: string }) => message.content === 'Done')).toMatchObject({
        reasoningContent: '',
        codexReasoningItems: items,
      });
    });

    it('[message.replace-transcript] the live rows leave (rewound or archived), the new ones take their place, in one transaction', async () => {
      await create({ id: 'rep-1' });
      await append('rep-1', [
        { role: 'user', content: 'old question', platformMessageId: 'p-1' },
        { role: 'assistant', content: 'old answer', toolCalls: [{ id: 'c' }] },
      ]);
      const put = async (id: string, body: Record<string, unknown>, headers?: Record<string, string>) =>
        api
          .http()
          .put(`/v1/sessions/${id}/messages`)
          .set(admin)
          .set(headers ?? (await api.tokensOf(id)))
          .send(body);
      expect((await put('rep-1', { messages: [] }, {})).status).toBe(428);
      const replaced = await put('rep-1', {
        messages: [
          { role: 'user', content: 'new question', platformMessageId: 'p-1' },
          { role: 'assistant', content: 'new answer' },
        ],
      });
      expect(replaced.status).toBe(200);
      expect(replaced.body.ids).toHaveLength(2);
      expect(replaced.body.replacedIds).toHaveLength(2);
      expect(replaced.body.session).toMatchObject({ messageCount: 2, toolCallCount: 0 });
      const live = (await api.http().get('/v1/sessions/rep-1/messages').set(admin)).body.items;
      expect(live.map((message: { content: string }) => message.content)).toEqual(['new question', 'new answer']);
      expect(live[0].platformMessageId).toBe('p-1');
      const everything = (await api.http().get('/v1/sessions/rep-1/messages?includeInactive=true').set(admin)).body
        .items;
      expect(everything).toHaveLength(4);
      const search = await api.http().get('/v1/search?q=old&profile=rt&titles=false').set(admin);
      expect(search.body.items.filter((hit: { sessionId: string }) => hit.sessionId === 'rep-1')).toEqual([]);
      // Archived by compaction: out of the live transcript, still shown and searched as compacted.
      const archived = await put('rep-1', { messages: [{ role: 'user', content: 'summary so far' }], archive: true });
      expect(archived.status).toBe(200);
      const shown = (await api.http().get('/v1/sessions/rep-1/messages').set(admin)).body.items;
      expect(
        shown.map((message: { content: string; compacted: boolean }) => [message.content, message.compacted]),
      ).toEqual([
        ['new question', true],
        ['new answer', true],
        ['summary so far', false],
      ]);
      const liveOnly = (await api.http().get('/v1/sessions/rep-1/messages?includeCompacted=false').set(admin)).body
        .items;
      expect(liveOnly.map((message: { content: string }) => message.content)).toEqual(['summary so far']);
      const found = await api.http().get('/v1/search?q=answer&profile=rt&titles=false').set(admin);
      expect(found.body.items.some((hit: { sessionId: string }) => hit.sessionId === 'rep-1')).toBe(true);
      // An empty list clears the transcript.
      expect((await put('rep-1', { messages: [] })).body.session.messageCount).toBe(2);
      const turn = await api.http().post('/v1/sessions/rep-1/turns').set(admin).send({ holder: 'w' });
      expect(turn.status).toBe(201);
      const busy = await put('rep-1', { messages: [] });
      expect(busy.body.code).toBe('session_busy');
    });

    it('[list.views] tips, roots and every row; surfaces in and out; a chain found by any segment’s id; counts that match', async () => {
      await create({ id: 'view-root', source: 'cli', sessionKey: 'agent:rt:cli:dm:1', chatId: '1', chatType: 'dm' });
      await append('view-root', [{ role: 'user', content: 'root turn' }]);
      const compressed = await api
        .http()
        .post('/v1/sessions/view-root/compress')
        .set(admin)
        .set(await api.tokensOf('view-root'))
        .send({ summary: 's', childId: 'view-tip' });
      expect(compressed.status).toBe(201);
      await create({ id: 'view-tool', source: 'tool' });
      const ids = async (query: string) =>
        (await api.http().get(`/v1/sessions?profile=rt&idPrefix=view-&${query}`).set(admin)).body.items
          .map((item: { id: string }) => item.id)
          .sort();
      expect(await ids('')).toEqual(['view-tip', 'view-tool']);
      expect(await ids('view=roots')).toEqual(['view-root', 'view-tool']);
      expect(await ids('view=all')).toEqual(['view-root', 'view-tip', 'view-tool']);
      expect(await ids('excludeSources=tool')).toEqual(['view-tip']);
      expect(await ids('sources=tool,telegram')).toEqual(['view-tool']);
      expect(await ids('view=all&sessionKey=agent:rt:cli:dm:1')).toEqual(['view-root', 'view-tip']);
      expect(await ids('view=all&keyed=true')).toEqual(['view-root', 'view-tip']);
      expect(await ids('view=all&chatId=1&chatType=dm')).toEqual(['view-root', 'view-tip']);
      // The root's id finds the conversation, listed at its tip.
      const byRoot = (await api.http().get('/v1/sessions?profile=rt&idContains=W-ROOT').set(admin)).body.items;
      expect(byRoot.map((item: { id: string; rootId: string }) => [item.id, item.rootId])).toEqual([
        ['view-tip', 'view-root'],
      ]);
      const count = async (query: string) =>
        (await api.http().get(`/v1/sessions/count?profile=rt&idPrefix=view-&${query}`).set(admin)).body;
      // The tip holds the compaction summary; the root its own turn.
      expect(await count('')).toEqual({ sessions: 2, messages: 1 });
      expect(await count('view=all')).toEqual({ sessions: 3, messages: 2 });
      expect(await count('view=all&sessionId=view-root')).toEqual({ sessions: 1, messages: 1 });
    });

    it('[session.id-prefix] an exact id, or the one id a prefix names; ambiguous names none; no wildcards', async () => {
      await create({ id: '20260315_092437_c9a6aa' });
      await create({ id: '20260315_092437_c9a6bb' });
      await create({ id: '20260315X092437_c9a6ff' });
      const resolve = async (prefix: string) =>
        (
          await api
            .http()
            .get(`/v1/sessions/resolve-id?profile=rt&prefix=${encodeURIComponent(prefix)}`)
            .set(admin)
        ).body;
      expect(await resolve('20260315_092437_c9a6aa')).toEqual({ id: '20260315_092437_c9a6aa', ambiguous: false });
      expect(await resolve('20260315_092437_c9a6a')).toEqual({ id: '20260315_092437_c9a6aa', ambiguous: false });
      expect(await resolve('20260315_092437_c9a6')).toEqual({ id: null, ambiguous: true });
      expect(await resolve('20260315X')).toEqual({ id: '20260315X092437_c9a6ff', ambiguous: false });
      expect(await resolve('nothing-here')).toEqual({ id: null, ambiguous: false });
      // Another profile's ids are not the caller's to resolve there.
      expect(
        await (async () =>
          (await api.http().get('/v1/sessions/resolve-id?profile=rt-none&prefix=2026').set(admin)).body)(),
      ).toEqual({
        id: null,
        ambiguous: false,
      });
    });

    it('[title.lineage] the exact holder, the newest numbered variant, and the next number; % and _ are ordinary', async () => {
      const titled = async (id: string, title: string) => {
        await create({ id });
        expect((await patch(id, { title })).status).toBe(200);
      };
      await titled('tl-1', 'my project');
      await titled('tl-2', 'my project #2');
      await titled('tl-3', 'my project #3');
      await titled('tl-4', 'test_project');
      await titled('tl-5', 'testXproject #2');
      const lookup = async (title: string) =>
        (
          await api
            .http()
            .get(`/v1/sessions/title-lineage?profile=rt&title=${encodeURIComponent(title)}`)
            .set(admin)
        ).body;
      const project = await lookup('my project');
      expect(project.session.id).toBe('tl-1');
      expect(project.latest).toEqual({ id: 'tl-3', title: 'my project #3' });
      expect(project.next).toBe('my project #4');
      const underscore = await lookup('test_project');
      expect(underscore.session.id).toBe('tl-4');
      expect(underscore.latest).toBeNull();
      expect(underscore.next).toBe('test_project #2');
      expect(await lookup('free title')).toEqual({ session: null, latest: null, next: 'free title' });
    });

    it('[search.filters-context] surfaces in and out, roles, neighbours as context, and the hit’s session details', async () => {
      await create({ id: 'sc-1', source: 'cli', model: 'm-cli' });
      await create({ id: 'sc-2', source: 'telegram' });
      await create({ id: 'sc-3', source: 'tool' });
      await append('sc-1', [
        { role: 'user', content: 'before zebrafish' },
        { role: 'assistant', content: 'zebrafish match', toolName: 'lookup' },
        { role: 'user', content: 'after zebrafish' },
      ]);
      await append('sc-2', [{ role: 'user', content: 'zebrafish elsewhere' }]);
      await append('sc-3', [{ role: 'user', content: 'zebrafish by tool' }]);
      const search = async (query: string) =>
        (await api.http().get(`/v1/search?q=zebrafish&profile=rt&titles=false&${query}`).set(admin)).body.items;
      const sources = (items: { source: string }[]) => [...new Set(items.map((hit) => hit.source))].sort();
      expect(sources(await search(''))).toEqual(['cli', 'telegram', 'tool']);
      expect(sources(await search('source=cli,tool&excludeSource=tool'))).toEqual(['cli']);
      expect(sources(await search('excludeSource=tool'))).toEqual(['cli', 'telegram']);
      const roles = await search('roles=assistant');
      expect(roles.map((hit: { role: string }) => hit.role)).toEqual(['assistant']);
      const [hit] = await search('roles=assistant&context=1');
      expect(hit).toMatchObject({ sessionId: 'sc-1', source: 'cli', model: 'm-cli', toolName: 'lookup' });
      expect(typeof hit.sessionStartedAt).toBe('string');
      expect(hit.context.map((message: { content: string }) => message.content)).toEqual([
        'before zebrafish',
        'zebrafish match',
        'after zebrafish',
      ]);
      // CJK goes to the substring index; the filters hold there too.
      await append('sc-2', [{ role: 'user', content: '记忆断裂在Telegram' }]);
      await append('sc-1', [{ role: 'user', content: '记忆断裂在CLI' }]);
      const cjk = await api
        .http()
        .get(`/v1/search?q=${encodeURIComponent('记忆断裂')}&profile=rt&titles=false&source=telegram`)
        .set(admin);
      expect(cjk.body.items.map((item: { source: string }) => item.source)).toEqual(['telegram']);
    });

    it('[session.time-precision] times are answered in milliseconds and follow the order of the calls', async () => {
      const first = (await create({ id: 'time-1' })).body;
      const second = (await create({ id: 'time-2' })).body;
      expect(first.startedAt).toMatch(/\.\d{3}Z$/);
      expect(Date.parse(second.startedAt)).toBeGreaterThanOrEqual(Date.parse(first.startedAt));
      await append('time-1', [{ role: 'user', content: 'at a time', timestamp: 1_777_383_653_123 }]);
      const [message] = (await api.http().get('/v1/sessions/time-1/messages').set(admin)).body.items;
      expect(message.timestamp).toBe(new Date(1_777_383_653_123).toISOString());
    });

    it('finds a message by its platform id', async () => {
      await create({ id: 'pmid-1' });
      await append('pmid-1', [
        { role: 'user', content: 'a', platformMessageId: 'tg-1' },
        { role: 'user', content: 'b' },
      ]);
      const found = await api.http().get('/v1/sessions/pmid-1/messages?platformMessageId=tg-1').set(admin);
      expect(found.body.items.map((message: { content: string }) => message.content)).toEqual(['a']);
      expect(
        (await api.http().get('/v1/sessions/pmid-1/messages?platformMessageId=none').set(admin)).body.items,
      ).toEqual([]);
    });

    it('sweeps one profile’s empty sessions when asked for that profile only', async () => {
      await create({ id: 'empty-a', profile: 'sweep-a' });
      await create({ id: 'empty-b', profile: 'sweep-b' });
      await end('empty-a', 'cli_close');
      await end('empty-b', 'cli_close');
      const dry = await api
        .http()
        .post('/v1/maintenance/empty-sweep')
        .set(admin)
        .send({ dryRun: true, profile: 'sweep-a' });
      expect(dry.body.candidates).toEqual(['empty-a']);
      const swept = await api.http().post('/v1/maintenance/empty-sweep').set(admin).send({ profile: 'sweep-a' });
      expect(swept.body.deletedIds).toEqual(['empty-a']);
      expect((await api.http().get('/v1/sessions/empty-b').set(admin)).status).toBe(200);
    });

    it('optimizes both search indexes on an administrator’s request, with the same hits after', async () => {
      await create({ id: 'opt-1' });
      await append('opt-1', [
        { role: 'user', content: 'needle alpha' },
        { role: 'user', content: 'needle beta' },
      ]);
      const before = (await api.http().get('/v1/search?q=needle&profile=rt').set(admin)).body.items;
      const optimized = await api.http().post('/v1/maintenance/search-optimize').set(admin).send({ vacuum: true });
      expect(optimized.status).toBe(200);
      expect(optimized.body.indexes).toBe(2);
      const after = (await api.http().get('/v1/search?q=needle&profile=rt').set(admin)).body.items;
      expect(after).toEqual(before);
      const member = bearer(await api.memberToken(['rt']));
      expect((await api.http().post('/v1/maintenance/search-optimize').set(member).send({})).status).toBe(403);
    });

    it('keeps the test hooks off unless the API is started with them', async () => {
      await create({ id: 'hook-off' });
      const refused = await api.http().patch('/v1/testing/sessions/hook-off').set(admin).send({ startedAt: 1 });
      expect(refused.status).toBe(404);
      expect(
        JSON.stringify(
          await api
            .http()
            .get('/openapi.json')
            .then((r) => r.body),
        ),
      ).not.toContain('/v1/testing');
    });
  });

  describe.skipIf(!available)(`the profile key/value store on ${dialect}`, () => {
    let api: ApiHarness;
    let admin: Record<string, string>;
    const meta = (profile: string, key = '') =>
      `/v1/profiles/${profile}/meta${key ? `/${encodeURIComponent(key)}` : ''}`;

    beforeAll(async () => {
      api = await bootApi(dialect);
      admin = bearer(api.adminToken);
      await api.http().post('/v1/profiles').set(admin).send({ name: 'kv' });
      await api.http().post('/v1/profiles').set(admin).send({ name: 'kv-other' });
    });
    afterAll(async () => api?.close());

    it('[profile.meta] writes, reads, lists by exact prefix and removes; owner-fenced', async () => {
      expect((await api.http().get(meta('kv', 'missing')).set(admin)).status).toBe(404);
      const written = await api.http().put(meta('kv', 'last_auto_prune')).set(admin).send({ value: '1700000000.5' });
      expect(written.status).toBe(200);
      expect((await api.http().get(meta('kv', 'last_auto_prune')).set(admin)).body).toMatchObject({
        key: 'last_auto_prune',
        value: '1700000000.5',
      });
      await api.http().put(meta('kv', 'route:a_1')).set(admin).send({ value: 'one' });
      await api.http().put(meta('kv', 'route:aX1')).set(admin).send({ value: 'two' });
      await api.http().put(meta('kv', 'route:b\nline')).set(admin).send({ value: 'three' });
      const listed = await api
        .http()
        .get(`${meta('kv')}?prefix=${encodeURIComponent('route:a_')}`)
        .set(admin);
      expect(listed.body.items.map((item: { key: string }) => item.key)).toEqual(['route:a_1']);
      const paged = await api
        .http()
        .get(`${meta('kv')}?prefix=route:&limit=2`)
        .set(admin);
      expect(paged.body.items).toHaveLength(2);
      const rest = await api
        .http()
        .get(`${meta('kv')}?prefix=route:&limit=2&cursor=${paged.body.nextCursor}`)
        .set(admin);
      expect(rest.body.items.map((item: { key: string }) => item.key)).toEqual(['route:b\nline']);
      expect((await api.http().delete(meta('kv', 'route:aX1')).set(admin)).status).toBe(204);
      expect((await api.http().delete(meta('kv', 'route:aX1')).set(admin)).status).toBe(404);
      const member = bearer(await api.memberToken(['kv-other']));
      expect((await api.http().get(meta('kv', 'last_auto_prune')).set(member)).status).toBe(404);
      expect((await api.http().put(meta('kv', 'x')).set(member).send({ value: 'y' })).status).toBe(404);
      expect((await api.http().put(meta('kv', 'bad\u0001key')).set(admin).send({ value: 'y' })).status).toBe(400);
    });

    it('[profile.meta-cas] of two writers racing from the same value exactly one wins; a removal can expect a value', async () => {
      const put = (key: string, body: Record<string, unknown>) => api.http().put(meta('kv', key)).set(admin).send(body);
      expect((await put('lock', { value: 'A', ifValue: null })).status).toBe(200);
      expect((await put('lock', { value: 'B', ifValue: null })).body.code).toBe('conflict');
      const racers = await Promise.all([
        put('lock', { value: 'C', ifValue: 'A' }),
        put('lock', { value: 'D', ifValue: 'A' }),
      ]);
      expect(racers.map((response) => response.status).sort()).toEqual([200, 409]);
      const holder = (await api.http().get(meta('kv', 'lock')).set(admin)).body.value;
      expect(['C', 'D']).toContain(holder);
      expect(
        (
          await api
            .http()
            .delete(`${meta('kv', 'lock')}?ifValue=A`)
            .set(admin)
        ).body.code,
      ).toBe('conflict');
      expect(
        (
          await api
            .http()
            .delete(`${meta('kv', 'lock')}?ifValue=${holder}`)
            .set(admin)
        ).status,
      ).toBe(204);
    });

    it('[profile.meta] follows a profile rename and goes with the profile’s identity', async () => {
      await api.http().post('/v1/profiles').set(admin).send({ name: 'kv-move' });
      await api.http().put(meta('kv-move', 'k')).set(admin).send({ value: 'v' });
      const renamed = await api.http().post('/v1/profiles/kv-move/rename').set(admin).send({ newName: 'kv-moved' });
      expect(renamed.body.counts.metaEntries).toBe(1);
      expect((await api.http().get(meta('kv-moved', 'k')).set(admin)).body.value).toBe('v');
      const deleted = await api.http().delete('/v1/profiles/kv-moved').set(admin);
      expect(deleted.body.counts.metaEntries).toBe(1);
      const left = await api.store.db
        .selectFrom('profile_meta')
        .selectAll()
        .where('profile', '=', 'kv-moved')
        .execute();
      expect(left).toEqual([]);
    });
  });

  describe.skipIf(!available)(`test hooks on ${dialect} (STATEHOUSE_TEST_HOOKS=1)`, () => {
    let api: ApiHarness;
    let admin: Record<string, string>;

    beforeAll(async () => {
      api = await bootApi(dialect, { STATEHOUSE_TEST_HOOKS: '1' });
      admin = bearer(api.adminToken);
    });
    afterAll(async () => api?.close());

    it('backdate a session and its messages without rules, for administrators only', async () => {
      await api.http().post('/v1/sessions').set(admin).send({ id: 'old', profile: 'hooks', source: 'cli' });
      await api
        .http()
        .post('/v1/sessions/old/messages')
        .set(admin)
        .send({ messages: [{ role: 'user', content: 'then' }] });
      const moved = await api
        .http()
        .patch('/v1/testing/sessions/old')
        .set(admin)
        .send({ startedAt: 1_700_000_000_000, endedAt: 1_700_000_100_000, endReason: 'done' });
      expect(moved.body).toEqual({ updated: 1 });
      const messages = await api
        .http()
        .patch('/v1/testing/messages')
        .set(admin)
        .send({ where: { sessionId: 'old', content: 'then' }, set: { timestamp: 1_700_000_050_000 } });
      expect(messages.body).toEqual({ updated: 1 });
      const session = (await api.http().get('/v1/sessions/old').set(admin)).body;
      expect(session).toMatchObject({
        startedAt: new Date(1_700_000_000_000).toISOString(),
        endedAt: new Date(1_700_000_100_000).toISOString(),
        endReason: 'other',
        endReasonDetail: 'done',
        lastActivityAt: new Date(1_700_000_050_000).toISOString(),
      });
      const shifted = await api.http().patch('/v1/testing/sessions/old').set(admin).send({ startedAtOffsetMs: -1000 });
      expect(shifted.status).toBe(200);
      expect((await api.http().get('/v1/sessions/old').set(admin)).body.startedAt).toBe(
        new Date(1_699_999_999_000).toISOString(),
      );
      const member = bearer(await api.memberToken(['hooks']));
      expect((await api.http().patch('/v1/testing/sessions/old').set(member).send({ startedAt: 1 })).status).toBe(403);
      expect((await api.http().patch('/v1/testing/sessions/nope').set(admin).send({ startedAt: 1 })).status).toBe(404);
    });
  });
}
