import { type IncomingMessage, Server } from 'node:http';
import { isIP, isIPv4 } from 'node:net';
import proxyAddr from 'proxy-addr';

/**
 * Who the browser is, as far as the dashboard can tell (docs/security.md, "Client addresses").
 * Next.js keeps an `X-Forwarded-For` the client sent and never adds the peer it came from, so
 * the header is believed only from proxies named in `STATEHOUSE_WEB_TRUSTED_PROXIES` (default:
 * none — browsers reach the dashboard directly). The API then believes the dashboard.
 */

/** Whether an address is a trusted proxy (proxy-addr's compiled `trust`, the one express uses for the API). */
export type TrustedProxies = (address: string, hop: number) => boolean;

/** `loopback`, `linklocal`, `uniquelocal`, addresses and CIDRs, comma-separated; unknown entries are an error. */
export function parseTrustedProxies(value: string | undefined): TrustedProxies {
  const entries = (value ?? '')
    .split(',')
    .map((part) => part.trim().toLowerCase())
    .filter((entry) => entry !== '' && entry !== 'none');
  for (const entry of entries) {
    try {
      proxyAddr.compile(entry);
    } catch {
      throw new Error(`STATEHOUSE_WEB_TRUSTED_PROXIES: "${entry}" is not an address, a CIDR or a known name`);
    }
  }
  return proxyAddr.compile(entries);
}

/** IPv4-mapped IPv6 (`::ffff:1.2.3.4`) as the IPv4 it is; zone ids dropped. */
export function normalizeAddress(address: string): string {
  const value = address
    .trim()
    .replace(/%.*$/, '')
    .replace(/^\[|\]$/g, '');
  return value.toLowerCase().startsWith('::ffff:') && isIPv4(value.slice(7)) ? value.slice(7) : value;
}

/**
 * The client of a request that reached the dashboard from `peer`: the peer itself unless it is a
 * trusted proxy; then, walking `X-Forwarded-For` from the right, the first hop that is not one
 * (proxy-addr). Hops that are not addresses are dropped first: never a client address.
 */
export function clientAddressOf(peer: string, forwardedFor: string | undefined, trusted: TrustedProxies): string {
  const hops = (forwardedFor ?? '')
    .split(',')
    .map(normalizeAddress)
    .filter((hop) => isIP(hop) !== 0);
  const socketAddress = normalizeAddress(peer);
  if (hops.length === 0) return socketAddress;
  const request = { socket: { remoteAddress: socketAddress }, headers: { 'x-forwarded-for': hops.join(', ') } };
  return normalizeAddress(proxyAddr(request as unknown as IncomingMessage, trusted));
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
export function installFrontDoor(trusted: TrustedProxies): () => void {
  if (uninstall) return uninstall;
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
