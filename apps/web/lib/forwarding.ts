import 'server-only';
import { headers } from 'next/headers';

/**
 * What the API needs to judge a request the dashboard relays for a browser (docs/security.md):
 * the browser's address (login limits), the host and scheme the browser addressed, and — for a
 * mutation — the browser's `Origin`, which proxy.ts has already checked against that host. The
 * API believes these from its trusted proxies only (`STATEHOUSE_TRUSTED_PROXIES`, loopback by
 * default, where the dashboard runs).
 */
export async function forwardedHeaders(method: string): Promise<Record<string, string>> {
  const incoming = await headers();
  const forwarded: Record<string, string> = {};
  const address = incoming.get('x-forwarded-for');
  if (address) forwarded['x-forwarded-for'] = address;
  const host = incoming.get('x-forwarded-host') ?? incoming.get('host');
  if (host) forwarded['x-forwarded-host'] = host;
  const proto = incoming.get('x-forwarded-proto');
  if (proto) forwarded['x-forwarded-proto'] = proto;
  if (method !== 'GET' && method !== 'HEAD') {
    const origin = incoming.get('origin');
    if (origin) forwarded.origin = origin;
  }
  return forwarded;
}
