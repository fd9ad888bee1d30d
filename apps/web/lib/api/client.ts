import 'server-only';
import {
  createStatehouseClient,
  type Middleware,
  type StatehouseClient,
  StatehouseNetworkError,
  StatehouseProblemError,
} from '@statehouse/client';
import { SESSION_COOKIE_NAME } from '@statehouse/contracts';
import { cookies, headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { apiBaseUrl } from '@/lib/config';
import { forwardedHeaders } from '@/lib/forwarding';
import { CURRENT_PATH_HEADER, loginHref } from '@/lib/paths';

/**
 * The dashboard's only door to Statehouse: `@statehouse/client` (docs/clients.md), configured for a
 * server that relays a person. Runs on the server: it reads the session cookie with `cookies()` and
 * forwards it to the API; nothing here (cookie, API address) reaches the browser. The endpoint
 * functions, one module per API resource, sit next to it.
 */

const REQUEST_TIMEOUT_MS = 15_000;

/**
 * An error answer from the API, as its problem document (docs/api.md, Errors): the client's own
 * error, so `code` discriminates `problem` and `retryAfterSeconds` carries `Retry-After`.
 */
export { StatehouseProblemError as ApiProblemError } from '@statehouse/client';

/**
 * The API could not be reached at all (down, wrong STATEHOUSE_API_URL, or too slow). Its message is
 * shown to the browser, so it never names the API's address (an internal host and port): that goes
 * to the dashboard's log only.
 */
export class ApiUnreachableError extends Error {
  constructor(detail: string) {
    const cause = publicCause(detail);
    super(
      `The Statehouse API is unreachable (${cause}). Try again in a moment; if it persists, check the dashboard's log.`,
    );
    this.name = 'ApiUnreachableError';
    console.error(`[statehouse-web] the API at ${apiBaseUrl()} is unreachable: ${detail}`);
  }
}

/**
 * A failure's cause as the browser may see it: a bare error code (ECONNREFUSED) or our own words;
 * anything else — a resolver's message naming a host, a URL — becomes a generic phrase.
 */
function publicCause(detail: string): string {
  if (/^[A-Z][A-Z0-9_]{2,40}$/.test(detail) || detail === 'no answer within 15 s') return detail;
  return 'connection failed';
}

export interface Parser<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { message: string } };
}

/** A list answer checked item by item with an item schema (the contracts name no list schema). */
export function arrayOf<T>(item: Parser<T>): Parser<T[]> {
  return {
    safeParse(value) {
      if (!Array.isArray(value)) return { success: false, error: { message: 'expected an array' } };
      const items: T[] = [];
      for (const [index, entry] of value.entries()) {
        const parsed = item.safeParse(entry);
        if (!parsed.success) return { success: false, error: { message: `[${index}]: ${parsed.error.message}` } };
        items.push(parsed.data);
      }
      return { success: true, data: items };
    },
  };
}

export async function sessionCookieHeader(): Promise<string | undefined> {
  const secret = (await cookies()).get(SESSION_COOKIE_NAME)?.value;
  return secret ? `${SESSION_COOKIE_NAME}=${encodeURIComponent(secret)}` : undefined;
}

/**
 * What every request to the API carries for the person it relays: their session cookie, and the
 * browser's address and origin (login limits and the API's same-origin rule need them; docs/security.md).
 */
const relayBrowser: Middleware = {
  async onRequest({ request }) {
    for (const [name, value] of Object.entries(await forwardedHeaders(request.method))) {
      request.headers.set(name, value);
    }
    const cookie = await sessionCookieHeader();
    if (cookie) request.headers.set('cookie', cookie);
    if (!request.headers.has('accept')) request.headers.set('accept', 'application/json');
  },
};

/**
 * The client for one call. A person sees a refusal as it came — no retries — and idempotency keys
 * are sent where the dashboard has one (a form's key, reused when the form is submitted again).
 */
function api(timeoutMs = REQUEST_TIMEOUT_MS): StatehouseClient {
  return createStatehouseClient({
    baseUrl: apiBaseUrl(),
    retry: false,
    idempotency: 'explicit',
    timeoutMs,
    requestInit: { cache: 'no-store', redirect: 'manual' },
    middleware: [relayBrowser],
  });
}

export interface CallOptions {
  /**
   * What a 401 means. `redirect` (pages and actions): the dashboard session expired, go to /login and
   * come back. `throw`: the caller handles it (login itself, logout).
   */
  onUnauthenticated?: 'redirect' | 'throw';
  /** Milliseconds to wait for the answer's headers (0: none, e.g. an upload). */
  timeoutMs?: number;
}

/**
 * Runs calls of the client: a problem answer is thrown as `ApiProblemError` (or a 401 becomes a
 * redirect to /login), an API that cannot be reached as `ApiUnreachableError`.
 */
export async function send<T>(run: (client: StatehouseClient) => Promise<T>, options: CallOptions = {}): Promise<T> {
  try {
    return await run(api(options.timeoutMs));
  } catch (error) {
    if (error instanceof StatehouseNetworkError) {
      throw new ApiUnreachableError(
        error.timedOut ? 'no answer within 15 s' : describeFailure((error as { cause?: unknown }).cause),
      );
    }
    if (
      error instanceof StatehouseProblemError &&
      error.status === 401 &&
      (options.onUnauthenticated ?? 'redirect') === 'redirect'
    ) {
      redirect(loginHref((await headers()).get(CURRENT_PATH_HEADER)));
    }
    throw error;
  }
}

/**
 * A call whose JSON answer is also checked against the contract's schema: API and dashboard are
 * separate processes and may be upgraded one after the other, so a field the contract names but
 * this API does not send yet must not take every page down. Drift is logged loudly (once per
 * operation) and what arrived is rendered; pages read fields defensively where it matters.
 */
export async function request<T>(
  operation: string,
  schema: Parser<T>,
  run: (client: StatehouseClient) => Promise<unknown>,
  options: CallOptions = {},
): Promise<T> {
  const json = await send(run, options);
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  warnDrift(operation, parsed.error);
  return json as T;
}

const reportedDrift = new Set<string>();

function warnDrift(operation: string, error: { message: string }): void {
  if (reportedDrift.has(operation)) return;
  reportedDrift.add(operation);
  console.warn(`[statehouse-web] ${operation} answered outside the contract (shown anyway): ${error.message}`);
}

/** Why a fetch failed, in the words of its cause (ECONNREFUSED, ENOTFOUND, …). */
export function describeFailure(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ?? cause?.message ?? error.message;
  }
  return String(error);
}

/** Query booleans as the API reads them (`true`/`false`): the contracts' query types hold parsed booleans. */
export type WireQuery<T> = {
  [K in keyof T]: T[K] extends boolean | undefined ? 'true' | 'false' | Exclude<T[K], boolean> : T[K];
};

export function wireQuery<T extends object>(query: T): WireQuery<T> {
  return Object.fromEntries(
    Object.entries(query).map(([name, value]) => [name, typeof value === 'boolean' ? String(value) : value]),
  ) as WireQuery<T>;
}

/** `If-Match` from the revision the page rendered (a stale one answers 412). */
export function ifMatch(revision: number): { 'If-Match': string } {
  return { 'If-Match': `"${revision}"` };
}

/** `If-Match` and `X-Expected-Generation`, what a destructive call presents. */
export function fenced(revision: number, generation: number): { 'If-Match': string; 'X-Expected-Generation': string } {
  return { ...ifMatch(revision), 'X-Expected-Generation': String(generation) };
}

const STREAM_CONNECT_TIMEOUT_MS = 15_000;

/**
 * Opens a server-sent-events stream of the API with the user's cookie and returns the raw response
 * for a route handler to pass through. Only connecting is time-limited: the stream itself lives
 * until `signal` (the browser went away) aborts it. Errors are returned as they came.
 */
export function openEventStream(
  open: (client: StatehouseClient, init: { signal: AbortSignal; headers: Record<string, string> }) => Promise<Response>,
  { signal, headers: extra = {} }: { signal: AbortSignal; headers?: Record<string, string> },
): Promise<Response> {
  return send((client) => open(client, { signal, headers: { accept: 'text/event-stream', ...extra } }), {
    timeoutMs: STREAM_CONNECT_TIMEOUT_MS,
  });
}
