import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from '@statehouse/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiProcess, assertBuilt, createAdminToken, startApi, stopAll } from './support/processes.js';

const GATEWAY = fileURLToPath(new URL('./fixtures/gateway-process.mjs', import.meta.url));
/** Short liveness windows, injected through the environment as an operator would. */
const GATEWAY_TIMEOUT_SECONDS = 2;
const SWEEP_INTERVAL_SECONDS = 0.5;

interface GatewayProcess {
  child: ChildProcess;
  sessions: Record<string, string>;
}

/**
 * Two real gateway processes heartbeat against a real API process; one is killed. Within the
 * liveness window plus a sweep its open sessions end with a recoverable reason, the next resolve of
 * each of its chats returns the old session (`recovered`), and the live gateway's sessions are
 * untouched (docs/domain.md §10).
 */
for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`gateway crash simulation on ${dialect}`, () => {
    let database: TestDatabase;
    let api: ApiProcess;
    let token = '';
    const children: ChildProcess[] = [];

    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${api.base}${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    };

    const startGateway = (id: string, chats: string[]): Promise<GatewayProcess> =>
      new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [GATEWAY, api.base, token, id, 'sim', chats.join(',')], {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        children.push(child);
        let output = '';
        let errors = '';
        child.stderr?.on('data', (chunk) => (errors += chunk));
        child.stdout?.on('data', (chunk) => {
          output += chunk;
          const line = output.split('\n').find((entry) => entry.startsWith('{'));
          if (line) resolve({ child, sessions: JSON.parse(line).sessions });
        });
        child.once('exit', (code) =>
          reject(new Error(`gateway ${id} exited (${code}) before it was ready:\n${errors}`)),
        );
      });

    beforeAll(async () => {
      assertBuilt();
      database = await createTestDatabase(dialect);
      token = createAdminToken(database.url, 'simulation');
      api = await startApi(database.url, {
        STATEHOUSE_GATEWAY_TIMEOUT_SECONDS: String(GATEWAY_TIMEOUT_SECONDS),
        STATEHOUSE_SWEEP_INTERVAL_SECONDS: String(SWEEP_INTERVAL_SECONDS),
        STATEHOUSE_ORPHAN_IDLE_SECONDS: '0',
      });
      children.push(api.child);
    }, 60_000);

    afterAll(async () => {
      await stopAll(children);
      await database?.drop();
    });

    it('[sweep.orphans] ends a killed gateway’s sessions within the sweep window, revives them on resolve, and leaves the live one alone', async () => {
      const [doomed, survivor] = await Promise.all([
        startGateway('gw-doomed', ['d1', 'd2', 'd3']),
        startGateway('gw-survivor', ['s1', 's2']),
      ]);
      const listed = await call('GET', '/v1/gateways?profile=sim');
      expect(listed.body.items.map((gateway: { id: string; alive: boolean }) => [gateway.id, gateway.alive])).toEqual([
        ['gw-doomed', true],
        ['gw-survivor', true],
      ]);

      doomed.child.kill('SIGKILL');
      const killedAt = Date.now();
      const doomedIds = Object.values(doomed.sessions);
      let ended: { endReason: string | null; endedAt: string | null }[] = [];
      while (Date.now() - killedAt < 30_000) {
        ended = await Promise.all(doomedIds.map(async (id) => (await call('GET', `/v1/sessions/${id}`)).body));
        if (ended.every((session) => session.endReason !== null)) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(ended.map((session) => session.endReason)).toEqual(doomedIds.map(() => 'startup_orphan_reap'));
      // Measured on the server's own clock, from the doomed gateway's last heartbeat to the reap
      // (not by this test's polling, which a loaded machine delays): never before the liveness
      // window has passed, and within it plus a few sweep intervals (scheduling slack).
      const lastSeenAt = Date.parse((await call('GET', '/v1/gateways/gw-doomed')).body.lastSeenAt);
      for (const session of ended) {
        const reapedAfterMs = Date.parse(session.endedAt!) - lastSeenAt;
        expect(reapedAfterMs).toBeGreaterThanOrEqual(GATEWAY_TIMEOUT_SECONDS * 1000);
        expect(reapedAfterMs).toBeLessThan((GATEWAY_TIMEOUT_SECONDS + 10 * SWEEP_INTERVAL_SECONDS) * 1000 + 5_000);
      }

      for (const id of Object.values(survivor.sessions)) {
        expect((await call('GET', `/v1/sessions/${id}`)).body).toMatchObject({
          endedAt: null,
          gatewayId: 'gw-survivor',
        });
      }
      const after = await call('GET', '/v1/gateways?profile=sim');
      expect(after.body.items).toEqual([
        expect.objectContaining({ id: 'gw-doomed', alive: false, openSessions: 0 }),
        expect.objectContaining({ id: 'gw-survivor', alive: true, openSessions: 2 }),
      ]);

      // The next message on each of the dead gateway's chats finds its old session.
      for (const [chat, id] of Object.entries(doomed.sessions)) {
        const resolved = await call('POST', '/v1/routes/resolve', {
          profile: 'sim',
          source: 'telegram',
          chatType: 'dm',
          chatId: chat,
          userId: `user-${chat}`,
          gatewayId: 'gw-survivor',
          transportProfile: 'gw-survivor',
        });
        expect(resolved.body).toMatchObject({ sessionId: id, via: 'recovered' });
        // Taken over by the caller: re-stamped and owned in the same transaction.
        expect((await call('GET', `/v1/sessions/${id}`)).body).toMatchObject({
          transportProfile: 'gw-survivor',
          gatewayId: 'gw-survivor',
        });
      }
    }, 60_000);
  });
}
