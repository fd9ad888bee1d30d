/**
 * URL helpers shared by server and client code. The URL is the state of every page (filters, cursor,
 * toggles), so links are built here, omitting empty values and defaults to keep URLs short.
 */

/** Set by proxy.ts on every request so server code can say where to come back after a login. */
export const CURRENT_PATH_HEADER = 'x-statehouse-path';

export type ParamValue = string | number | boolean | null | undefined;

export function hrefWith(pathname: string, params: Record<string, ParamValue>, hash?: string): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null || value === '' || value === false) continue;
    search.set(key, String(value));
  }
  const query = search.toString();
  return `${pathname}${query ? `?${query}` : ''}${hash ? `#${hash}` : ''}`;
}

/**
 * `next` and `back` come from the URL: an attacker chooses them. They are resolved the way a
 * browser would resolve a Location header — after stripping what browsers strip from URLs (TAB,
 * LF, CR anywhere; C0 controls and spaces at either end) — with the WHATWG URL parser against the
 * dashboard's own origin, and only a path on that origin is kept (docs/security.md, "Redirects").
 * `/%09/evil.example`, `//evil`, `/\\evil`, `/.//evil`, `https://evil` and `javascript:` all fall
 * back; so does /login (it would loop). The result is re-checked, never a `//` that a browser would
 * read as another host, and never holds a character a header cannot (no input can make a 500).
 */
const OWN_ORIGIN = 'http://dashboard.invalid';
const BROWSER_STRIPPED = /[\t\n\r]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point.
const EDGE_CONTROLS = /^[\u0000-\u0020]+|[\u0000-\u0020]+$/g;
const NEXT_MAX = 2048;

function sameOriginPath(raw: string): string | null {
  const stripped = raw.replace(BROWSER_STRIPPED, '').replace(EDGE_CONTROLS, '');
  if (!stripped.startsWith('/') || stripped.startsWith('//') || stripped.startsWith('/\\')) return null;
  let url: URL;
  try {
    url = new URL(stripped, OWN_ORIGIN);
  } catch {
    return null;
  }
  if (url.origin !== OWN_ORIGIN) return null;
  const path = `${url.pathname}${url.search}${url.hash}`;
  // The serialised path must itself stay on this origin when a browser resolves it again.
  if (!path.startsWith('/') || path.startsWith('//') || path.startsWith('/\\')) return null;
  try {
    if (new URL(path, OWN_ORIGIN).origin !== OWN_ORIGIN) return null;
  } catch {
    return null;
  }
  return path;
}

export function safeNextPath(raw: string | null | undefined, fallback = '/sessions'): string {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > NEXT_MAX) return fallback;
  const path = sameOriginPath(raw);
  if (!path) return fallback;
  if (path === '/login' || path.startsWith('/login?') || path.startsWith('/login/') || path.startsWith('/login#')) {
    return fallback;
  }
  return path;
}

export function loginHref(next: string | null | undefined): string {
  const target = safeNextPath(next, '');
  return target ? hrefWith('/login', { next: target }) : '/login';
}

export function sessionHref(id: string, params: Record<string, ParamValue> = {}, hash?: string): string {
  return hrefWith(`/sessions/${encodeURIComponent(id)}`, params, hash);
}

export const profileHref = (name: string, params: Record<string, ParamValue> = {}) =>
  hrefWith(`/profiles/${encodeURIComponent(name)}`, params);

/** The DOM id of a transcript message, the target of search hits. */
export const messageAnchor = (messageId: number) => `m-${messageId}`;

/** First value of a search param (Next gives arrays for repeated keys). */
export function firstParam(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export type RawSearchParams = Record<string, string | string[] | undefined>;
