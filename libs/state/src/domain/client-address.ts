import { isIPv4, isIPv6 } from 'node:net';

/**
 * The key a client address is throttled under. IPv4-mapped IPv6 becomes IPv4; IPv6 is cut to its
 * /64, the smallest block a single subscriber is usually given (rotating through one's own /64
 * must not buy fresh budgets). Anything else (a unix socket, "unknown") is kept as it is, bounded.
 */
export function clientAddressKey(address: string): string {
  let value = address.trim().toLowerCase();
  const zone = value.indexOf('%');
  if (zone >= 0) value = value.slice(0, zone);
  if (value.startsWith('::ffff:') && isIPv4(value.slice(7))) return value.slice(7);
  if (isIPv4(value)) return value;
  if (isIPv6(value)) return `${expandIPv6(value).slice(0, 4).join(':')}::/64`;
  return value.slice(0, 64) || 'unknown';
}

function expandIPv6(address: string): string[] {
  // An embedded IPv4 tail (::1.2.3.4) is two hextets.
  let text = address;
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (isIPv4(tail)) {
    const [a, b, c, d] = tail.split('.').map(Number);
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = rest === undefined ? [] : rest ? rest.split(':') : [];
  const fill = rest === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].map((part) => (Number.parseInt(part, 16) || 0).toString(16));
}
