import 'server-only';
import {
  type BulkDeleteRequest,
  type BulkDeleteResponse,
  BulkDeleteResponseSchema,
  type CreateProfileRequest,
  type DeletePreview,
  type DeletePreviewRequest,
  DeletePreviewSchema,
  type DeleteProfileResponse,
  DeleteProfileResponseSchema,
  type DeleteSessionResponse,
  DeleteSessionResponseSchema,
  type DeletionReceipt,
  DeletionReceiptSchema,
  type EndSessionRequest,
  type LineageResponse,
  LineageResponseSchema,
  type ListMessagesQuery,
  type ListRoutesQuery,
  type ListSessionsQuery,
  type LoginRequest,
  type MessagePage,
  MessagePageSchema,
  PROBLEM_CODES,
  type Principal,
  PrincipalSchema,
  type Problem,
  type ProblemCode,
  ProblemSchema,
  ProfileListSchema,
  type ProfileSummary,
  ProfileSummarySchema,
  type PutRetentionPolicyRequest,
  type ReceiptConsumer,
  ReceiptConsumerSchema,
  type ReceiptListQuery,
  type ReceiptPage,
  ReceiptPageSchema,
  type ReceiptWatchQuery,
  type ReclaimRequest,
  type ReclaimResponse,
  ReclaimResponseSchema,
  type RenameProfileRequest,
  type RenameProfileResponse,
  RenameProfileResponseSchema,
  type RetentionPolicy,
  RetentionPolicySchema,
  type RoutePage,
  RoutePageSchema,
  SESSION_COOKIE_NAME,
  type SearchQuery,
  type SearchResponse,
  SearchResponseSchema,
  type Session,
  type SessionListResponse,
  SessionListResponseSchema,
  SessionSchema,
  type UpdateSessionRequest,
  type VerifyResponse,
  VerifyResponseSchema,
} from '@statehouse/contracts';
import { cookies, headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { cache } from 'react';
import { apiBaseUrl } from './config';
import { forwardedHeaders } from './forwarding';
import { CURRENT_PATH_HEADER, loginHref } from './paths';

/**
 * The dashboard's only door to Statehouse. Runs on the server: it reads the session cookie with
 * `cookies()` and forwards it to the API; nothing here (cookie, API address) reaches the browser.
 */

const REQUEST_TIMEOUT_MS = 15_000;

/** An error answer from the API, as its problem document (API.md, Errors). */
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

/** The API could not be reached at all (down, wrong STATEHOUSE_API_URL, or too slow). */
export class ApiUnreachableError extends Error {
  constructor(detail: string) {
    super(`The Statehouse API at ${apiBaseUrl()} is unreachable: ${detail}`);
    this.name = 'ApiUnreachableError';
  }
}

interface Parser<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { message: string } };
}

/** A list answer checked item by item with an item schema (the contracts name no list schema). */
function arrayOf<T>(item: Parser<T>): Parser<T[]> {
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

interface RequestOptions {
  method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  query?: Record<string, QueryValue>;
  body?: unknown;
  headers?: Record<string, string>;
  /** Makes a retried mutation safe: the API replays the first answer (API.md, Idempotency). */
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

async function sessionCookieHeader(): Promise<string | undefined> {
  const secret = (await cookies()).get(SESSION_COOKIE_NAME)?.value;
  return secret ? `${SESSION_COOKIE_NAME}=${encodeURIComponent(secret)}` : undefined;
}

async function send(path: string, options: RequestOptions = {}): Promise<Response> {
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
    const reason = error instanceof Error && error.name === 'TimeoutError' ? 'no answer within 15 s' : describe(error);
    throw new ApiUnreachableError(reason);
  }
  if (response.ok) return response;
  const problem = await readProblem(response);
  if (problem.status === 401 && (options.onUnauthenticated ?? 'redirect') === 'redirect') {
    redirect(loginHref((await headers()).get(CURRENT_PATH_HEADER)));
  }
  throw new ApiProblemError(problem, retryAfterSeconds(response));
}

async function request<T>(path: string, schema: Parser<T>, options: RequestOptions = {}): Promise<T> {
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

function describe(error: unknown): string {
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

const CODE_BY_STATUS: Record<number, ProblemCode> = {
  400: 'validation_failed',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  412: 'revision_conflict',
  413: 'payload_too_large',
  428: 'precondition_required',
  429: 'rate_limited',
  503: 'store_unavailable',
};

/** Parses the problem document; a non-conforming error body (a proxy's HTML page) becomes one. */
async function readProblem(response: Response): Promise<Problem> {
  const text = await response.text().catch(() => '');
  try {
    const parsed = ProblemSchema.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data;
  } catch {
    // not JSON: fall through
  }
  const code = CODE_BY_STATUS[response.status] ?? 'internal_error';
  return {
    type: 'about:blank',
    title: response.statusText || 'Request failed',
    status: response.status,
    code: PROBLEM_CODES.includes(code) ? code : 'internal_error',
    detail: text.slice(0, 300) || `HTTP ${response.status}`,
  };
}

const sessionPath = (id: string) => `/v1/sessions/${encodeURIComponent(id)}`;

// ---------------------------------------------------------------------------------------------
// Endpoints

/** Who is signed in; deduplicated per request (the layout and a page may both ask). */
export const getMe = cache((): Promise<Principal> => request('/v1/auth/me', PrincipalSchema));

export function listProfiles(): Promise<ProfileSummary[]> {
  return request('/v1/profiles', ProfileListSchema);
}

export type SessionListParams = Partial<ListSessionsQuery>;

export function listSessions(params: SessionListParams): Promise<SessionListResponse> {
  return request('/v1/sessions', SessionListResponseSchema, { query: { ...params } });
}

export function getSession(id: string): Promise<Session> {
  return request(sessionPath(id), SessionSchema);
}

export type MessageListParams = Partial<ListMessagesQuery>;

export function listMessages(sessionId: string, params: MessageListParams): Promise<MessagePage> {
  return request(`${sessionPath(sessionId)}/messages`, MessagePageSchema, { query: { ...params } });
}

export type SearchParams = Partial<SearchQuery> & Pick<SearchQuery, 'q'>;

export function searchMessages(params: SearchParams): Promise<SearchResponse> {
  return request('/v1/search', SearchResponseSchema, { query: { ...params } });
}

/** PATCH with `If-Match` from the revision the caller last saw: a stale one answers 412. */
export function updateSession(id: string, revision: number, body: UpdateSessionRequest): Promise<Session> {
  return request(sessionPath(id), SessionSchema, {
    method: 'PATCH',
    body,
    headers: { 'if-match': `"${revision}"` },
  });
}

/** `If-Match` (and, for destructive calls, `X-Expected-Generation`) from what the page rendered. */
function preconditions(revision: number, generation?: number): Record<string, string> {
  const values: Record<string, string> = { 'if-match': `"${revision}"` };
  if (generation !== undefined) values['x-expected-generation'] = String(generation);
  return values;
}

export function endSession(id: string, revision: number, body: EndSessionRequest): Promise<Session> {
  return request(`${sessionPath(id)}/end`, SessionSchema, { method: 'POST', body, headers: preconditions(revision) });
}

export function reopenSession(id: string, revision: number): Promise<Session> {
  return request(`${sessionPath(id)}/reopen`, SessionSchema, {
    method: 'POST',
    body: {},
    headers: preconditions(revision),
  });
}

// ---- lineage ------------------------------------------------------------------------------------

export function getLineage(id: string): Promise<LineageResponse> {
  return request(`${sessionPath(id)}/lineage`, LineageResponseSchema);
}

// ---- deleting -----------------------------------------------------------------------------------

/** What a delete would remove (selected, delegate cascade, chain members) and what it would orphan. */
export function previewDeletion(body: DeletePreviewRequest): Promise<DeletePreview> {
  return request('/v1/sessions/delete-preview', DeletePreviewSchema, { method: 'POST', body });
}

export interface DeleteSessionOptions {
  revision: number;
  generation: number;
  includeCompressionChain: boolean;
  idempotencyKey?: string;
}

export function deleteSession(id: string, options: DeleteSessionOptions): Promise<DeleteSessionResponse> {
  return request(sessionPath(id), DeleteSessionResponseSchema, {
    method: 'DELETE',
    query: { includeCompressionChain: options.includeCompressionChain },
    headers: preconditions(options.revision, options.generation),
    idempotencyKey: options.idempotencyKey,
  });
}

export function bulkDeleteSessions(body: BulkDeleteRequest, idempotencyKey?: string): Promise<BulkDeleteResponse> {
  return request('/v1/sessions/bulk-delete', BulkDeleteResponseSchema, { method: 'POST', body, idempotencyKey });
}

// ---- deletion receipts ------------------------------------------------------------------------

export type ReceiptListParams = Partial<ReceiptListQuery>;

export function listReceipts(params: ReceiptListParams): Promise<ReceiptPage> {
  return request('/v1/deletion-receipts', ReceiptPageSchema, { query: { ...params } });
}

/**
 * The feed's high-water mark and floor. Asked from sequence 0, which after a reclamation is below
 * the floor (410 cursor_expired carries the floor): then asked again from there.
 */
export async function receiptMarks(): Promise<{ highWater: number; floor: number }> {
  try {
    const page = await listReceipts({ after: 0, limit: 1 });
    return { highWater: page.highWater, floor: page.floor };
  } catch (error) {
    if (!(error instanceof ApiProblemError) || error.code !== 'cursor_expired') throw error;
    const floor = Number(error.problem.floor);
    const page = await listReceipts({ after: Number.isInteger(floor) ? floor : 0, limit: 1 });
    return { highWater: page.highWater, floor: page.floor };
  }
}

export function getReceipt(operationId: string): Promise<DeletionReceipt> {
  return request(`/v1/deletion-receipts/${encodeURIComponent(operationId)}`, DeletionReceiptSchema);
}

export function verifyReceiptChain(): Promise<VerifyResponse> {
  return request('/v1/deletion-receipts/verify', VerifyResponseSchema);
}

export function reclaimReceipts(body: ReclaimRequest, idempotencyKey?: string): Promise<ReclaimResponse> {
  return request('/v1/deletion-receipts/reclaim', ReclaimResponseSchema, { method: 'POST', body, idempotencyKey });
}

export function listReceiptConsumers(): Promise<ReceiptConsumer[]> {
  return request('/v1/receipt-consumers', arrayOf(ReceiptConsumerSchema));
}

const WATCH_CONNECT_TIMEOUT_MS = 15_000;

/**
 * Opens the API's receipt stream (server-sent events) with the user's cookie and returns the raw
 * response for a route handler to pass through. Only connecting is time-limited: the stream itself
 * lives until `signal` (the browser went away) aborts it. Errors are returned as they came.
 */
export async function openReceiptWatch(
  params: Partial<ReceiptWatchQuery>,
  { signal, lastEventId }: { signal: AbortSignal; lastEventId?: string | null },
): Promise<Response> {
  const requestHeaders: Record<string, string> = { accept: 'text/event-stream' };
  const cookie = await sessionCookieHeader();
  if (cookie) requestHeaders.cookie = cookie;
  if (lastEventId && /^\d{1,15}$/.test(lastEventId)) requestHeaders['last-event-id'] = lastEventId;
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  const connectTimer = setTimeout(() => controller.abort(), WATCH_CONNECT_TIMEOUT_MS);
  try {
    return await fetch(`${apiBaseUrl()}/v1/deletion-receipts/watch${buildQuery({ ...params })}`, {
      headers: requestHeaders,
      cache: 'no-store',
      redirect: 'manual',
      signal: controller.signal,
    });
  } catch (error) {
    signal.removeEventListener('abort', onAbort);
    throw new ApiUnreachableError(describe(error));
  } finally {
    clearTimeout(connectTimer);
  }
}

// ---- profiles and retention -------------------------------------------------------------------

const profilePath = (name: string) => `/v1/profiles/${encodeURIComponent(name)}`;

export function createProfile(body: CreateProfileRequest): Promise<ProfileSummary> {
  return request('/v1/profiles', ProfileSummarySchema, { method: 'POST', body });
}

export function renameProfile(
  name: string,
  body: RenameProfileRequest,
  idempotencyKey?: string,
): Promise<RenameProfileResponse> {
  return request(`${profilePath(name)}/rename`, RenameProfileResponseSchema, {
    method: 'POST',
    body,
    idempotencyKey,
  });
}

export function deleteProfile(
  name: string,
  options: { deleteSessions: boolean; dryRun: boolean },
  idempotencyKey?: string,
): Promise<DeleteProfileResponse> {
  return request(profilePath(name), DeleteProfileResponseSchema, {
    method: 'DELETE',
    query: { deleteSessions: options.deleteSessions, dryRun: options.dryRun },
    idempotencyKey,
  });
}

export function listRetentionPolicies(): Promise<RetentionPolicy[]> {
  return request('/v1/retention/policies', arrayOf(RetentionPolicySchema));
}

export function putRetentionPolicy(profile: string, body: PutRetentionPolicyRequest): Promise<RetentionPolicy> {
  return request(`/v1/retention/policies/${encodeURIComponent(profile)}`, RetentionPolicySchema, {
    method: 'PUT',
    body,
  });
}

// ---- routes -------------------------------------------------------------------------------------

export type RouteListParams = Partial<ListRoutesQuery>;

export function listRoutes(params: RouteListParams): Promise<RoutePage> {
  return request('/v1/routes', RoutePageSchema, { query: { ...params } });
}

export interface IssuedSessionCookie {
  secret: string;
  expires: Date | undefined;
}

/** Logs in against the API and returns the session cookie it issued (to be re-set by the dashboard). */
export async function login(credentials: LoginRequest): Promise<IssuedSessionCookie> {
  const response = await send('/v1/auth/login', {
    method: 'POST',
    body: credentials,
    onUnauthenticated: 'throw',
  });
  const issued = response.headers
    .getSetCookie()
    .map(parseSetCookie)
    .find((cookie) => cookie?.name === SESSION_COOKIE_NAME);
  if (!issued) throw new Error('The API accepted the login but issued no session cookie');
  return { secret: issued.value, expires: issued.expires };
}

/** Ends the server-side session; the caller deletes the dashboard's cookie either way. */
export async function logout(): Promise<void> {
  await send('/v1/auth/logout', { method: 'POST', onUnauthenticated: 'throw' });
}

function parseSetCookie(header: string): { name: string; value: string; expires: Date | undefined } | null {
  const [pair, ...attributes] = header.split(';');
  const separator = pair.indexOf('=');
  if (separator < 0) return null;
  let expires: Date | undefined;
  for (const attribute of attributes) {
    const [key, ...rest] = attribute.trim().split('=');
    const value = rest.join('=');
    if (key.toLowerCase() === 'expires') {
      const date = new Date(value);
      if (!Number.isNaN(date.getTime())) expires = date;
    } else if (key.toLowerCase() === 'max-age' && expires === undefined) {
      const seconds = Number(value);
      if (Number.isFinite(seconds)) expires = new Date(Date.now() + seconds * 1000);
    }
  }
  let value = pair.slice(separator + 1).trim();
  try {
    value = decodeURIComponent(value);
  } catch {
    // keep the raw value
  }
  return { name: pair.slice(0, separator).trim(), value, expires };
}
