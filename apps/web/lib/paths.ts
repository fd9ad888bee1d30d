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
 * Only same-site paths are valid `next` targets: `//evil.example` or `/\evil` would leave the
 * dashboard (open redirect), and /login would loop.
 */
export function safeNextPath(raw: string | null | undefined, fallback = '/sessions'): string {
  if (!raw?.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\')) return fallback;
  if (raw === '/login' || raw.startsWith('/login?')) return fallback;
  return raw;
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
