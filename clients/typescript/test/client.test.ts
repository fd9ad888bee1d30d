import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStatehouseClient, isProblem, StatehouseNetworkError, StatehouseProblemError } from '../src/index.js';
import { type RealApi, seedSession, startRealApi, TEST_DIALECTS } from './support/api.js';

/** A fetch that records what it sent and can replace or lose answers, in front of the real one. */
function recordingFetch(
  behave: (request: Request, attempt: number) => 'pass' | 'drop-answer' | Response = () => 'pass',
) {
  const sent: { method: string; url: string; headers: Headers }[] = [];
  const fetcher = async (request: Request): Promise<Response> => {
    sent.push({ method: request.method, url: request.url, headers: new Headers(request.headers) });
    const decision = behave(request, sent.length);
    if (decision instanceof Response) return decision;
    const response = await fetch(request);
    if (decision === 'drop-answer') {
      // The server committed; the answer is lost on the way back (a reset connection).
      await response.arrayBuffer();
      throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
    }
    return response;
  };
  return { fetch: fetcher, sent };
}

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`@statehouse/client against the real API on ${dialect}`, () => {
    let api: RealApi;

    beforeAll(async () => {
      api = await startRealApi(dialect);
    });
    afterAll(async () => api?.stop());

    it('sends the bearer token (a string or a function asked per call); without one the API answers a typed 401', async () => {
      const anonymous = createStatehouseClient({ baseUrl: api.base });
      const refused = await anonymous.GET('/v1/auth/me').catch((error: unknown) => error);
      expect(isProblem(refused, 'unauthenticated')).toBe(true);
      expect((refused as StatehouseProblemError).status).toBe(401);

      let asked = 0;
      const client = createStatehouseClient({
        baseUrl: `${api.base}/`,
        token: async () => {
          asked++;
          return api.adminToken;
        },
      });
      const me = await client.GET('/v1/auth/me');
      expect(me).toMatchObject({ role: 'admin' });
      await client.GET('/v1/auth/me');
      expect(asked).toBe(2);
    });

    it('runs openapi-fetch middleware on every call: a header set there reaches the API', async () => {
      const seen: string[] = [];
      const client = createStatehouseClient({
        baseUrl: api.base,
        middleware: [
          {
            onRequest({ request }) {
              request.headers.set('Authorization', `Bearer ${api.adminToken}`);
            },
            onResponse({ response }) {
              seen.push(`${response.status} ${response.headers.get('x-request-id') ? 'with' : 'without'} a request id`);
            },
          },
        ],
      });
      await expect(client.GET('/v1/auth/me')).resolves.toMatchObject({ role: 'admin' });
      expect(seen).toEqual(['200 with a request id']);
    });

    it('throws problem answers as StatehouseProblemError, discriminated on code, with their extension members', async () => {
      const client = createStatehouseClient({ baseUrl: api.base, token: api.adminToken });
      const missing = await client
        .GET('/v1/sessions/{id}', { params: { path: { id: 'nope' } } })
        .catch((error: unknown) => error);
      expect(missing).toBeInstanceOf(StatehouseProblemError);
      expect(missing).toMatchObject({ code: 'not_found', status: 404, synthesized: false });
      expect((missing as StatehouseProblemError).requestId).toMatch(/.+/);

      const invalid = await client
        .POST('/v1/sessions', { body: { id: 'bad id!', profile: 'alpha', source: 'cli' } as never })
        .catch((error: unknown) => error);
      if (!isProblem(invalid)) throw invalid;
      switch (invalid.code) {
        case 'validation_failed':
          expect(invalid.problem.issues?.length).toBeGreaterThan(0);
          break;
        default:
          throw new Error(`expected validation_failed, got ${invalid.code}`);
      }

      await seedSession(api, 'problem-1');
      const stale = await client
        .PATCH('/v1/sessions/{id}', {
          params: { path: { id: 'problem-1' }, header: { 'If-Match': '"999"' } },
          body: { title: 'x' },
        })
        .catch((error: unknown) => error);
      if (!isProblem(stale, 'revision_conflict')) throw stale;
      expect(stale.problem.currentRevision).toBe(1);
    });

    it('an error answer that is no problem document (a proxy page) becomes a synthesized problem by status', async () => {
      const { fetch } = recordingFetch(
        () => new Response('<html>bad gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } }),
      );
      const client = createStatehouseClient({ baseUrl: api.base, token: api.adminToken, fetch });
      const error = await client.GET('/v1/auth/me').catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'internal_error', status: 502, synthesized: true });
      expect((error as StatehouseProblemError).problem.detail).toContain('bad gateway');
    });

    it('a retry after a lost answer reuses its Idempotency-Key: the API replays, the message is written once', async () => {
      await seedSession(api, 'idem-1');
      const { fetch, sent } = recordingFetch((request, attempt) =>
        request.method === 'POST' && attempt === 1 ? 'drop-answer' : 'pass',
      );
      const client = createStatehouseClient({ baseUrl: api.base, token: api.adminToken, fetch });
      const { data, response } = await client.exchange('post', '/v1/sessions/{id}/messages', {
        params: { path: { id: 'idem-1' } },
        body: { messages: [{ role: 'user', content: 'only once' }] },
      });
      expect(sent).toHaveLength(2);
      const keys = sent.map((request) => request.headers.get('idempotency-key'));
      expect(keys[0]).toMatch(/.+/);
      expect(keys[1]).toBe(keys[0]);
      expect(response.headers.get('idempotent-replayed')).toBe('true');
      expect(data.created).toBe(1);
      const transcript = await client.GET('/v1/sessions/{id}/messages', { params: { path: { id: 'idem-1' } } });
      expect(transcript.items.map((message) => message.content)).toEqual(['only once']);
    });

    it('an append the API deduplicates itself (platformMessageId on every message) is retried without a key', async () => {
      await seedSession(api, 'idem-3');
      const { fetch, sent } = recordingFetch((request, attempt) =>
        request.method === 'POST' && attempt === 1 ? 'drop-answer' : 'pass',
      );
      const client = createStatehouseClient({ baseUrl: api.base, token: api.adminToken, fetch });
      const answer = await client.POST('/v1/sessions/{id}/messages', {
        params: { path: { id: 'idem-3' } },
        body: { messages: [{ role: 'user', content: 'deduplicated', platformMessageId: 'tg-1' }] },
      });
      expect(sent).toHaveLength(2);
      expect(sent.map((request) => request.headers.get('idempotency-key'))).toEqual([null, null]);
      // The retry found the stored row: nothing new was created, and the transcript holds it once.
      expect(answer.created).toBe(0);
      const transcript = await client.GET('/v1/sessions/{id}/messages', { params: { path: { id: 'idem-3' } } });
      expect(transcript.items.map((message) => message.content)).toEqual(['deduplicated']);

      // With usage the repeat would count twice: such an append gets a key.
      const counted = recordingFetch();
      await createStatehouseClient({ baseUrl: api.base, token: api.adminToken, fetch: counted.fetch }).POST(
        '/v1/sessions/{id}/messages',
        {
          params: { path: { id: 'idem-3' } },
          body: {
            messages: [{ role: 'assistant', content: 'x', platformMessageId: 'tg-2' }],
            usage: { outputTokens: 3 },
          },
        },
      );
      expect(counted.sent[0].headers.get('idempotency-key')).toMatch(/.+/);
    });

    it('never retries a POST that carries no Idempotency-Key; GETs and PUTs are retried without one', async () => {
      await seedSession(api, 'idem-2');
      const lossy = recordingFetch((_, attempt) => (attempt === 1 ? 'drop-answer' : 'pass'));
      const client = createStatehouseClient({
        baseUrl: api.base,
        token: api.adminToken,
        fetch: lossy.fetch,
        idempotency: 'explicit',
      });
      const error = await client
        .POST('/v1/sessions/{id}/messages', {
          params: { path: { id: 'idem-2' } },
          body: { messages: [{ role: 'user', content: 'maybe written' }] },
        })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StatehouseNetworkError);
      expect(lossy.sent).toHaveLength(1);
      expect(lossy.sent[0].headers.get('idempotency-key')).toBeNull();
      // The effect happened once, and was not repeated by a retry.
      const reader = createStatehouseClient({ baseUrl: api.base, token: api.adminToken });
      const transcript = await reader.GET('/v1/sessions/{id}/messages', { params: { path: { id: 'idem-2' } } });
      expect(transcript.items).toHaveLength(1);

      const reads = recordingFetch((_, attempt) => (attempt === 1 ? 'drop-answer' : 'pass'));
      const retrying = createStatehouseClient({ baseUrl: api.base, token: api.adminToken, fetch: reads.fetch });
      await retrying.GET('/v1/sessions/{id}', { params: { path: { id: 'idem-2' } } });
      expect(reads.sent).toHaveLength(2);
    });

    it('a 429 is retried after its Retry-After (the login throttle of a real API)', async () => {
      const password = 'cross-process-admin';
      // Wrong passwords until the throttle refuses one: each failure past the fifth doubles the
      // wait after the latest (docs/security.md, Login throttling), so a refusal comes within a few
      // guesses however slow hashing is on a loaded machine.
      const guesser = createStatehouseClient({ baseUrl: api.base, retry: false });
      let refusal: unknown;
      for (let i = 0; i < 12 && !refusal; i++) {
        const wrong = await guesser
          .POST('/v1/auth/login', { body: { username: 'admin', password: `wrong-${i}` } })
          .catch((error: unknown) => error);
        if (isProblem(wrong, 'rate_limited')) refusal = wrong;
        else expect(isProblem(wrong, 'unauthenticated')).toBe(true);
      }
      if (!isProblem(refusal, 'rate_limited')) throw new Error('the login throttle never refused');
      expect(refusal.retryAfterSeconds).toBeGreaterThanOrEqual(1);

      const { fetch, sent } = recordingFetch();
      const seen: number[] = [];
      const patient = createStatehouseClient({
        baseUrl: api.base,
        fetch: async (request) => {
          const response = await fetch(request);
          seen.push(response.status);
          return response;
        },
      });
      const started = Date.now();
      await patient.POST('/v1/auth/login', { body: { username: 'admin', password } });
      expect(seen[0]).toBe(429);
      expect(seen.at(-1)).toBe(204);
      expect(sent.length).toBeGreaterThanOrEqual(2);
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    });

    it('a 503 with Retry-After is waited out and retried; one asking longer than maxRetryAfterMs is thrown', async () => {
      const unavailable = () =>
        new Response(
          JSON.stringify({
            type: 'about:blank',
            title: 'Store unavailable',
            status: 503,
            code: 'store_unavailable',
            detail: 'the database is locked',
            retryAfterSeconds: 1,
          }),
          { status: 503, headers: { 'content-type': 'application/problem+json', 'retry-after': '1' } },
        );
      const once = recordingFetch((_, attempt) => (attempt === 1 ? unavailable() : 'pass'));
      const client = createStatehouseClient({ baseUrl: api.base, token: api.adminToken, fetch: once.fetch });
      const started = Date.now();
      await client.GET('/v1/auth/me');
      expect(once.sent).toHaveLength(2);
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);

      const always = recordingFetch(() => unavailable());
      const impatient = createStatehouseClient({
        baseUrl: api.base,
        token: api.adminToken,
        fetch: always.fetch,
        retry: { maxRetryAfterMs: 500 },
      });
      const error = await impatient.GET('/v1/auth/me').catch((caught: unknown) => caught);
      if (!isProblem(error, 'store_unavailable')) throw error;
      expect(error.retryAfterSeconds).toBe(1);
      expect(always.sent).toHaveLength(1);
    });

    it('an attempt without an answer within timeoutMs is a StatehouseNetworkError marked timedOut', async () => {
      const slow = async (request: Request) => {
        await new Promise((resolve, reject) => {
          const timer = setTimeout(resolve, 2_000);
          request.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(request.signal.reason);
          });
        });
        return fetch(request);
      };
      const client = createStatehouseClient({
        baseUrl: api.base,
        token: api.adminToken,
        fetch: slow,
        timeoutMs: 100,
        retry: false,
      });
      const error = await client.GET('/v1/auth/me').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StatehouseNetworkError);
      expect((error as StatehouseNetworkError).timedOut).toBe(true);
    });
  });
}
