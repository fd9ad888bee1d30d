import { type IncomingMessage, Server } from 'node:http';
import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * Who the browser is, as far as the dashboard can tell (docs/security.md, "Client addresses").
 * Next.js keeps an `X-Forwarded-For` the client sent and never adds the peer it came from, so
 * the header is believed only from proxies named in `STATEHOUSE_WEB_TRUSTED_PROXIES` (default:
 * none — browsers reach the dashboard directly). The API then believes the dashboard.
 */

const NAMED: Record<string, [string, number, 'ipv4' | 'ipv6'][]> = {
  loopback: [
    ['127.0.0.0', 8, 'ipv4'],
    ['::1', 128, 'ipv6'],
  ],
  linklocal: [
    ['169.254.0.0', 16, 'ipv4'],
    ['fe80::', 10, 'ipv6'],
  ],
  uniquelocal: [
    ['10.0.0.0', 8, 'ipv4'],
    ['172.16.0.0', 12, 'ipv4'],
    ['192.168.0.0', 16, 'ipv4'],
    ['fc00::', 7, 'ipv6'],
  ],
};

/** `loopback`, `linklocal`, `uniquelocal`, addresses and CIDRs, comma-separated; unknown entries are an error. */
export function parseTrustedProxies(value: string | undefined): BlockList {
  const list = new BlockList();
  for (const entry of (value ?? '').split(',').map((part) => part.trim().toLowerCase())) {
    if (!entry || entry === 'none') continue;
    const named = NAMED[entry];
    if (named) {
      for (const [network, prefix, type] of named) list.addSubnet(network, prefix, type);
      continue;
    }
    const [address, prefix] = entry.split('/');
    const type = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : null;
    if (!type) throw new Error(`STATEHOUSE_WEB_TRUSTED_PROXIES: "${entry}" is not an address, a CIDR or a known name`);
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return list;
}

/** IPv4-mapped IPv6 (`::ffff:1.2.3.4`) as the IPv4 it is; zone ids dropped. */
export function normalizeAddress(address: string): string {
  const value = address
    .trim()
    .replace(/%.*$/, '')
    .replace(/^\[|\]$/g, '');
  return value.toLowerCase().startsWith('::ffff:') && isIPv4(value.slice(7)) ? value.slice(7) : value;
}

function isTrusted(list: BlockList, address: string): boolean {
  if (isIPv4(address)) return list.check(address, 'ipv4');
  if (isIPv6(address)) return list.check(address, 'ipv6');
  return false;
}

/**
 * The client of a request that reached the dashboard from `peer`: the peer itself unless it is a
 * trusted proxy; then, walking `X-Forwarded-For` from the right, the first hop that is not one.
 */
export function clientAddressOf(peer: string, forwardedFor: string | undefined, trusted: BlockList): string {
  let client = normalizeAddress(peer);
  if (!isTrusted(trusted, client) || !forwardedFor) return client;
  const hops = forwardedFor
    .split(',')
    .map(normalizeAddress)
    .filter((hop) => isIPv4(hop) || isIPv6(hop));
  for (let index = hops.length - 1; index >= 0; index--) {
    client = hops[index];
    if (!isTrusted(trusted, client)) break;
  }
  return client;
}

/** Headers a client could send to claim another address, host or scheme. */
const FORWARDED = ['x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port', 'forwarded'];

let uninstall: (() => void) | null = null;

/**
 * Every request the dashboard's HTTP server receives passes here before Next.js sees it (hooked
 * from instrumentation.ts: `next start` offers no other place that knows the TCP peer). From an
 * untrusted peer the forwarded-* headers are dropped; then `X-Forwarded-For` is set to the one
 * client address (clientAddressOf), which the pages, the actions and the API calls read.
 */
export function installFrontDoor(env: NodeJS.ProcessEnv = process.env): () => void {
  if (uninstall) return uninstall;
  const trusted = parseTrustedProxies(env.STATEHOUSE_WEB_TRUSTED_PROXIES);
  const emit = Server.prototype.emit as (this: Server, event: string | symbol, ...args: unknown[]) => boolean;
  Server.prototype.emit = function (this: Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'request') {
      const request = args[0] as IncomingMessage;
      const peer = normalizeAddress(request.socket?.remoteAddress ?? '');
      const forwardedFor = request.headers['x-forwarded-for'];
      const client = clientAddressOf(
        peer,
        Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor,
        trusted,
      );
      if (client === peer) for (const name of FORWARDED) delete request.headers[name];
      if (client) request.headers['x-forwarded-for'] = client;
    }
    return emit.call(this, event, ...args);
  } as typeof Server.prototype.emit;
  uninstall = () => {
    Server.prototype.emit = emit as typeof Server.prototype.emit;
    uninstall = null;
  };
  return uninstall;
}
