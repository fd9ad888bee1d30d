import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildHermesScenario } from '@statehouse/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStatehouseClient, type ItemOf, type PaginatedPath, type StatehouseClient } from '../src/index.js';
import { type RealApi, seedSession, startRealApi, TEST_DIALECTS } from './support/api.js';
import { PAGINATED_LISTS } from './support/paginated.js';

const PROFILE = 'pages';

/** Every item the iterator yields, and how many pages it asked for. */
async function walk<P extends PaginatedPath>(
  client: StatehouseClient,
  requests: string[],
  iterate: (client: StatehouseClient) => AsyncIterable<ItemOf<P>>,
): Promise<{ items: ItemOf<P>[]; pages: number }> {
  const before = requests.length;
  const items: ItemOf<P>[] = [];
  for await (const item of iterate(client)) items.push(item);
  return { items, pages: requests.length - before };
}

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`async iterators over every cursor-paginated list on ${dialect}`, () => {
    let api: RealApi;
    let client: StatehouseClient;
    const requests: string[] = [];
    const covered = new Set<string>();
    const dir = mkdtempSync(join(tmpdir(), 'client-pages-'));

    beforeAll(async () => {
      api = await startRealApi(dialect, { STATEHOUSE_IMPORT_DIR: dir });
      client = createStatehouseClient({
        baseUrl: api.base,
        token: api.adminToken,
        fetch: (request) => {
          if (request.method === 'GET') requests.push(new URL(request.url).pathname);
          return fetch(request);
        },
      });
    });
    afterAll(async () => {
      await api?.stop();
      rmSync(dir, { recursive: true, force: true });
      // The list of lists this file walks is the one generated.test.ts compares with the document.
      expect([...covered].sort()).toEqual([...PAGINATED_LISTS].sort());
    });

    it('sessions, one page per item, in order and without repeats', async () => {
      for (const id of ['list-a', 'list-b', 'list-c']) await seedSession(api, id, { profile: PROFILE, messages: 1 });
      const { items, pages } = await walk(client, requests, (c) =>
        c.paginate('/v1/sessions', { params: { query: { profile: PROFILE, limit: 1 } } }),
      );
      expect(items.map((session) => session.id).sort()).toEqual(['list-a', 'list-b', 'list-c']);
      expect(pages).toBeGreaterThanOrEqual(3);
      covered.add('/v1/sessions');
    });

    it('messages of a session and full-text search', async () => {
      await seedSession(api, 'list-transcript', { profile: PROFILE, messages: 5 });
      const messages = await walk(client, requests, (c) =>
        c.paginate('/v1/sessions/{id}/messages', { params: { path: { id: 'list-transcript' }, query: { limit: 2 } } }),
      );
      expect(messages.items.map((message) => message.content)).toEqual(
        [1, 2, 3, 4, 5].map((n) => `list-transcript message ${n} about lighthouses`),
      );
      expect(messages.pages).toBe(3);
      covered.add('/v1/sessions/{id}/messages');

      const hits = await walk(client, requests, (c) =>
        c.paginate('/v1/search', { params: { query: { q: 'lighthouses', profile: PROFILE, limit: 2 } } }),
      );
      const ids = hits.items.map((hit) => hit.messageId);
      expect(new Set(ids).size).toBe(ids.length);
      // 5 in the transcript, 1 in each of list-a/b/c
      expect(ids.length).toBe(8);
      expect(hits.pages).toBe(4);
      covered.add('/v1/search');
    });

    it('routes, gateways and delivery obligations', async () => {
      for (const n of [1, 2, 3]) {
        await client.PUT('/v1/routes', {
          body: { profile: PROFILE, sessionKey: `agent:${PROFILE}:telegram:dm:${n}`, sessionId: 'list-a' },
        });
        await client.PUT('/v1/gateways/{id}/heartbeat', {
          params: { path: { id: `gw-${n}` } },
          body: { profile: PROFILE, host: 'host', pid: n, startedAt: new Date().toISOString() },
        });
        await client.POST('/v1/deliveries', {
          body: { id: `delivery-${n}`, sessionId: 'list-a', payload: { text: `reply ${n}` } },
        });
      }
      const routes = await walk(client, requests, (c) =>
        c.paginate('/v1/routes', { params: { query: { profile: PROFILE, limit: 1 } } }),
      );
      expect(routes.items.map((route) => route.sessionKey).sort()).toEqual(
        [1, 2, 3].map((n) => `agent:${PROFILE}:telegram:dm:${n}`),
      );
      covered.add('/v1/routes');
      const gateways = await walk(client, requests, (c) =>
        c.paginate('/v1/gateways', { params: { query: { profile: PROFILE, limit: 1 } } }),
      );
      expect(gateways.items.map((gateway) => gateway.id).sort()).toEqual(['gw-1', 'gw-2', 'gw-3']);
      covered.add('/v1/gateways');
      const deliveries = await walk(client, requests, (c) =>
        c.paginate('/v1/deliveries', { params: { query: { profile: PROFILE, limit: 1 } } }),
      );
      expect(deliveries.items.map((delivery) => delivery.id).sort()).toEqual([
        'delivery-1',
        'delivery-2',
        'delivery-3',
      ]);
      expect(deliveries.pages).toBeGreaterThanOrEqual(3);
      covered.add('/v1/deliveries');
    });

    it('the runtime lists: delegations, the profile key/value store, schedules (a session’s, a profile’s, the due ones)', async () => {
      await seedSession(api, 'list-origin', { profile: PROFILE, messages: 1 });
      const past = new Date(Date.now() - 60_000).toISOString();
      for (const n of [1, 2, 3]) {
        await client.POST('/v1/delegations', { body: { id: `deleg-${n}`, originSessionId: 'list-origin' } });
        await client.PUT('/v1/profiles/{name}/meta/{key}', {
          params: { path: { name: PROFILE, key: `key-${n}` } },
          body: { value: `value ${n}` },
        });
        await client.POST('/v1/sessions/{sessionId}/schedules', {
          params: { path: { sessionId: 'list-origin' } },
          body: { id: `sched-${n}`, kind: 'interval', intervalSeconds: 600, nextDueAt: past },
        });
      }
      const ids = <T extends { id: string }>(items: T[]) => items.map((item) => item.id).sort();
      const delegations = await walk(client, requests, (c) =>
        c.paginate('/v1/delegations', { params: { query: { profile: PROFILE, limit: 1 } } }),
      );
      expect(ids(delegations.items)).toEqual(['deleg-1', 'deleg-2', 'deleg-3']);
      expect(delegations.pages).toBeGreaterThanOrEqual(3);
      covered.add('/v1/delegations');
      const meta = await walk(client, requests, (c) =>
        c.paginate('/v1/profiles/{name}/meta', { params: { path: { name: PROFILE }, query: { limit: 1 } } }),
      );
      expect(meta.items.map((entry) => entry.key).sort()).toEqual(['key-1', 'key-2', 'key-3']);
      covered.add('/v1/profiles/{name}/meta');
      const own = await walk(client, requests, (c) =>
        c.paginate('/v1/sessions/{sessionId}/schedules', {
          params: { path: { sessionId: 'list-origin' }, query: { limit: 1 } },
        }),
      );
      expect(ids(own.items)).toEqual(['sched-1', 'sched-2', 'sched-3']);
      covered.add('/v1/sessions/{sessionId}/schedules');
      const profileWide = await walk(client, requests, (c) =>
        c.paginate('/v1/schedules', { params: { query: { profile: PROFILE, limit: 1 } } }),
      );
      expect(ids(profileWide.items)).toEqual(['sched-1', 'sched-2', 'sched-3']);
      covered.add('/v1/schedules');
      const due = await walk(client, requests, (c) =>
        c.paginate('/v1/schedules/due', { params: { query: { profile: PROFILE, limit: 1 } } }),
      );
      expect(ids(due.items)).toEqual(['sched-1', 'sched-2', 'sched-3']);
      expect(due.pages).toBeGreaterThanOrEqual(3);
      covered.add('/v1/schedules/due');
    });

    it('imports (a Hermes state.db uploaded through the generated transport)', async () => {
      buildHermesScenario(join(dir, 'state.db'), 30).close();
      const bytes = readFileSync(join(dir, 'state.db'));
      for (let i = 0; i < 3; i++) {
        const { data, response } = await client.api.POST('/v1/imports', {
          params: { query: { profile: PROFILE } } as never,
          body: bytes as never,
          bodySerializer: (body: unknown) => body,
          headers: { 'Content-Type': 'application/octet-stream', Authorization: `Bearer ${api.adminToken}` },
        });
        expect(response.status).toBe(202);
        // One import runs at a time (a second answers 409 conflict): wait for this one.
        const id = (data as { id: string }).id;
        for (let poll = 0; poll < 400; poll++) {
          const job = await client.GET('/v1/imports/{id}', { params: { path: { id } } });
          if (job.state !== 'running') break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      const jobs = await walk(client, requests, (c) => c.paginate('/v1/imports', { params: { query: { limit: 1 } } }));
      expect(jobs.items).toHaveLength(3);
      expect(new Set(jobs.items.map((job) => job.id)).size).toBe(3);
      covered.add('/v1/imports');
    });

    it('receipts page by sequence, oldest first or newest first', async () => {
      const deleted: number[] = [];
      for (const id of ['gone-1', 'gone-2', 'gone-3']) {
        await seedSession(api, id, { profile: 'receipts-only' });
        const answer = await client.session(id).delete();
        deleted.push(answer.receipt!.sequence);
      }
      const oldest = await walk(client, requests, (c) =>
        c.paginate('/v1/deletion-receipts', { params: { query: { profile: 'receipts-only', limit: 1 } } }),
      );
      expect(oldest.items.map((receipt) => receipt.sequence)).toEqual(deleted);
      const newest = await walk(client, requests, (c) =>
        c.paginate('/v1/deletion-receipts', {
          params: { query: { profile: 'receipts-only', limit: 1, order: 'newest' } },
        }),
      );
      expect(newest.items.map((receipt) => receipt.sequence)).toEqual([...deleted].reverse());
      covered.add('/v1/deletion-receipts');
    });
  });
}
