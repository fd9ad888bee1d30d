import type { StatehouseRequest } from '../common/request.js';

/**
 * Whether a browser sent this request from the API's own origin (docs/security.md, "CSRF").
 * A browser that sends fetch metadata says so itself: only `Sec-Fetch-Site: same-origin` passes.
 * Without it (older browsers, server-side callers such as the dashboard) the `Origin` must be
 * present and equal the origin the request was addressed to — which a trusted proxy reports with
 * X-Forwarded-Host/-Proto (express `trust proxy`), so the dashboard relaying a browser's request
 * is judged by the browser's origin. Missing both: not from the same origin.
 */
export function isSameOriginRequest(request: StatehouseRequest): boolean {
  const site = request.header('sec-fetch-site');
  if (site !== undefined) return site === 'same-origin';
  const origin = request.header('origin');
  if (!origin || origin === 'null') return false;
  const host = request.host;
  if (!host) return false;
  try {
    return new URL(origin).origin === new URL(`${request.protocol}://${host}`).origin;
  } catch {
    return false;
  }
}

/** A browser on another site (or a sibling subdomain) posting to a public endpoint (login CSRF). */
export function isCrossSiteBrowserRequest(request: StatehouseRequest): boolean {
  const site = request.header('sec-fetch-site');
  return site === 'cross-site' || site === 'same-site';
}
