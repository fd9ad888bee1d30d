import 'server-only';
import {
  PROBLEM_CODE_BY_STATUS,
  PROBLEM_CODES,
  type Problem,
  type ProblemCode,
  ProblemSchema,
  SESSION_COOKIE_NAME,
} from '@statehouse/contracts';
import { cookies, headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { apiBaseUrl } from '@/lib/config';
import { forwardedHeaders } from '@/lib/forwarding';
import { CURRENT_PATH_HEADER, loginHref } from '@/lib/paths';

/**
 * The request core of the dashboard's only door to Statehouse. Runs on the server: it reads the
 * session cookie with `cookies()` and forwards it to the API; nothing here (cookie, API address)
 * reaches the browser. The endpoint functions, one module per API resource, sit next to it.
 */

const REQUEST_TIMEOUT_MS = 15_000;

/** An error answer from the API, as its problem document (docs/api.md, Errors). */
export class ApiProblemError extends Error {
  constructor(
    readonly problem: Problem,
    /** Seconds from `Retry-After`, when the API sent one (429, 503). */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(`${problem.status} ${problem.code}: ${problem.detail}`);
    this.name = 'ApiProblemError';
  }

  get status(): number {
    return this.problem.status;
  }

  get code(): ProblemCode {
    return this.problem.code;
  }
}

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

type QueryValue = string | number | boolean | null | undefined;

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  query?: Record<string, QueryValue>;
  body?: unknown;
  headers?: Record<string, string>;
  /** Makes a retried mutation safe: the API replays the first answer (docs/api.md, Idempotency). */
  idempotencyKey?: string;
  /**
   * What a 401 means. `redirect` (pages and actions): the dashboard session expired, go to /login and
   * come back. `throw`: the caller handles it (login itself, logout).
   */
  onUnauthenticated?: 'redirect' | 'throw';
}

export function buildQuery(query: Record<string, QueryValue> = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

export async function sessionCookieHeader(): Promise<string | undefined> {
  const secret = (await cookies()).get(SESSION_COOKIE_NAME)?.value;
  return secret ? `${SESSION_COOKIE_NAME}=${encodeURIComponent(secret)}` : undefined;
}

/** `If-Match` (and, for destructive calls, `X-Expected-Generation`) from what the page rendered. */
export function preconditions(revision: number, generation?: number): Record<string, string> {
  const values: Record<string, string> = { 'if-match': `"${revision}"` };
  if (generation !== undefined) values['x-expected-generation'] = String(generation);
  return values;
}

/** One call; a non-2xx answer becomes an `ApiProblemError` (or a redirect to /login on 401). */
export async function send(path: string, options: RequestOptions = {}): Promise<Response> {
  const requestHeaders: Record<string, string> = {
    accept: 'application/json',
    // The browser's address and origin: login limits and the API's same-origin rule need them.
    ...(await forwardedHeaders(options.method ?? 'GET')),
    ...options.headers,
  };
  if (options.idempotencyKey) requestHeaders['idempotency-key'] = options.idempotencyKey;
  const cookie = await sessionCookieHeader();
  if (cookie) requestHeaders.cookie = cookie;
  let body: string | undefined;
  if (options.body !== undefined) {
    requestHeaders['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let response: Response;
  try {
    response = await fetch(`${apiBaseUrl()}${path}${buildQuery(options.query)}`, {
      method: options.method ?? 'GET',
      headers: requestHeaders,
      body,
      cache: 'no-store',
      redirect: 'manual',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    const reason =
      error instanceof Error && error.name === 'TimeoutError' ? 'no answer within 15 s' : describeFailure(error);
    throw new ApiUnreachableError(reason);
  }
  if (response.ok) return response;
  const problem = await readProblem(response);
  if (problem.status === 401 && (options.onUnauthenticated ?? 'redirect') === 'redirect') {
    redirect(loginHref((await headers()).get(CURRENT_PATH_HEADER)));
  }
  throw new ApiProblemError(problem, retryAfterSeconds(response));
}

/** One call whose JSON answer is checked against the contract's schema. */
export async function request<T>(path: string, schema: Parser<T>, options: RequestOptions = {}): Promise<T> {
  const response = await send(path, options);
  const json: unknown = await response.json();
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  // API and dashboard are separate processes and may be upgraded one after the other: a field the
  // contract names but this API does not send yet must not take every page down. Log the drift
  // loudly and render what arrived; pages read fields defensively where it matters.
  warnDrift(`${options.method ?? 'GET'} ${routeOf(path)}`, parsed.error);
  return json as T;
}

/** The route template of a path, so drift is reported once per endpoint rather than once per id. */
function routeOf(path: string): string {
  return path
    .replace(/^\/v1\/sessions\/(?!bulk-delete$|delete-preview$)[^/]+/, '/v1/sessions/:id')
    .replace(/^\/v1\/deletion-receipts\/(?!verify$|reclaim$|watch$)[^/]+/, '/v1/deletion-receipts/:operationId')
    .replace(/^\/v1\/(profiles|retention\/policies)\/[^/]+/, '/v1/$1/:name');
}

const reportedDrift = new Set<string>();

function warnDrift(route: string, error: { message: string }): void {
  if (reportedDrift.has(route)) return;
  reportedDrift.add(route);
  console.warn(`[statehouse-web] ${route} answered outside the contract (shown anyway): ${error.message}`);
}

/** Why a fetch failed, in the words of its cause (ECONNREFUSED, ENOTFOUND, …). */
export function describeFailure(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ?? cause?.message ?? error.message;
  }
  return String(error);
}

function retryAfterSeconds(response: Response): number | null {
  const header = response.headers.get('retry-after');
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds));
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/** Parses the problem document; a non-conforming error body (a proxy's HTML page) becomes one. */
async function readProblem(response: Response): Promise<Problem> {
  const text = await response.text().catch(() => '');
  try {
    const parsed = ProblemSchema.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data;
  } catch {
    // not JSON: fall through
  }
  const code = PROBLEM_CODE_BY_STATUS[response.status] ?? 'internal_error';
  return {
    type: 'about:blank',
    title: response.statusText || 'Request failed',
    status: response.status,
    code: PROBLEM_CODES.includes(code) ? code : 'internal_error',
    detail: text.slice(0, 300) || `HTTP ${response.status}`,
  };
}

const STREAM_CONNECT_TIMEOUT_MS = 15_000;

/**
 * Opens a server-sent-events stream of the API with the user's cookie and returns the raw response
 * for a route handler to pass through. Only connecting is time-limited: the stream itself lives
 * until `signal` (the browser went away) aborts it. Errors are returned as they came.
 */
export async function openEventStream(
  path: string,
  { signal, headers: extra = {} }: { signal: AbortSignal; headers?: Record<string, string> },
): Promise<Response> {
  const requestHeaders: Record<string, string> = { accept: 'text/event-stream', ...extra };
  const cookie = await sessionCookieHeader();
  if (cookie) requestHeaders.cookie = cookie;
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  const connectTimer = setTimeout(() => controller.abort(), STREAM_CONNECT_TIMEOUT_MS);
  try {
    return await fetch(`${apiBaseUrl()}${path}`, {
      headers: requestHeaders,
      cache: 'no-store',
      redirect: 'manual',
      signal: controller.signal,
    });
  } catch (error) {
    signal.removeEventListener('abort', onAbort);
    throw new ApiUnreachableError(describeFailure(error));
  } finally {
    clearTimeout(connectTimer);
  }
}

/** The API path of one session (ids may contain `:`). */
export const sessionPath = (id: string) => `/v1/sessions/${encodeURIComponent(id)}`;
