import { createServer, type Server } from 'node:http';
import { PROBLEM_REGISTRY, problemTypeUri } from '@statehouse/contracts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conforming } from './harness.js';
import { conformance, type ReceivedResponse } from './support/conformance.js';

/** The checker every API test's responses go through (support/conformance.ts) — proved to refuse. */

const problem = (code: keyof typeof PROBLEM_REGISTRY, extra: Record<string, unknown> = {}) => ({
  type: problemTypeUri(code),
  title: PROBLEM_REGISTRY[code].title,
  status: PROBLEM_REGISTRY[code].status,
  code,
  detail: 'x',
  ...extra,
});

const problemResponse = (
  method: string,
  url: string,
  body: ReturnType<typeof problem>,
  headers: Record<string, string> = {},
): ReceivedResponse => ({
  method,
  url,
  status: body.status,
  headers: { 'content-type': 'application/problem+json; charset=utf-8', 'x-request-id': 'r-1', ...headers },
  body,
});

describe('response conformance against the committed OpenAPI document', () => {
  it('accepts a documented problem with its members and headers', () => {
    expect(
      conformance.check(
        problemResponse('POST', '/v1/sessions/s-1/messages', problem('stale_generation', { currentGeneration: 3 })),
      ),
    ).toEqual([]);
  });

  it('refuses an undocumented status', () => {
    const [violation] = conformance.check(
      problemResponse('GET', '/v1/sessions/s-1', problem('revision_conflict', { currentRevision: 2 })),
    );
    expect(violation).toMatch(/status 412 .*is not documented/);
  });

  it('refuses a code the operation does not answer under a documented status', () => {
    // DELETE /v1/sessions/{id} documents 409, but not for delivery obligations.
    const violations = conformance.check(problemResponse('DELETE', '/v1/sessions/s-1', problem('delivery_claimed')));
    expect(violations.join('\n')).toMatch(/body/);
  });

  it('refuses a problem without the member its code always carries', () => {
    const violations = conformance.check(
      problemResponse('POST', '/v1/sessions/s-1/messages', problem('stale_generation')),
    );
    expect(violations.join('\n')).toMatch(/currentGeneration/);
  });

  it('refuses a missing required header', () => {
    const violations = conformance.check(
      problemResponse('GET', '/v1/sessions', problem('store_unavailable', { retryAfterSeconds: 1 })),
    );
    expect(violations.join('\n')).toMatch(/required header Retry-After is missing/);
  });

  it('refuses a body that does not match the success schema, and an undocumented content type', () => {
    const base = { method: 'GET', url: '/healthz', status: 200 };
    expect(
      conformance.check({
        ...base,
        headers: { 'content-type': 'application/json', 'x-request-id': 'r' },
        body: { status: 'ok' },
      }),
    ).toEqual([]);
    expect(
      conformance
        .check({ ...base, headers: { 'content-type': 'application/json', 'x-request-id': 'r' }, body: { up: true } })
        .join('\n'),
    ).toMatch(/body/);
    expect(
      conformance
        .check({ ...base, headers: { 'content-type': 'text/html', 'x-request-id': 'r' }, text: '<p>' })
        .join(''),
    ).toMatch(/content type text\/html is not documented/);
  });

  it('checks the events of a stream it read', () => {
    const stream = (text: string): ReceivedResponse => ({
      method: 'GET',
      url: '/v1/deletion-receipts/watch?after=0',
      status: 200,
      headers: { 'content-type': 'text/event-stream; charset=utf-8', 'x-request-id': 'r', 'cache-control': 'no-cache' },
      text,
    });
    expect(conformance.check(stream('event: bookmark\nid: 3\ndata: {"highWater":3}\n\n: keepalive\n\n'))).toEqual([]);
    expect(conformance.check(stream('event: surprise\ndata: {}\n\n')).join('')).toMatch(/"surprise" is not documented/);
    expect(conformance.check(stream('event: bookmark\ndata: {"highWater":"x"}\n\n')).join('')).toMatch(/data/);
  });

  it('routes as Express does: a trailing slash and another case reach the same operation', () => {
    const list = (url: string): ReceivedResponse => ({
      method: 'GET',
      url,
      status: 200,
      headers: { 'content-type': 'application/json', 'x-request-id': 'r' },
      body: { items: [], nextCursor: null, prevCursor: null, total: { count: 0, exact: true } },
    });
    expect(conformance.match('GET', '/v1/sessions/')?.template).toBe('/v1/sessions');
    expect(conformance.match('GET', '/V1/Sessions')?.template).toBe('/v1/sessions');
    expect(conformance.check(list('/v1/sessions/')).join('')).not.toMatch(/does not describe/);
  });

  it('holds a path no operation serves to a 404 problem', () => {
    expect(conformance.check(problemResponse('GET', '/v1/nothing', problem('not_found')))).toEqual([]);
    expect(
      conformance.check({ method: 'GET', url: '/v1/nothing', status: 200, headers: {}, body: {} }).join(''),
    ).toMatch(/does not describe/);
  });

  describe('wired into the harness’s supertest', () => {
    let server: Server;
    beforeAll(async () => {
      // Answers GET /healthz with a body the document does not allow.
      server = createServer((_request, response) => {
        response.setHeader('content-type', 'application/json');
        response.setHeader('x-request-id', 'r');
        response.end(JSON.stringify({ status: 'sideways', extra: 1 }));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('fails the request that received a non-conforming response', async () => {
      await expect(conforming(request(server)).get('/healthz')).rejects.toThrow(/does not conform/);
    });
  });
});
