import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { clientAddressOf, installFrontDoor, parseTrustedProxies } from '../../apps/web/lib/client-address.js';

/**
 * The dashboard's front door (docs/security.md, "Client addresses"): Next.js keeps whatever
 * X-Forwarded-For a browser sends, so the dashboard decides the browser's address itself, before
 * Next.js sees the request, believing forwarded headers only from its own trusted proxies.
 */

/** What the server saw of a request sent from loopback with these headers. */
async function seenHeaders(headers: Record<string, string>): Promise<Record<string, unknown>> {
  const server: Server = createServer((incoming, outgoing) => outgoing.end(JSON.stringify(incoming.headers)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise((resolve, reject) => {
      const outgoing = request({ host: '127.0.0.1', port, headers, agent: false }, (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk) => chunks.push(chunk));
        incoming.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString())));
      });
      outgoing.on('error', reject);
      outgoing.end();
    });
  } finally {
    server.close();
  }
}

describe('the dashboard front door', () => {
  let uninstall: (() => void) | undefined;
  afterEach(() => uninstall?.());

  it('ignores a browser’s forwarded headers by default and names the peer as the client', async () => {
    uninstall = installFrontDoor(parseTrustedProxies(undefined));
    const seen = await seenHeaders({
      'X-Forwarded-For': '203.0.113.5',
      'X-Forwarded-Host': 'evil.example',
      'X-Forwarded-Proto': 'https',
      Forwarded: 'for=198.51.100.1',
    });
    expect(seen['x-forwarded-for']).toBe('127.0.0.1');
    expect(seen['x-forwarded-host']).toBeUndefined();
    expect(seen['x-forwarded-proto']).toBeUndefined();
    expect(seen.forwarded).toBeUndefined();
  });

  it('believes a trusted proxy, and takes the first untrusted hop from the right', async () => {
    uninstall = installFrontDoor(parseTrustedProxies('loopback, 10.0.0.0/8'));
    const seen = await seenHeaders({
      'X-Forwarded-For': '198.51.100.9, 203.0.113.5, 10.1.2.3',
      'X-Forwarded-Host': 'dashboard.example',
      'X-Forwarded-Proto': 'https',
    });
    expect(seen['x-forwarded-for']).toBe('203.0.113.5');
    expect(seen['x-forwarded-host']).toBe('dashboard.example');
    expect(seen['x-forwarded-proto']).toBe('https');
  });

  it('computes client addresses like a proxy chain should', () => {
    const none = parseTrustedProxies(undefined);
    const loopback = parseTrustedProxies('loopback');
    expect(clientAddressOf('::ffff:203.0.113.5', '1.2.3.4', none)).toBe('203.0.113.5');
    expect(clientAddressOf('127.0.0.1', '1.2.3.4', none)).toBe('127.0.0.1');
    expect(clientAddressOf('127.0.0.1', '1.2.3.4', loopback)).toBe('1.2.3.4');
    expect(clientAddressOf('127.0.0.1', 'garbage, 1.2.3.4', loopback)).toBe('1.2.3.4');
    expect(clientAddressOf('127.0.0.1', '127.0.0.5', loopback)).toBe('127.0.0.5');
    expect(clientAddressOf('::1', '2001:db8::1', loopback)).toBe('2001:db8::1');
    expect(() => parseTrustedProxies('not-an-address')).toThrow(/STATEHOUSE_WEB_TRUSTED_PROXIES/);
  });
});
