import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { SESSION_COOKIE_NAME } from '@statehouse/contracts';
import type { Clock, Dialect, ScryptParameters, StoreOptions } from '@statehouse/state';
import { openTestStore, type TestStore } from '@statehouse/state/testing';
import request, { type Test } from 'supertest';
import { afterAll, beforeAll, expect } from 'vitest';
import { createApp } from '../src/app.factory.js';
import { loadConfig } from '../src/config.js';
import { MetricsRegistry } from '../src/metrics/metrics.registry.js';
import { conformance } from './support/conformance.js';

export { TEST_DIALECTS } from '@statehouse/state/testing';

export interface ApiHarness {
  app: NestExpressApplication;
  store: TestStore['store'];
  /** The database URL (another store or process may open the same database). */
  url: string;
  /** supertest on the app; every response is checked against the committed OpenAPI document. */
  http: () => ReturnType<typeof request>;
  adminToken: string;
  /** A member token limited to `profiles`. */
  memberToken(profiles: string[], name?: string): Promise<string>;
  /** If-Match and X-Expected-Generation for a session as it is now (what a destructive call presents). */
  tokensOf(id: string): Promise<Record<string, string>>;
  /** POST /v1/sessions as the admin; the test fails unless it answers 201. Answers the created session. */
  // biome-ignore lint/suspicious/noExplicitAny: the session as JSON, read by the assertions.
  createSession(body: Record<string, unknown>): Promise<any>;
  /** The app on a real port (fetch streams what supertest would buffer): its base URL, the same on every call. */
  listening(): Promise<string>;
  /**
   * POST /v1/auth/login with `headers` on the request; the test fails unless it answers 204.
   * Answers the dashboard session cookie's `name=value`, as a browser sends it back.
   */
  signIn(username: string, password: string, headers?: Record<string, string>): Promise<string>;
  close(): Promise<void>;
}

export interface BootOptions {
  /** The store's clock (a ManualClock pins throttling windows and TTLs). */
  clock?: Clock;
  /** scrypt cost of new password hashes (test stores default to a cheap one). */
  passwordHashing?: ScryptParameters;
  /** More store options (a read deadline, …). */
  store?: Omit<StoreOptions, 'url'>;
}

/**
 * Boots the real AppModule against a fresh database of the given dialect (`env`: more
 * configuration, as the environment would give it; `options`: the store's clock, hashing cost and
 * other store options).
 */
export async function bootApi(
  dialect: Dialect,
  env: Record<string, string> = {},
  options: BootOptions = {},
): Promise<ApiHarness> {
  const testStore = await openTestStore(dialect, {
    // As the API starts (STATEHOUSE_APPEND_WRITER), and every append on the thread, lone ones too:
    // the whole HTTP contract of appends is checked through it (docs/architecture.md).
    ...(dialect === 'sqlite' ? { appendWriter: 'always' as const } : {}),
    ...options.store,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.passwordHashing ? { passwordHashing: options.passwordHashing } : {}),
  });
  const app = await createApp(
    {
      store: testStore.store,
      // Scheduled jobs stay off unless a test turns them on (they would run against every test's store).
      config: loadConfig({
        STATEHOUSE_DATABASE_URL: testStore.url,
        STATEHOUSE_RETENTION_INTERVAL_SECONDS: '0',
        STATEHOUSE_SWEEP_INTERVAL_SECONDS: '0',
        STATEHOUSE_RUN_JOBS: 'false',
        ...env,
      }),
      metrics: new MetricsRegistry(),
    },
    { logger: false },
  );
  const system = {
    principal: { kind: 'system' as const, id: 'test', name: 'test', role: 'admin' as const, profiles: '*' as const },
    channel: 'system' as const,
  };
  const admin = await testStore.store.auth.createToken(system, { name: 'admin', role: 'admin', profiles: '*' });
  const server = app.getHttpServer();
  let listening: Promise<string> | undefined;
  return {
    app,
    store: testStore.store,
    url: testStore.url,
    http: () => conforming(request(server)),
    adminToken: admin.token,
    async memberToken(profiles, name = 'member') {
      return (await testStore.store.auth.createToken(system, { name, role: 'member', profiles })).token;
    },
    async tokensOf(id) {
      const session = (await request(server).get(`/v1/sessions/${id}`).set(bearer(admin.token))).body;
      return { 'If-Match': `"${session.revision}"`, 'X-Expected-Generation': String(session.generation) };
    },
    async createSession(body) {
      const response = await conforming(request(server)).post('/v1/sessions').set(bearer(admin.token)).send(body);
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      return response.body;
    },
    async signIn(username, password, headers = {}) {
      const login = await conforming(request(server)).post('/v1/auth/login').set(headers).send({ username, password });
      expect(login.status, JSON.stringify(login.body)).toBe(204);
      return sessionCookie(login.headers['set-cookie']).split(';')[0];
    },
    listening() {
      listening ??= new Promise((resolve) => {
        server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
      });
      return listening;
    },
    async close() {
      await app.close();
      await testStore.close();
    },
  };
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** The dashboard session cookie a response sets, with its attributes; the test fails without one. */
export function sessionCookie(setCookie: string[] | string | undefined): string {
  const cookies = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  const cookie = cookies.find((value) => value.startsWith(`${SESSION_COOKIE_NAME}=`));
  if (!cookie) throw new Error('no session cookie set');
  return cookie;
}

/** supertest's response parser that keeps the body as text (exports, event streams): `.buffer(true).parse(asText)`. */
// biome-ignore lint/suspicious/noExplicitAny: the two-argument form of supertest's parser, whatever its types name.
export const asText: Extract<Parameters<Test['parse']>[0], (res: any, callback: any) => void> = (res, done) => {
  let text = '';
  res.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  res.on('end', () => done(null, text));
};

/**
 * A suite's `create(id, extra)`: POST /v1/sessions of `defaults(id)` with `extra` over them, as the
 * admin, failing the test unless it answers 201.
 */
export function sessionMaker(api: ApiHarness, defaults: (id: string) => Record<string, unknown>) {
  return (id: string, extra: Record<string, unknown> = {}) => api.createSession({ id, ...defaults(id), ...extra });
}

export interface ApiSuite {
  /** The harness booted for the suite (usable inside its tests and hooks). */
  api: ApiHarness;
  /** The admin token's Authorization header, filled in when the app boots. */
  admin: Record<string, string>;
}

/**
 * The app for one `describe`: boots it (bootApi's arguments) before the suite's first test and
 * closes it after the last. `api` stands for the booted harness and `admin` for the admin token's
 * header, so the suite's helpers can close over both where they are declared; a `beforeAll`
 * declared after this call sees the app booted (seed data there).
 */
export function useApi(dialect: Dialect, env: Record<string, string> = {}, options: BootOptions = {}): ApiSuite {
  let booted: ApiHarness | undefined;
  const admin: Record<string, string> = {};
  beforeAll(async () => {
    booted = await bootApi(dialect, env, options);
    Object.assign(admin, bearer(booted.adminToken));
  });
  afterAll(async () => booted?.close());
  const api = new Proxy({} as ApiHarness, {
    get(_target, property) {
      if (!booted) throw new Error('the API boots in beforeAll: use it inside a test or a hook');
      return Reflect.get(booted, property);
    },
  });
  return { api, admin };
}

const HTTP_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'del', 'head', 'options']);

/**
 * supertest whose every response is checked against the committed OpenAPI document
 * (support/conformance.ts) before the test sees it: an undocumented status or problem code, a
 * missing header or a body that does not match fails the test that received it.
 */
export function conforming(agent: ReturnType<typeof request>): ReturnType<typeof request> {
  return new Proxy(agent, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof property !== 'string' || !HTTP_METHODS.has(property) || typeof value !== 'function') return value;
      const method = property === 'del' ? 'DELETE' : property.toUpperCase();
      return (url: string, ...rest: unknown[]) => checked(value.call(target, url, ...rest) as Test, method, url);
    },
  });
}

function checked(test: Test, method: string, url: string): Test {
  // `await`, `.then` and `.end(callback)` all finish through `end`: the check runs there.
  const end = test.end.bind(test);
  test.end = (callback) =>
    end((error, response) => {
      if (!error && response) {
        try {
          conformance.assert({
            method,
            url,
            status: response.status,
            headers: response.headers,
            body: /[/+]json/.test(String(response.headers['content-type'] ?? '')) ? response.body : undefined,
            // A stream a test read with its own parser (server-sent events) arrives as the body.
            text:
              typeof response.text === 'string'
                ? response.text
                : typeof response.body === 'string'
                  ? response.body
                  : undefined,
          });
        } catch (violation) {
          callback?.(violation as Error, response);
          return;
        }
      }
      callback?.(error, response);
    });
  return test;
}
