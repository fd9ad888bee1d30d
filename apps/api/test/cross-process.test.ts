import type { ChildProcess } from 'node:child_process';
import { createTestDatabase, sseEvents, TEST_DIALECTS, type TestDatabase } from '@statehouse/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, createAdminToken, startApi, stopAll } from './support/processes.js';

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`[storage.engines] receipts across two OS processes on ${dialect}`, () => {
    let database: TestDatabase;
    const processes: ChildProcess[] = [];
    let writer = '';
    let reader = '';
    let token = '';

    const start = async (): Promise<string> => {
      const api = await startApi(database.url);
      processes.push(api.child);
      return api.base;
    };
    const call = async (
      base: string,
      method: string,
      path: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    };
    const createAndDelete = async (id: string) => {
      const created = await call(writer, 'POST', '/v1/sessions', {
        id,
        profile: 'xp',
        source: 'cli',
        messages: [{ role: 'user', content: id }],
      });
      expect(created.status).toBe(201);
      const deleted = await call(writer, 'DELETE', `/v1/sessions/${id}`, undefined, {
        'If-Match': `"${created.body.revision}"`,
        'X-Expected-Generation': String(created.body.generation),
      });
      expect(deleted.status).toBe(200);
      return deleted.body.receipt as { sequence: number; operationId: string };
    };

    beforeAll(async () => {
      assertBuilt();
      database = await createTestDatabase(dialect);
      token = createAdminToken(database.url, 'xp');
      [writer, reader] = await Promise.all([start(), start()]);
    }, 60_000);

    afterAll(async () => {
      await stopAll(processes);
      await database?.drop();
    });

    it('[observers.guarantees] [receipts.replay] one process deletes, the other replays from cursor 0 and watches the stream', async () => {
      const first = await createAndDelete('xp-1');
      const replay = await call(reader, 'GET', '/v1/deletion-receipts?after=0');
      expect(replay.status).toBe(200);
      expect(replay.body.items.map((receipt: { operationId: string }) => receipt.operationId)).toEqual([
        first.operationId,
      ]);

      const abort = new AbortController();
      const stream = await fetch(`${reader}/v1/deletion-receipts/watch?after=0&bookmarkSeconds=1`, {
        headers: { Authorization: `Bearer ${token}` },
        signal: abort.signal,
      });
      expect(stream.headers.get('content-type')).toMatch(/text\/event-stream/);
      expect(stream.headers.get('cache-control')).toBe('no-cache, no-transform');
      const events = sseEvents(stream);
      const seen: string[] = [];
      let second: { operationId: string } | undefined;
      for await (const { event, data } of events) {
        if (event === 'receipt') seen.push((data as { operationId: string }).operationId);
        if (event === 'bookmark' && !second) second = await createAndDelete('xp-2');
        if (second && seen.includes(second.operationId)) break;
      }
      abort.abort();
      expect(seen).toEqual([first.operationId, second!.operationId]);
    });

    it('[receipts.reclamation] after reclamation a cursor below the floor gets 410, and a lagging consumer holds safe reclamation back', async () => {
      const third = await createAndDelete('xp-3');
      const all = (await call(reader, 'GET', '/v1/deletion-receipts?after=0')).body.items as { sequence: number }[];
      expect(all).toHaveLength(3);
      expect((await call(reader, 'PUT', '/v1/receipt-consumers/gateway', { cursor: all[0].sequence })).status).toBe(
        200,
      );
      const safe = await call(writer, 'POST', '/v1/deletion-receipts/reclaim', {
        throughSequence: third.sequence,
        mode: 'safe',
      });
      expect(safe.body).toMatchObject({ floor: all[0].sequence, limitedBy: 'gateway' });
      const forced = await call(writer, 'POST', '/v1/deletion-receipts/reclaim', {
        throughSequence: all[1].sequence,
        mode: 'force',
      });
      expect(forced.body.floor).toBe(all[1].sequence);
      const expired = await call(reader, 'GET', `/v1/deletion-receipts?after=${all[0].sequence}`);
      expect(expired.status).toBe(410);
      expect(expired.body).toMatchObject({ code: 'cursor_expired', floor: all[1].sequence });
      const stream = await fetch(`${reader}/v1/deletion-receipts/watch?after=0`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      const events: { event: string; data: unknown }[] = [];
      for await (const { event, data } of sseEvents(stream)) events.push({ event, data });
      expect(events).toEqual([{ event: 'expired', data: { floor: all[1].sequence, code: 'cursor_expired' } }]);
    });
  });
}
