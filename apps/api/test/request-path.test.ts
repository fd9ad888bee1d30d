import { SESSION_COOKIE_NAME } from '@statehouse/contracts';
import type { Express } from 'express';
import helmet from 'helmet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJsonBody } from '../src/common/json-body.js';
import { serverClasses } from '../src/common/json-reply.adapter.js';
import { precomputeHeaders, securityHeaders } from '../src/common/security-headers.js';
import { MetricsRegistry } from '../src/metrics/metrics.registry.js';
import { type ApiHarness, bearer, bootApi } from './harness.js';

/**
 * The thinner request path (docs/benchmarks.md, figure 10): the guard reads its route metadata once
 * per handler, the security headers are computed once, the metrics key series without building
 * label text. Each keeps the behaviour it replaces.
 */

describe('precomputed security headers', () => {
  it('are exactly what helmet sets on a request, for both HTTP and HTTPS deployments', () => {
    for (const https of [false, true]) {
      const perRequest = new Map<string, string>();
      const response = {
        setHeader: (name: string, value: unknown) => perRequest.set(name, String(value)),
        removeHeader: (name: string) => perRequest.delete(name),
        getHeader: (name: string) => perRequest.get(name),
      };
      securityHeaders({ https })(
        { headers: {}, method: 'GET', url: '/v1/sessions/x' } as never,
        response as never,
        () => {
          /* continues */
        },
      );
      expect(new Map(precomputeHeaders(securityHeaders({ https })))).toEqual(perRequest);
      expect(perRequest.has('Content-Security-Policy')).toBe(true);
      expect(perRequest.has('Strict-Transport-Security')).toBe(https);
    }
  });
  it('refuse a middleware that does not finish at once (a per-request value cannot be precomputed)', () => {
    expect(() => precomputeHeaders((_request, _response, next) => setTimeout(next, 0))).toThrow(/synchronously/);
    expect(precomputeHeaders(helmet({ contentSecurityPolicy: false })).length).toBeGreaterThan(0);
  });
});

describe('request metrics', () => {
  it('count series by method, route and status and render cumulative buckets', async () => {
    const metrics = new MetricsRegistry();
    metrics.recordRequest('GET', '/v1/sessions/:id', 200, 0.002);
    metrics.recordRequest('GET', '/v1/sessions/:id', 200, 0.02);
    metrics.recordRequest('GET', '/v1/sessions/:id', 404, 0.0005);
    metrics.recordRequest('GET', '/a"b', 200, 20);
    metrics.recordStoreOperation('select', 0.0001, false);
    metrics.recordStoreOperation('select', 0.0001, true);
    const text = await metrics.render();
    expect(text).toContain('statehouse_http_requests_total{method="GET",route="/v1/sessions/:id",status="200"} 2');
    expect(text).toContain('statehouse_http_requests_total{method="GET",route="/v1/sessions/:id",status="404"} 1');
    expect(text).toContain('statehouse_http_requests_total{method="GET",route="/a\\"b",status="200"} 1');
    // prom-client writes `le` first (the order of labels carries no meaning).
    const bucket = (le: string) =>
      `statehouse_http_request_duration_seconds_bucket{le="${le}",method="GET",route="/v1/sessions/:id"}`;
    expect(text).toContain(`${bucket('0.001')} 1`);
    expect(text).toContain(`${bucket('0.0025')} 2`);
    expect(text).toContain(`${bucket('0.025')} 3`);
    expect(text).toContain(`${bucket('+Inf')} 3`);
    // Beyond the last bucket: only in +Inf.
    expect(text).toContain('statehouse_http_request_duration_seconds_bucket{le="10",method="GET",route="/a\\"b"} 0');
    expect(text).toContain('statehouse_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/a\\"b"} 1');
    expect(text).toContain('statehouse_store_query_duration_seconds_count{operation="select"} 2');
    expect(text).toContain('statehouse_store_query_errors_total 1');
    // Node's own process metrics come along (prom-client's default metrics).
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    expect(text).toContain('# TYPE nodejs_heap_size_used_bytes gauge');
  });

  it('read the SQLite checkpointer and append writer figures at each scrape, absent without them', async () => {
    const metrics = new MetricsRegistry();
    const without = await metrics.render({});
    expect(without).not.toContain('statehouse_sqlite_');
    const first = await metrics.render({
      checkpoints: { failures: 2, busy: 5, truncations: 1, failing: true },
      appendWriter: { running: true, onThread: 40, inThread: 3, restarts: 1 },
      unroutableDue: [{ profile: 'p"1', count: 4 }],
    });
    expect(first).toContain('statehouse_sqlite_checkpoint_failures_total 2');
    expect(first).toContain('statehouse_sqlite_checkpoint_busy_total 5');
    expect(first).toContain('statehouse_sqlite_wal_truncations_total 1');
    expect(first).toContain('statehouse_sqlite_checkpoint_failing 1');
    expect(first).toContain('statehouse_sqlite_appends_total{thread="append_writer"} 40');
    expect(first).toContain('statehouse_sqlite_appends_total{thread="event_loop"} 3');
    expect(first).toContain('statehouse_sqlite_append_writer_restarts_total 1');
    expect(first).toContain('statehouse_sqlite_append_writer_running 1');
    expect(first).toContain('statehouse_schedules_unroutable_due{profile="p\\"1"} 4');
    // Totals the source keeps: the next scrape shows them as they are now, not added up.
    const second = await metrics.render({
      checkpoints: { failures: 2, busy: 6, truncations: 1, failing: false },
      appendWriter: { running: false, onThread: 41, inThread: 3, restarts: 1 },
      unroutableDue: null,
    });
    expect(second).toContain('statehouse_sqlite_checkpoint_failures_total 2');
    expect(second).toContain('statehouse_sqlite_checkpoint_busy_total 6');
    expect(second).toContain('statehouse_sqlite_checkpoint_failing 0');
    expect(second).toContain('statehouse_sqlite_appends_total{thread="append_writer"} 41');
    expect(second).toContain('statehouse_sqlite_append_writer_running 0');
    expect(second).not.toContain('statehouse_schedules_unroutable_due{');
  });
});

describe('the guard with its route metadata cached (SQLite)', () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await bootApi('sqlite');
    await api.store.sessions.create(
      { principal: { kind: 'system', id: 't', name: 't', role: 'admin', profiles: '*' }, channel: 'system' },
      { id: 'rp-1', profile: 'rp', source: 'cli' },
    );
  });
  afterAll(async () => api?.close());

  it('authenticates a bearer token from the header or the access_token query parameter', async () => {
    expect((await api.http().get('/v1/sessions/rp-1').set(bearer(api.adminToken))).status).toBe(200);
    expect((await api.http().get(`/v1/sessions/rp-1?access_token=${api.adminToken}`)).status).toBe(200);
  });
  it('answers 401 without credentials, with a wrong token, or with a token and an unknown cookie', async () => {
    expect((await api.http().get('/v1/sessions/rp-1')).status).toBe(401);
    expect((await api.http().get('/v1/sessions/rp-1').set(bearer('sh_nope'))).status).toBe(401);
    const unknownCookie = await api.http().get('/v1/sessions/rp-1').set('Cookie', `${SESSION_COOKIE_NAME}=nope`);
    expect(unknownCookie.status).toBe(401);
    expect(unknownCookie.headers['content-type']).toMatch(/problem\+json/);
  });
  it('answers a remembered bearer token without passport only where passport would read it the same way', async () => {
    const token = await api.memberToken(['rp'], 'remembered');
    const both = () => api.http().get(`/v1/sessions/rp-1?access_token=${token}`).set(bearer(token));
    const threeParts = () => api.http().get('/v1/sessions/rp-1').set('Authorization', `Bearer ${token} x`);
    const cold = [(await both()).status, (await threeParts()).status];
    expect(cold.every((status) => status !== 200)).toBe(true);
    // Remembered now (the store's principal cache): the same requests keep passport's answers.
    expect((await api.http().get('/v1/sessions/rp-1').set(bearer(token))).status).toBe(200);
    expect(api.store.auth.rememberedToken(token)).toBeDefined();
    expect([(await both()).status, (await threeParts()).status]).toEqual(cold);
    expect((await api.http().get('/v1/sessions/rp-1').set('Authorization', `bEaReR ${token}`)).status).toBe(200);
    // A member of another profile set: the remembered principal still carries its profiles.
    const other = bearer(await api.memberToken(['other'], 'other'));
    for (let i = 0; i < 2; i++) expect((await api.http().get('/v1/sessions/rp-1').set(other)).status).toBe(404);
  });
  it('keeps the security headers, the request id and no-store on every answer', async () => {
    const answer = await api.http().get('/v1/sessions/rp-1').set(bearer(api.adminToken)).set('X-Request-Id', 'rp-req');
    expect(answer.headers['x-request-id']).toBe('rp-req');
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect((await api.http().get('/v1/sessions/a%00b').set(bearer(api.adminToken))).status).toBe(400);
  });
});

describe('requests born with Express’s prototypes (SQLite)', () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await bootApi('sqlite');
  });
  afterAll(async () => api?.close());

  it('the API server builds each request and response with the app’s prototypes before Express sees them', async () => {
    const express = api.app.getHttpAdapter().getInstance<Express>();
    const server = api.app.getHttpServer() as import('node:http').Server;
    const seen: { request: unknown; response: unknown }[] = [];
    // Runs before Express's own listener: what the objects were born with.
    const watch = (request: object, response: object) =>
      seen.push({ request: Object.getPrototypeOf(request), response: Object.getPrototypeOf(response) });
    server.prependListener('request', watch);
    try {
      const answer = await api.http().get('/v1/auth/me').set(bearer(api.adminToken));
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ kind: 'token', role: 'admin' });
      // A POST with a JSON body and a problem answer go through the same objects.
      const invalid = await api.http().post('/v1/sessions').set(bearer(api.adminToken)).send({ id: 42 });
      expect(invalid.status).toBe(400);
      expect(invalid.headers['content-type']).toMatch(/problem\+json/);
    } finally {
      server.off('request', watch);
    }
    expect(seen.length).toBe(2);
    for (const born of seen) {
      expect(born.request).toBe(express.request);
      expect(born.response).toBe(express.response);
    }
  });

  it('serverClasses: Node’s request and response, with Express’s methods, on a bare server', async () => {
    const { default: createExpress } = await import('express');
    const app = createExpress();
    app.get('/x/:id', (request, response) => {
      response.status(201).json({ id: request.params.id, host: request.get('host'), query: request.query });
    });
    const { createServer } = await import('node:http');
    const server = createServer(serverClasses(app), app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as import('node:net').AddressInfo;
      const answer = await fetch(`http://127.0.0.1:${port}/x/7?a=b`);
      expect(answer.status).toBe(201);
      expect(await answer.json()).toEqual({ id: '7', host: `127.0.0.1:${port}`, query: { a: 'b' } });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('plain JSON bodies read without body-parser', () => {
  const bodies = [
    '{"a":1}',
    '\uFEFF{"a":"b"}',
    ' \n\t[1,"x",{"k":null}]',
    '{"nul":"a\\u0000b","lone":"x\\ud800y","pair":"\\ud83d\\ude00","k\\udc00":"v"}',
    '{"escaped backslash":"\\\\u0000 is text"}',
    '{"é":"ü — 数据库"}',
  ];
  it('give the value body-parser’s json() with the wellFormedJson reviver gives', async () => {
    const { default: bodyParser } = await import('body-parser');
    const { wellFormedJson } = await import('../src/common/request-hygiene.js');
    const { Readable } = await import('node:stream');
    const viaBodyParser = (text: string) =>
      new Promise<unknown>((resolve, reject) => {
        const buffer = Buffer.from(text);
        const request = Object.assign(Readable.from([buffer]), {
          headers: { 'content-type': 'application/json', 'content-length': String(buffer.length) },
        });
        bodyParser.json({ reviver: wellFormedJson })(request as never, {} as never, (error?: unknown) =>
          error ? reject(error) : resolve((request as unknown as { body: unknown }).body),
        );
      });
    for (const text of bodies) expect(parseJsonBody(Buffer.from(text))).toEqual(await viaBodyParser(text));
    expect(parseJsonBody(Buffer.from('{"nul":"a\\u0000b"}'))).toEqual({ nul: 'a\uFFFDb' });
    // Nested deeper than the reviver's recursion can go: a parse error either way, as before.
    for (const text of ['{nope', '"just a string"', '   ', '12', `${'['.repeat(5000)}${']'.repeat(5000)}`]) {
      await expect(viaBodyParser(text)).rejects.toMatchObject({ status: 400, type: 'entity.parse.failed' });
      expect(() => parseJsonBody(Buffer.from(text))).toThrow(
        expect.objectContaining({ status: 400, type: 'entity.parse.failed' }),
      );
    }
  });

  describe('over HTTP (SQLite)', () => {
    let api: ApiHarness;
    beforeAll(async () => {
      api = await bootApi('sqlite');
    });
    afterAll(async () => {
      await api?.close();
    });
    const post = (body: Buffer | string, headers: Record<string, string>) =>
      api.http().post('/v1/sessions').set(bearer(api.adminToken)).set(headers).send(body);

    it('leave other JSON types and other charsets to body-parser, which answers them as before', async () => {
      const json = (id: string) => JSON.stringify({ id, profile: 'alpha', source: 'cli' });
      expect((await post(json('pj-plain'), { 'Content-Type': 'application/json' })).status).toBe(201);
      expect((await post(json('pj-charset'), { 'Content-Type': 'application/json; charset=UTF-8' })).status).toBe(201);
      expect((await post(json('pj-vendor'), { 'Content-Type': 'application/vnd.x+json' })).status).toBe(201);
      const latin = await post(json('pj-latin'), { 'Content-Type': 'application/json; charset=latin1' });
      expect(latin.status).toBe(415);
      const malformed = await post('{nope', { 'Content-Type': 'application/json' });
      expect(malformed.status).toBe(400);
      expect(malformed.body.code).toBe('validation_failed');
      for (const id of ['pj-plain', 'pj-charset', 'pj-vendor']) {
        expect((await api.http().get(`/v1/sessions/${id}`).set(bearer(api.adminToken))).status).toBe(200);
      }
    });
  });
});

describe('JSON answers written by the adapter (SQLite)', () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await bootApi('sqlite');
  });
  afterAll(async () => {
    await api?.close();
  });

  it('carry the headers and bytes Express’s res.json gives, and keep its conditional and HEAD answers', async () => {
    const admin = bearer(api.adminToken);
    const created = await api
      .http()
      .post('/v1/sessions')
      .set(admin)
      .send({ id: 'jr-1', profile: 'alpha', source: 'cli' });
    expect(created.status).toBe(201);
    expect(created.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(created.headers['content-length'])).toBe(Buffer.byteLength(created.text));
    expect(created.headers.etag).toBe(`"${created.body.revision}"`);
    expect(created.headers['cache-control']).toBe('no-store');
    const appended = await api
      .http()
      .post('/v1/sessions/jr-1/messages')
      .set(admin)
      .send({ messages: [{ role: 'user', content: 'héllo — 数据库' }] });
    expect(appended.status).toBe(201);
    expect(appended.text).toBe(JSON.stringify(appended.body));
    expect(Number(appended.headers['content-length'])).toBe(Buffer.byteLength(appended.text));
    const read = await api.http().get('/v1/sessions/jr-1').set(admin);
    expect(read.status).toBe(200);
    expect(read.headers['content-type']).toBe('application/json; charset=utf-8');
    // A conditional GET still goes through Express, which answers 304 for the current entity tag.
    const again = await api.http().get('/v1/sessions/jr-1').set(admin).set('If-None-Match', read.headers.etag);
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    const head = await api.http().head('/v1/sessions/jr-1').set(admin);
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(read.headers['content-length']);
    // Problems keep their own content type (the filter writes them).
    const missing = await api.http().get('/v1/sessions/nope').set(admin);
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});
