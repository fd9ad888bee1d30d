import { createServer, type Server, type Socket } from 'node:net';
import type { Dialect } from '@statehouse/state';
import { createTestDatabase } from '@statehouse/state/testing';
import { type ApiProcess, assertBuilt, startApi, stopAll } from '../../../../apps/api/test/support/processes.js';
import { mintToken } from '../../../../test/support/process-kit.js';

export { TEST_DIALECTS } from '@statehouse/state/testing';

/** The built API (apps/api/dist) running as its own process on a fresh database of one dialect. */
export interface RealApi {
  dialect: Dialect;
  base: string;
  databaseUrl: string;
  /** An admin token made by the token CLI, as an operator would. */
  adminToken: string;
  /** A member token limited to `profiles`. */
  memberToken(profiles: string[]): string;
  process: ApiProcess;
  stop(): Promise<void>;
}

export async function startRealApi(dialect: Dialect, env: Record<string, string> = {}): Promise<RealApi> {
  assertBuilt();
  const database = await createTestDatabase(dialect);
  const token = (role: 'admin' | 'member', profiles: string) =>
    mintToken(database.url, { role, profiles, name: `${role}-${Date.now()}` });
  const api = await startApi(database.url, { STATEHOUSE_SWEEP_INTERVAL_SECONDS: '0', ...env });
  return {
    dialect,
    base: api.base,
    databaseUrl: database.url,
    adminToken: token('admin', '*'),
    memberToken: (profiles) => token('member', profiles.join(',')),
    process: api,
    async stop() {
      await stopAll([api.child]);
      await database.drop();
    },
  };
}

/**
 * A TCP proxy in front of the API that can cut every connection at once (a dropped stream, a
 * restarted load balancer) and records the head of each request it carried.
 */
export interface DroppingProxy {
  base: string;
  /** Request heads (request line and headers) in arrival order. */
  heads: string[];
  /** Destroys every open connection, both sides. */
  dropAll(): void;
  close(): Promise<void>;
}

export async function startDroppingProxy(target: string): Promise<DroppingProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  const heads: string[] = [];
  const { connect } = await import('node:net');
  const server: Server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    sockets.add(client);
    sockets.add(upstream);
    let head = '';
    client.on('data', (chunk: Buffer) => {
      if (head.includes('\r\n\r\n')) return;
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end >= 0) heads.push(head.slice(0, end));
    });
    client.pipe(upstream);
    upstream.pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', close);
    upstream.on('error', close);
    client.on('close', close);
    upstream.on('close', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('proxy did not listen');
  return {
    base: `http://127.0.0.1:${address.port}`,
    heads,
    dropAll() {
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A session with `messages` user messages, created with the API's plain HTTP (setup, not under test). */
export async function seedSession(
  api: RealApi,
  id: string,
  options: { profile?: string; messages?: number; sessionKey?: string } = {},
): Promise<void> {
  const response = await fetch(`${api.base}/v1/sessions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${api.adminToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      id,
      profile: options.profile ?? 'alpha',
      source: 'telegram',
      ...(options.sessionKey ? { sessionKey: options.sessionKey } : {}),
      messages: Array.from({ length: options.messages ?? 0 }, (_, i) => ({
        role: 'user',
        content: `${id} message ${i + 1} about lighthouses`,
      })),
    }),
  });
  if (response.status !== 201) throw new Error(`seeding ${id}: ${response.status} ${await response.text()}`);
}
