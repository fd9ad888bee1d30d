import { connect } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS, useApi } from './harness.js';

/**
 * Crafted input that PostgreSQL answered with 500 while SQLite answered 4xx, or that the two
 * dialects stored differently (docs/security.md, "Input hygiene"). Every case must be a 4xx
 * problem document on both, or store the same value on both.
 */

/** A keyset cursor as the server would encode it, but holding whatever the attacker chose. */
const forgedCursor = (parts: unknown[]) => Buffer.from(JSON.stringify(parts)).toString('base64url');

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Sends bytes no HTTP client library would, and returns what came back before the server closed. */
function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request, 'latin1'));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  });
}

function expectProblem(response: { status: number; headers: Record<string, string>; body: { code?: string } }) {
  expect(response.status, JSON.stringify(response.body)).toBeGreaterThanOrEqual(400);
  expect(response.status, JSON.stringify(response.body)).toBeLessThan(500);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(response.body.code).toBe('validation_failed');
}

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`crafted input on ${dialect}`, () => {
    const { api, admin } = useApi(dialect);

    beforeAll(async () => {
      await api.createSession({
        id: 'in-1',
        profile: 'alpha',
        source: 'cli',
        messages: [{ role: 'user', content: 'needle text' }],
      });
    });

    it('refuses a NUL byte in a path, a query or a header value with 400', async () => {
      expectProblem(await api.http().get('/v1/deletion-receipts/op%00id').set(admin));
      expectProblem(await api.http().get('/v1/sessions/in%00-1').set(admin));
      expectProblem(await api.http().get('/v1/sessions?source=cli%00').set(admin));
      expectProblem(await api.http().get('/v1/search?q=needle%00').set(admin));
      expectProblem(await api.http().get('/v1/routes?profile=alpha&sessionId=a%00b').set(admin));
    });

    it('answers requests that are not HTTP (a NUL in a header value) with a 400 problem document', async () => {
      const server = api.app.getHttpServer();
      if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const answer = await rawExchange(
        server.address().port,
        `GET /v1/sessions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${api.adminToken}\r\nIdempotency-Key: a\u0000b\r\n\r\n`,
      );
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer).toMatch(/content-type: application\/problem\+json/i);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({
        status: 400,
        code: 'validation_failed',
      });
    });

    it('refuses an operation id that is not an id', async () => {
      expectProblem(
        await api
          .http()
          .get(`/v1/deletion-receipts/${'x'.repeat(300)}`)
          .set(admin),
      );
      expectProblem(await api.http().get('/v1/deletion-receipts/a%20b').set(admin));
    });

    it('[security.bounded-input] refuses forged cursors (fractions, huge numbers, NUL, wrong types) on every keyset list', async () => {
      const forged = [
        [1.5, 'in-1'],
        [1e300, 'in-1'],
        [-1, 'in-1'],
        [MAX_SAFE + 2, 'in-1'],
        [1, 'in\u0000-1'],
        [1, 'x'.repeat(5000)],
        ['1', 'in-1'],
        [1, 1],
        [1, 'in-1', 'extra'],
      ];
      for (const parts of forged) {
        expectProblem(
          await api
            .http()
            .get(`/v1/sessions?cursor=${forgedCursor(parts)}`)
            .set(admin),
        );
      }
      for (const mode of ['word', 'substring', 'auto']) {
        for (const parts of [
          ['w', 1.5, 1.5],
          ['w', 0, 1e300],
          ['s', 1e300, 1],
          ['w', 0, MAX_SAFE + 2],
          ['w\u0000', 0, 1],
          ['x', 0, 1],
          ['s', 0, '\u0000'],
          ['w', null, 1],
        ]) {
          expectProblem(
            await api
              .http()
              .get(`/v1/search?q=needle&mode=${mode}&cursor=${forgedCursor(parts)}`)
              .set(admin),
          );
        }
      }
      for (const parts of [['alpha\u0000', 'key'], ['alpha', 'key\u0000'], [1.5, 'key'], ['alpha', 1e300], ['alpha']]) {
        expectProblem(
          await api
            .http()
            .get(`/v1/routes?cursor=${forgedCursor(parts)}`)
            .set(admin),
        );
      }
      for (const parts of [[1.5], [1e300], [-3], ['\u0000'], [MAX_SAFE + 2]]) {
        expectProblem(
          await api
            .http()
            .get(`/v1/sessions/in-1/messages?cursor=${forgedCursor(parts)}`)
            .set(admin),
        );
      }
      // A cursor that is not base64 JSON at all.
      expectProblem(await api.http().get('/v1/sessions?cursor=AAAA').set(admin));
    });

    it('bounds usage counters per call (tokens ≤ 2^31, cost finite and ≤ 10^9) and refuses more with 400', async () => {
      const append = (usage: Record<string, number>) =>
        api
          .http()
          .post('/v1/sessions/in-1/messages')
          .set(admin)
          .send({ messages: [{ role: 'assistant', content: 'ok' }], usage });
      for (let attempt = 0; attempt < 2; attempt++) expectProblem(await append({ estimatedCostUsd: 1e308 }));
      expectProblem(await append({ inputTokens: MAX_SAFE }));
      expectProblem(await append({ outputTokens: 2 ** 31 + 1 }));
      expectProblem(await append({ estimatedCostUsd: 1e9 + 1 }));
      expectProblem(
        await api
          .http()
          .post('/v1/sessions/in-1/messages')
          .set(admin)
          .send({ messages: [{ role: 'assistant', content: 'ok', tokenCount: 2 ** 31 + 1 }] }),
      );
      expect((await append({ inputTokens: 2 ** 31, estimatedCostUsd: 1e9 })).status).toBe(201);
      const session = await api.http().get('/v1/sessions/in-1').set(admin);
      expect(session.body).toMatchObject({ inputTokens: 2 ** 31, estimatedCostUsd: 1e9 });
    });

    it('saturates session totals at their documented ceiling instead of overflowing', async () => {
      await api.createSession({ id: 'in-sat', profile: 'alpha', source: 'cli' });
      // Totals near the ceiling, as years of heavy use would leave them.
      await api.store.db
        .updateTable('sessions')
        .set({ input_tokens: MAX_SAFE - 10, estimated_cost_usd: 1e15 - 1 })
        .where('id', '=', 'in-sat')
        .execute();
      for (let call = 0; call < 2; call++) {
        const appended = await api
          .http()
          .post('/v1/sessions/in-sat/messages')
          .set(admin)
          .send({
            messages: [{ role: 'assistant', content: 'ok' }],
            usage: { inputTokens: 2 ** 31, estimatedCostUsd: 1e9 },
          });
        expect(appended.status).toBe(201);
      }
      const session = await api.http().get('/v1/sessions/in-sat').set(admin);
      expect(session.body.inputTokens).toBe(MAX_SAFE);
      expect(Number.isSafeInteger(session.body.inputTokens)).toBe(true);
      expect(session.body.estimatedCostUsd).toBe(1e15);
    });

    it('answers an out-of-range Last-Event-ID with a 400 problem before the stream opens', async () => {
      for (const value of ['99999999999999999999', '-1', '1.5', 'abc', '9007199254740993']) {
        const response = await api
          .http()
          .get('/v1/deletion-receipts/watch?after=0')
          .set(admin)
          .set('Last-Event-ID', value);
        expectProblem(response);
      }
    });

    it('stores lone surrogates the same way on both dialects (as U+FFFD)', async () => {
      const created = await api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .set('Content-Type', 'application/json')
        .send(
          '{"id":"in-sur","profile":"alpha","source":"cli","title":"a\\ud800b","origin":{"k\\udc00":"v\\ud83d"},' +
            '"messages":[{"role":"user","content":"x\\udfffy"}]}',
        );
      expect(created.status).toBe(201);
      const session = await api.http().get('/v1/sessions/in-sur').set(admin);
      expect(session.body.title).toBe('a\uFFFDb');
      expect(session.body.origin).toEqual({ 'k\uFFFD': 'v\uFFFD' });
      const messages = await api.http().get('/v1/sessions/in-sur/messages').set(admin);
      expect(messages.body.items[0].content).toBe('x\uFFFDy');
    });

    it('replaces NUL in JSON bodies with U+FFFD on both dialects', async () => {
      await api.createSession({
        id: 'in-nul',
        profile: 'alpha',
        source: 'cli',
        messages: [{ role: 'user', content: 'a\u0000b' }],
      });
      const messages = await api.http().get('/v1/sessions/in-nul/messages').set(admin);
      expect(messages.body.items[0].content).toBe('a\uFFFDb');
    });
  });
}
