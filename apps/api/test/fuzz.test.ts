import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { PROBLEM_CODES, SESSION_COOKIE_NAME } from '@statehouse/contracts';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, bearer, bootApi, TEST_DIALECTS } from './harness.js';
import { conformance } from './support/conformance.js';
import {
  conformingValueFor,
  forgedCursor,
  hostileHeaderValue,
  hostileJson,
  hostileString,
  type JsonSchema,
  valueFor,
} from './support/hostile.js';

/**
 * The API fuzzed from its own contract (docs/security.md, "Fuzzing"): for every operation in the
 * committed OpenAPI document, seeded fast-check generates hostile bodies, queries, headers, path
 * ids and cursors, as four kinds of caller. Whatever arrives, the answer is never ≥ 500, every
 * error is `application/problem+json` with a documented `code`, every answer conforms to the
 * document (status, content type, headers and body, as every API test's do: support/conformance.ts),
 * no body shows a stack trace or SQL, and the server still answers afterwards. Time-boxed per dialect.
 */

const FUZZ_SECONDS = Number(process.env.STATEHOUSE_FUZZ_SECONDS ?? 45);
const SEED = Number(process.env.STATEHOUSE_FUZZ_SEED ?? 20_261_130);
/** Debugging aid: collect every failure of the run (one line each) instead of stopping at the first. */
const REPORT_ALL = process.env.STATEHOUSE_FUZZ_REPORT === '1';

interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
  required?: boolean;
  schema?: JsonSchema;
}
interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body?: JsonSchema;
}

function operationsOf(document: {
  paths: Record<string, Record<string, { parameters?: Parameter[]; requestBody?: unknown }>>;
}): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const body = (operation.requestBody as { content?: Record<string, { schema?: JsonSchema }> } | undefined)
        ?.content?.['application/json']?.schema;
      operations.push({ method: method.toUpperCase(), path, parameters: operation.parameters ?? [], body });
    }
  }
  return operations;
}

const OPENAPI = JSON.parse(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8'));
const OPERATIONS = operationsOf(OPENAPI);

/** Text that would betray the server's insides in an error: SQL, driver codes, stack frames, files. */
const LEAKS = [
  /SQLITE_[A-Z]/,
  /syntax error/i,
  /invalid input syntax/i,
  /out of range for type/i,
  /violates [a-z -]*constraint/i,
  /relation "[^"]+"/,
  /\bselect\b[^"]{0,80}\bfrom\b/i,
  /\binsert into\b/i,
  /\bat [\w.<>$]+ \([^)]*:\d+:\d+\)/,
  /node_modules/,
  /\.(ts|js):\d+/,
];

/** Ids that exist, so some requests reach real rows; the rest are hostile. */
const KNOWN_IDS = ['fz-1', 'fz-2', 'fz-3', 'fz-child', 'alpha', 'beta', 'fz-consumer'];

type Caller = 'admin' | 'member' | 'cookie' | 'anonymous';

interface FuzzRequest {
  operation: Operation;
  caller: Caller;
  path: string;
  query: [string, string][];
  headers: Record<string, string>;
  body: { kind: 'json'; value: unknown } | { kind: 'raw'; text: string; type: string } | { kind: 'none' };
}

/** encodeURIComponent, except that a lone surrogate (which it refuses) goes as its CESU bytes. */
const encodeSegment = (value: string) =>
  [...value]
    .map((char) => {
      try {
        return encodeURIComponent(char);
      } catch {
        return '%ED%A0%80';
      }
    })
    .join('');

const pathValue = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...KNOWN_IDS).map(encodeSegment) },
  { weight: 3, arbitrary: hostileString.map(encodeSegment) },
  // Raw sequences no client library would produce: a NUL, broken escapes, an encoded slash or lone surrogate.
  { weight: 1, arbitrary: fc.constantFrom('%00', 'a%00b', '%ZZ', '%ED%A0%80', '..%2F..', '%2F', '%C0%AF', '%25') },
);

function queryFor(operation: Operation): fc.Arbitrary<[string, string][]> {
  const declared = operation.parameters.filter((parameter) => parameter.in === 'query');
  const entries = declared.map((parameter) => {
    const value =
      parameter.name === 'cursor'
        ? forgedCursor
        : fc
            .oneof(
              { weight: 8, arbitrary: parameter.schema ? conformingValueFor(parameter.schema) : hostileString },
              { weight: 1, arbitrary: valueFor(parameter.schema) },
              { weight: 1, arbitrary: hostileString },
            )
            .map((chosen) => (typeof chosen === 'string' ? chosen : JSON.stringify(chosen)));
    const entry = value.map((chosen) => [parameter.name, String(chosen)] as [string, string]);
    if (parameter.required) return entry;
    // Optional parameters are usually left out (one bad value hides the rest); a cursor is usually present.
    return parameter.name === 'cursor'
      ? fc.option(entry, { nil: undefined, freq: 4 })
      : fc.option(entry, { nil: undefined, freq: 1 });
  });
  const extra = fc.oneof(
    { weight: 4, arbitrary: fc.constant([] as [string, string][]) },
    {
      weight: 1,
      arbitrary: fc.array(
        fc.tuple(
          fc.constantFrom('after', 'limit', 'cursor', 'q', 'profile', 'x', '__proto__', 'constructor'),
          hostileString,
        ),
        { minLength: 1, maxLength: 2 },
      ),
    },
  );
  return fc
    .tuple(fc.tuple(...entries), extra)
    .map(([chosen, more]) => [...chosen.filter((entry) => entry !== undefined), ...more]);
}

/** What a well-behaved client would send in these headers: small revisions and generations, ids. */
const plausibleHeaderValue = fc.oneof(
  fc.integer({ min: 0, max: 6 }).map((revision) => `"${revision}"`),
  fc.integer({ min: 0, max: 3 }).map(String),
  fc.constantFrom('fz-key-1', 'fz-key-2', 'same-origin'),
);

function headersFor(operation: Operation): fc.Arbitrary<Record<string, string>> {
  const declared = operation.parameters.filter((parameter) => parameter.in === 'header').map((p) => p.name);
  const names = [
    ...new Set([...declared, 'If-Match', 'X-Expected-Generation', 'Last-Event-ID', 'X-Turn-Id', 'X-Request-Id']),
  ];
  const extras = ['X-Forwarded-For', 'X-Forwarded-Host', 'X-Forwarded-Proto', 'Sec-Fetch-Site'];
  return fc
    .tuple(
      fc.subarray(names),
      fc.subarray(extras, { maxLength: 2 }),
      fc.array(fc.oneof({ weight: 2, arbitrary: plausibleHeaderValue }, { weight: 1, arbitrary: hostileHeaderValue }), {
        minLength: 7,
        maxLength: 7,
      }),
      // fetch itself refuses an Origin that is not an origin: only plausible ones, own and foreign.
      fc.option(fc.constantFrom('https://evil.example', 'null', 'http://127.0.0.1', 'http://localhost:1'), {
        nil: undefined,
      }),
    )
    .map(([chosen, extra, values, origin]) => {
      const headers: Record<string, string> = {};
      [...chosen, ...extra].forEach((name, index) => {
        headers[name] = values[index % values.length];
      });
      if (origin) headers.Origin = origin;
      return headers;
    });
}

function bodyFor(operation: Operation): fc.Arbitrary<FuzzRequest['body']> {
  const shaped = operation.body
    ? valueFor(operation.body).map((value) => ({ kind: 'json' as const, value }))
    : hostileJson.map((value) => ({ kind: 'json' as const, value }));
  return fc.oneof(
    { weight: 8, arbitrary: shaped },
    { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        { kind: 'raw' as const, text: '{"messages":[', type: 'application/json' },
        { kind: 'raw' as const, text: '{"a":1}', type: 'text/plain' },
        { kind: 'raw' as const, text: `${'['.repeat(5000)}${']'.repeat(5000)}`, type: 'application/json' },
        { kind: 'raw' as const, text: '{"__proto__":{"admin":true},"profile":"alpha"}', type: 'application/json' },
        { kind: 'raw' as const, text: '"just a string"', type: 'application/json' },
        { kind: 'raw' as const, text: '\u0000', type: 'application/json' },
        { kind: 'raw' as const, text: 'a=1&b=2', type: 'application/x-www-form-urlencoded' },
      ),
    },
  );
}

/**
 * Operations that take keyset cursors or bodies reach the most SQL with client-chosen values:
 * they are drawn more often than the fixed reads.
 */
const weightOf = (operation: Operation) =>
  operation.parameters.some((parameter) => parameter.name === 'cursor') ? 10 : operation.body ? 2 : 1;

/** Hostile requests to one operation. */
function requestFor(operation: Operation): fc.Arbitrary<FuzzRequest> {
  const pathNames = [...operation.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
  return fc.record({
    operation: fc.constant(operation),
    caller: fc.constantFrom<Caller>('admin', 'admin', 'member', 'cookie', 'anonymous'),
    path: fc
      .array(pathValue, { minLength: pathNames.length, maxLength: pathNames.length })
      .map((values) =>
        pathNames.reduce((path, name, index) => path.replace(`{${name}}`, values[index]), operation.path),
      ),
    query: queryFor(operation),
    headers: headersFor(operation),
    body: bodyFor(operation),
  });
}

const requestArbitrary: fc.Arbitrary<FuzzRequest> = fc
  .oneof(...OPERATIONS.map((operation) => ({ weight: weightOf(operation), arbitrary: fc.constant(operation) })))
  .chain(requestFor);

/**
 * Requests each operation gets before the time-boxed random phase, whatever the machine's speed:
 * every route of the document is exercised, not only those a loaded machine's draw happens to reach.
 */
const PER_OPERATION = Number(process.env.STATEHOUSE_FUZZ_PER_OPERATION ?? 3);

interface RawResponse {
  status: number;
  type: string;
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * One request over node:http (fetch normalises and refuses some of what a hostile client sends).
 * An event stream that opened is a success: it is closed without being read.
 */
function send(url: string, method: string, headers: Record<string, string>, body?: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const sized = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    // A fresh connection each time: nothing one request leaves behind can bend the next.
    const outgoing = httpRequest(url, { method, headers: sized, timeout: 15_000, agent: false }, (incoming) => {
      const type = String(incoming.headers['content-type'] ?? '');
      if (type.startsWith('text/event-stream')) {
        incoming.destroy();
        resolve({ status: incoming.statusCode ?? 0, type, text: '', headers: incoming.headers });
        return;
      }
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () =>
        resolve({
          status: incoming.statusCode ?? 0,
          type,
          text: Buffer.concat(chunks).toString('utf8'),
          headers: incoming.headers,
        }),
      );
      incoming.on('error', reject);
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error('no answer within 15 s')));
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

function describeRequest(request: FuzzRequest): string {
  const body = request.body.kind === 'json' ? JSON.stringify(request.body.value) : JSON.stringify(request.body);
  return `${request.operation.method} ${request.path}?${new URLSearchParams(request.query)} as ${request.caller}\nheaders ${JSON.stringify(request.headers)}\nbody ${body?.slice(0, 2000)}`;
}

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`fuzzing every operation of the OpenAPI document on ${dialect}`, () => {
    let api: ApiHarness;
    let base: string;
    const credentials: Record<Caller, Record<string, string>> = {
      admin: {},
      member: {},
      cookie: {},
      anonymous: {},
    };

    /** A dashboard session of the `fuzzer` admin, as its browser on the dashboard's origin sends it. */
    async function signIn(): Promise<void> {
      const login = await api
        .http()
        .post('/v1/auth/login')
        // From an address of its own: the fuzzer's random logins must not throttle this one.
        .set('X-Forwarded-For', '192.0.2.200')
        .send({ username: 'fuzzer', password: 'fuzzing password' })
        .expect(204);
      const cookie = (login.headers['set-cookie'] as unknown as string[])
        .find((value) => value.startsWith(`${SESSION_COOKIE_NAME}=`))!
        .split(';')[0];
      credentials.cookie = { Cookie: cookie, 'Sec-Fetch-Site': 'same-origin' };
    }

    /** Rows the fuzzer can hit by id, and a live dashboard session; renewed as the fuzzer removes them. */
    async function seed(): Promise<void> {
      await signIn();
      const admin = credentials.admin;
      for (const [id, profile] of [
        ['fz-1', 'alpha'],
        ['fz-2', 'alpha'],
        ['fz-3', 'beta'],
      ]) {
        await fetch(`${base}/v1/sessions`, {
          method: 'POST',
          headers: { ...admin, 'content-type': 'application/json' },
          body: JSON.stringify({
            id,
            profile,
            source: 'cli',
            sessionKey: `agent:${profile}:telegram:dm:${id}`,
            messages: [
              { role: 'user', content: `needle text of ${id}` },
              { role: 'assistant', content: 'an answer' },
            ],
          }),
        });
      }
      await fetch(`${base}/v1/sessions`, {
        method: 'POST',
        headers: { ...admin, 'content-type': 'application/json' },
        body: JSON.stringify({
          id: 'fz-child',
          profile: 'alpha',
          source: 'subagent',
          parentSessionId: 'fz-1',
          lineageKind: 'delegate',
        }),
      });
    }

    beforeAll(async () => {
      api = await bootApi(dialect);
      const server = api.app.getHttpServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${server.address().port}`;
      credentials.admin = bearer(api.adminToken);
      credentials.member = bearer(await api.memberToken(['alpha']));
      await api
        .http()
        .post('/v1/users')
        .set(credentials.admin)
        .send({ username: 'fuzzer', password: 'fuzzing password', role: 'admin', profiles: '*' })
        .expect(201);
      await seed();
      await fetch(`${base}/v1/sessions/fz-3`, {
        method: 'DELETE',
        headers: { ...credentials.admin, ...(await api.tokensOf('fz-3')) },
      });
      await fetch(`${base}/v1/receipt-consumers/fz-consumer`, {
        method: 'PUT',
        headers: { ...credentials.admin, 'content-type': 'application/json' },
        body: JSON.stringify({ cursor: 0 }),
      });
    });
    afterAll(async () => api?.close());

    it(
      `[security.bounded-input] answers every generated request with < 500 and a documented problem (${FUZZ_SECONDS} s, seed ${SEED})`,
      async () => {
        let runs = 0;
        const statuses = new Map<number, number>();
        const failures = new Map<string, string>();
        const fail = (kind: string, request: FuzzRequest, context: string) => {
          if (!REPORT_ALL) throw new Error(`${kind}\n${context}`);
          const key = `${kind}: ${request.operation.method} ${request.operation.path}`;
          if (!failures.has(key)) failures.set(key, context);
        };
        const perOperation = new Map<string, number>();
        const check = async (request: FuzzRequest) => {
          runs++;
          const key = `${request.operation.method} ${request.operation.path}`;
          perOperation.set(key, (perOperation.get(key) ?? 0) + 1);
          if (runs % 100 === 0) await seed();
          const headers: Record<string, string> = { ...request.headers, ...credentials[request.caller] };
          let body: string | undefined;
          if (request.body.kind === 'json' && !['GET', 'HEAD'].includes(request.operation.method)) {
            body = JSON.stringify(request.body.value) ?? 'null';
            headers['content-type'] = 'application/json';
          } else if (request.body.kind === 'raw' && !['GET', 'HEAD'].includes(request.operation.method)) {
            body = request.body.text;
            headers['content-type'] = request.body.type;
          }
          const query = request.query.length ? `?${new URLSearchParams(request.query)}` : '';
          let response: RawResponse;
          try {
            response = await send(`${base}${request.path}${query}`, request.operation.method, headers, body);
          } catch (error) {
            // The server dropped the connection instead of answering.
            return fail(`no answer (${(error as Error).message})`, request, describeRequest(request));
          }
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          const { type, text } = response;
          const context = `${describeRequest(request)}\n→ ${response.status} ${type}\n${text.slice(0, 1500)}`;
          if (response.status >= 500) return fail('server error', request, context);
          if (response.status >= 400) {
            if (!type.startsWith('application/problem+json')) return fail('not a problem document', request, context);
            // A HEAD answer has no body (RFC 9110 §9.3.2): the problem's headers are all there is.
            if (request.operation.method === 'HEAD') {
              if (text !== '') return fail('a HEAD answer with a body', request, context);
              return;
            }
            const problem = JSON.parse(text) as { code?: string; status?: number };
            if (!PROBLEM_CODES.includes(problem.code as (typeof PROBLEM_CODES)[number])) {
              return fail('undocumented problem code', request, context);
            }
            if (problem.status !== response.status) return fail('problem status differs', request, context);
            const leak = LEAKS.find((pattern) => pattern.test(text));
            if (leak) return fail(`error body leaks ${leak}`, request, context);
          }
          const violations = conformance.check({
            method: request.operation.method,
            url: `${request.path}${query}`,
            status: response.status,
            headers: response.headers,
            text: response.type.startsWith('text/event-stream') ? undefined : text,
          });
          if (violations.length > 0) return fail(`not as documented: ${violations.join('; ')}`, request, context);
        };
        const started = Date.now();
        // Every operation of the document first, a few generated requests each…
        for (const [index, operation] of OPERATIONS.entries()) {
          await fc.assert(fc.asyncProperty(requestFor(operation), check), {
            seed: SEED + index,
            numRuns: PER_OPERATION,
          });
        }
        // …then, for the rest of the time box, draws weighted towards what reaches the most SQL.
        await fc.assert(fc.asyncProperty(requestArbitrary, check), {
          seed: SEED,
          numRuns: 1_000_000,
          interruptAfterTimeLimit: Math.max(5_000, FUZZ_SECONDS * 1000 - (Date.now() - started)),
          markInterruptAsFailure: false,
        });
        console.info(
          `fuzz on ${dialect}: ${runs} requests, statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`,
        );
        expect([...failures].map(([key, context]) => `${key}\n${context}`).join('\n\n')).toBe('');
        // Not vacuous: many requests, and they reached the handlers (successes and refusals alike).
        // Every operation of the committed document was exercised, however loaded the machine.
        expect(OPERATIONS.length).toBeGreaterThan(50);
        expect(
          OPERATIONS.filter(
            (operation) => (perOperation.get(`${operation.method} ${operation.path}`) ?? 0) < PER_OPERATION,
          ),
        ).toEqual([]);
        expect(runs).toBeGreaterThanOrEqual(OPERATIONS.length * PER_OPERATION);
        expect([...statuses.keys()].some((status) => status >= 200 && status < 300)).toBe(true);
        expect([...statuses.keys()].filter((status) => status >= 400).length).toBeGreaterThan(3);

        // Still healthy afterwards.
        expect((await fetch(`${base}/healthz`)).status).toBe(200);
        expect((await fetch(`${base}/readyz`)).status).toBe(200);
        const list = await fetch(`${base}/v1/sessions`, { headers: credentials.admin });
        expect(list.status).toBe(200);
      },
      (FUZZ_SECONDS + 240) * 1000,
    );
  });
}
