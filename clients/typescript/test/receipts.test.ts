import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createStatehouseClient,
  isProblem,
  type ReceiptEvent,
  type StatehouseClient,
  StatehouseProblemError,
} from '../src/index.js';
import {
  type DroppingProxy,
  type RealApi,
  seedSession,
  startDroppingProxy,
  startRealApi,
  TEST_DIALECTS,
} from './support/api.js';

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`the receipt watcher on ${dialect}`, () => {
    let api: RealApi;
    let proxy: DroppingProxy;
    let direct: StatehouseClient;
    let serial = 0;

    /** Creates and deletes a session of `profile`; answers the receipt's sequence. */
    const deleteOne = async (profile = 'watched') => {
      const id = `doomed-${++serial}`;
      await seedSession(api, id, { profile, messages: 1 });
      return (await direct.session(id).delete()).receipt!.sequence;
    };

    beforeAll(async () => {
      api = await startRealApi(dialect);
      proxy = await startDroppingProxy(api.base);
      direct = createStatehouseClient({ baseUrl: api.base, token: api.adminToken });
    });
    afterAll(async () => {
      await proxy?.close();
      await api?.stop();
    });

    it('delivers receipts as they commit and resumes with Last-Event-ID after the server drops the stream', async () => {
      const first = [await deleteOne(), await deleteOne()];
      const client = createStatehouseClient({ baseUrl: proxy.base, token: api.adminToken });
      const reconnects: (string | null)[] = [];
      const watcher = client.watchReceipts({
        after: first[0] - 1,
        profile: 'watched',
        bookmarkSeconds: 1,
        reconnect: { baseDelayMs: 20, maxDelayMs: 50 },
        onReconnect: ({ lastEventId }) => reconnects.push(lastEventId),
      });
      const events = watcher[Symbol.asyncIterator]();
      const nextReceipt = async (): Promise<number> => {
        for (;;) {
          const { value, done } = await events.next();
          if (done) throw new Error('the watch ended');
          const event = value as ReceiptEvent;
          if (event.type === 'receipt') return event.receipt.sequence;
        }
      };
      const seen = [await nextReceipt(), await nextReceipt()];
      expect(seen).toEqual(first);

      // The connection breaks (both sides destroyed mid-stream); meanwhile two more deletions commit.
      proxy.dropAll();
      const later = [await deleteOne(), await deleteOne()];
      seen.push(await nextReceipt(), await nextReceipt());
      expect(seen).toEqual([...first, ...later]);
      expect(watcher.reconnects).toBeGreaterThanOrEqual(1);
      expect(reconnects[0]).toBe(String(first[1]));
      const watchHeads = proxy.heads.filter((head) => head.startsWith('GET /v1/deletion-receipts/watch'));
      expect(watchHeads.length).toBeGreaterThanOrEqual(2);
      expect(watchHeads[0].toLowerCase()).not.toContain('last-event-id');
      expect(watchHeads[1].toLowerCase()).toContain(`last-event-id: ${first[1]}`);
      await events.return?.(undefined);
    });

    it('a cursor below the reclaimed floor ends the watch with a typed cursor_expired error carrying floor', async () => {
      const sequences = [await deleteOne('reclaimed'), await deleteOne('reclaimed')];
      await direct.POST('/v1/deletion-receipts/reclaim', { body: { throughSequence: sequences[0], mode: 'force' } });
      const client = createStatehouseClient({ baseUrl: api.base, token: api.adminToken });
      const watcher = client.watchReceipts({ after: 0, bookmarkSeconds: 1 });
      let failure: unknown;
      try {
        for await (const _event of watcher) {
          // nothing may arrive before the expiry
        }
      } catch (error) {
        failure = error;
      }
      if (!isProblem(failure, 'cursor_expired')) throw failure;
      expect(failure.status).toBe(410);
      expect(failure.problem.floor).toBeGreaterThanOrEqual(sequences[0]);

      // The list answers the same expiry as a 410 problem, thrown with the same type.
      const listed = await client
        .GET('/v1/deletion-receipts', { params: { query: { after: 0 } } })
        .catch((error: unknown) => error);
      if (!isProblem(listed, 'cursor_expired')) throw listed;
      expect(listed.problem.floor).toBe(failure.problem.floor);
    });

    it('a 410 answer to the connection itself is thrown as cursor_expired, never retried', async () => {
      let attempts = 0;
      const client = createStatehouseClient({
        baseUrl: api.base,
        token: api.adminToken,
        fetch: async () => {
          attempts++;
          return new Response(
            JSON.stringify({
              type: 'https://statehouse.dev/problems/cursor-expired',
              title: 'Cursor expired',
              status: 410,
              code: 'cursor_expired',
              detail: 'below the floor',
              floor: 41,
            }),
            { status: 410, headers: { 'content-type': 'application/problem+json' } },
          );
        },
      });
      const failure = await (async () => {
        for await (const _event of client.watchReceipts({ after: 3 })) {
          // none
        }
      })().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(StatehouseProblemError);
      expect(failure).toMatchObject({ code: 'cursor_expired', status: 410, problem: { floor: 41 } });
      expect(attempts).toBe(1);
    });

    it('close() ends the loop', async () => {
      const client = createStatehouseClient({ baseUrl: api.base, token: api.adminToken });
      const watcher = client.watchReceipts({ after: 10_000, profile: 'nobody', bookmarkSeconds: 1 });
      const kinds: string[] = [];
      for await (const event of watcher) {
        kinds.push(event.type);
        watcher.close();
      }
      expect(kinds).toEqual(['bookmark']);
    });
  });
}
