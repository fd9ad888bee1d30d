import createClient, {
  type Client,
  createQuerySerializer,
  defaultPathSerializer,
  type HeadersOptions,
  type Middleware,
} from 'openapi-fetch';
import {
  asProblem,
  type Problem,
  problemFromStatus,
  StatehouseNetworkError,
  StatehouseProblemError,
} from './errors.js';
import type { paths } from './generated/openapi.js';
import { ReceiptWatcher, type ReceiptWatchOptions } from './receipts.js';
import {
  backoffMs,
  DEFAULT_RETRY,
  newIdempotencyKey,
  type RetryPolicy,
  retryAfterMs,
  retryPolicy,
  sleep,
} from './retry.js';
import { SessionHandle, type SessionState } from './session.js';
import type { AnswerOf, CallOptions, Exchange, ItemOf, Method, PaginatedPath, PathOf, RequestArgs } from './types.js';

/** A bearer token, or a function that returns the current one (called before every attempt). */
export type TokenSource = string | (() => string | undefined | Promise<string | undefined>);

export interface StatehouseClientOptions {
  /** The API's address, e.g. `http://127.0.0.1:3000` (no `/v1`). */
  baseUrl: string;
  /** `Authorization: Bearer <token>` on every call (docs/api.md, Authentication). */
  token?: TokenSource;
  /** Headers sent with every call (after the token: a header named here wins). */
  headers?: HeadersOptions;
  /**
   * openapi-fetch middleware, run once per attempt: headers that depend on the request (a relayed
   * cookie, forwarded addresses), logging, tracing.
   */
  middleware?: Middleware[];
  /** The fetch to use (default `globalThis.fetch`); tests wrap it to drop answers. */
  fetch?: (request: Request) => Promise<Response>;
  /** Retries after 429, 503 and network failures (default {@link DEFAULT_RETRY}; `false`: none). */
  retry?: Partial<RetryPolicy> | false;
  /**
   * `'auto'` (default): every POST, PATCH and DELETE carries a generated `Idempotency-Key`, reused
   * by its retries, so a retry never repeats an effect. `'explicit'`: only calls that pass
   * `idempotencyKey` carry one (and only those, GETs and PUTs are retried).
   */
  idempotency?: 'auto' | 'explicit';
  /**
   * Milliseconds until an attempt without an answer (headers and JSON body) is abandoned. Default 0:
   * none, as with fetch (on Node, undici's own 300 s header and body timeouts still apply) — a
   * timeout costs an AbortSignal per call, measurable in figure 17 of docs/benchmarks.md.
   */
  timeoutMs?: number;
  /** More RequestInit for every request, e.g. `{ cache: 'no-store', redirect: 'manual' }`. */
  requestInit?: Omit<RequestInit, 'body' | 'headers' | 'method' | 'signal'>;
}

/**
 * What openapi-fetch builds and its middleware reads or changes (url, method, headers, signal),
 * without a real `Request`: `fetch` makes its own from the url and init, and building one more per
 * call costs a fetch-sized share of the client's CPU (docs/benchmarks.md, figure 17).
 */
class PlainRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Headers;
  readonly signal: AbortSignal | null;
  readonly init: RequestInit;

  constructor(url: string, init: RequestInit) {
    this.url = url;
    this.init = init;
    this.method = (init.method ?? 'GET').toUpperCase();
    this.headers = init.headers instanceof Headers ? init.headers : new Headers(init.headers);
    this.signal = init.signal ?? null;
  }
}

const plainFetch = (request: PlainRequest): Promise<Response> =>
  globalThis.fetch(request.url, {
    ...request.init,
    method: request.method,
    headers: request.headers,
    signal: request.signal,
  });

const AUTO_KEYED = new Set(['POST', 'PATCH', 'DELETE']);
/** Methods repeated without a key: reads, and PUT (every PUT of the API sets a state; docs/clients.md, Retries). */
const REPEATABLE = new Set(['GET', 'HEAD', 'PUT']);

/** The options of any call, as the untyped core sees them. */
interface AnyInit extends CallOptions {
  params?: { query?: Record<string, unknown>; path?: Record<string, unknown>; header?: Record<string, unknown> };
  headers?: HeadersOptions;
  signal?: AbortSignal | null;
  parseAs?: 'json' | 'text' | 'blob' | 'arrayBuffer' | 'stream';
  [option: string]: unknown;
}

/**
 * The Statehouse client: the generated, path-typed transport (openapi-fetch over the committed
 * OpenAPI document) plus what a generator cannot know — bearer auth, typed problem errors,
 * idempotent retries with backoff, cursor iteration, session handles that carry revision,
 * generation and turn, and a resumable receipt watcher. See docs/clients.md.
 */
export class StatehouseClient {
  /**
   * The generated transport itself: `{data, error, response}`, no throwing and no retries, for
   * what the helpers do not cover (streamed bodies, raw responses).
   */
  readonly api: Client<paths, 'application/json'>;
  readonly baseUrl: string;
  private readonly token?: TokenSource;
  private readonly retry: RetryPolicy;
  private readonly autoKeys: boolean;
  private readonly timeoutMs: number;
  private readonly customFetch?: (request: Request) => Promise<Response>;
  private readonly middleware: Middleware[];
  private readonly requestInit: Omit<RequestInit, 'body' | 'headers' | 'method' | 'signal'>;
  private readonly baseHeaders: Record<string, string>;

  constructor(options: StatehouseClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.token = options.token;
    this.retry = retryPolicy(options.retry, DEFAULT_RETRY);
    this.autoKeys = (options.idempotency ?? 'auto') === 'auto';
    this.timeoutMs = options.timeoutMs ?? 0;
    this.customFetch = options.fetch;
    this.middleware = options.middleware ?? [];
    this.requestInit = options.requestInit ?? {};
    this.baseHeaders = plainHeaders(options.headers);
    this.api = createClient<paths, 'application/json'>({
      ...options.requestInit,
      baseUrl: this.baseUrl,
      headers: options.headers,
      // A fetch of the caller's gets real Requests; the default skips building one twice (fetch builds its own).
      ...(options.fetch
        ? { fetch: options.fetch }
        : { Request: PlainRequest as unknown as typeof Request, fetch: plainFetch as unknown as typeof fetch }),
    });
    if (this.middleware.length) this.api.use(...this.middleware);
  }

  /** GET: the answer's JSON, or a thrown {@link StatehouseProblemError} / {@link StatehouseNetworkError}. */
  async GET<P extends PathOf<'get'>>(path: P, ...init: RequestArgs<P, 'get'>): Promise<AnswerOf<P, 'get'>> {
    return (await this.send('get', path, init[0])).data as AnswerOf<P, 'get'>;
  }

  async POST<P extends PathOf<'post'>>(path: P, ...init: RequestArgs<P, 'post'>): Promise<AnswerOf<P, 'post'>> {
    return (await this.send('post', path, init[0])).data as AnswerOf<P, 'post'>;
  }

  async PUT<P extends PathOf<'put'>>(path: P, ...init: RequestArgs<P, 'put'>): Promise<AnswerOf<P, 'put'>> {
    return (await this.send('put', path, init[0])).data as AnswerOf<P, 'put'>;
  }

  async PATCH<P extends PathOf<'patch'>>(path: P, ...init: RequestArgs<P, 'patch'>): Promise<AnswerOf<P, 'patch'>> {
    return (await this.send('patch', path, init[0])).data as AnswerOf<P, 'patch'>;
  }

  async DELETE<P extends PathOf<'delete'>>(path: P, ...init: RequestArgs<P, 'delete'>): Promise<AnswerOf<P, 'delete'>> {
    return (await this.send('delete', path, init[0])).data as AnswerOf<P, 'delete'>;
  }

  /**
   * One logical call: attempts until an answer that is not retried, the same `Idempotency-Key` on
   * each. Resolves with the 2xx answer and its response (for `ETag` and other headers).
   */
  async exchange<M extends Method, P extends PathOf<M>>(
    method: M,
    path: P,
    ...init: RequestArgs<P, M>
  ): Promise<Exchange<AnswerOf<P, M>>> {
    return (await this.send(method, path, init[0])) as Exchange<AnswerOf<P, M>>;
  }

  /**
   * A call whose answer is not read here — an event stream to pass on, a download: resolves with
   * the response at its headers, whatever its status (an error answer's body is kept readable).
   * The timeout covers the headers only; network failures are thrown and retried as for any call.
   */
  async open<M extends Method, P extends PathOf<M>>(method: M, path: P, ...init: RequestArgs<P, M>): Promise<Response> {
    return (await this.send(method, path, { ...(init[0] as object), parseAs: 'stream' }, true)).response;
  }

  /** The untyped core of every call (the typed methods above check paths, parameters and bodies). */
  private async send(method: Method, path: string, options: unknown, raw = false): Promise<Exchange<unknown>> {
    const init = (options ?? {}) as AnyInit;
    const { idempotencyKey, retry, timeoutMs, signal, headers: callHeaders, ...rest } = init;
    const verb = method.toUpperCase();
    const operation = `${verb} ${path}`;
    const policy = retryPolicy(retry, this.retry);
    // A plain object (openapi-fetch merges it with `params.header`): Headers objects cost per call.
    const headers = plainHeaders(callHeaders);
    const given = (name: string) => hasHeader(headers, name) || hasHeader(init.params?.header, name);
    const natural = verb === 'POST' && path === APPEND_PATH && deduplicatedAppend(init.body);
    if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
    else if (
      idempotencyKey !== false &&
      this.autoKeys &&
      AUTO_KEYED.has(verb) &&
      !natural &&
      !given('idempotency-key')
    ) {
      headers['Idempotency-Key'] = newIdempotencyKey();
    }
    const repeatable = REPEATABLE.has(verb) || natural || given('idempotency-key');
    const limitMs = timeoutMs ?? this.timeoutMs;
    if (this.token !== undefined && !given('authorization')) {
      const token = typeof this.token === 'function' ? await this.token() : this.token;
      if (token) headers.Authorization = `Bearer ${token}`;
    }

    for (let attempt = 1; ; attempt++) {
      // A signal only when there is something to abort for: fetch does measurable work per signal.
      const controller = limitMs > 0 || signal ? new AbortController() : undefined;
      let timedOut = false;
      const onAbort = () => controller?.abort(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      const timer =
        controller && limitMs > 0
          ? setTimeout(() => {
              timedOut = true;
              controller.abort();
            }, limitMs)
          : undefined;
      let result: { data?: unknown; error?: unknown; response: Response };
      try {
        result = await this.transport(verb, path, rest, headers, controller?.signal);
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        const failure = new StatehouseNetworkError(
          timedOut ? `no answer within ${limitMs} ms` : 'the API could not be reached',
          operation,
          timedOut,
          { cause: error },
        );
        if (repeatable && attempt < policy.attempts) {
          await sleep(backoffMs(attempt, policy), signal);
          continue;
        }
        throw failure;
      } finally {
        // A streamed answer (parseAs: 'stream') resolves at its headers: the timeout covered only those.
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      }
      const { response } = result;
      if (response.ok) return { data: result.data, response };
      if (raw) {
        // openapi-fetch has read an error answer's body: hand it back readable.
        const body = typeof result.error === 'string' ? result.error : JSON.stringify(result.error ?? '');
        const { status, statusText, headers: answerHeaders } = response;
        const nullBody = status === 304 || status < 200;
        return {
          data: undefined,
          response: new Response(nullBody ? null : body, { status, statusText, headers: answerHeaders }),
        };
      }
      const wait = retryAfterMs(response.headers.get('retry-after'));
      if (repeatable && attempt < policy.attempts && (response.status === 429 || response.status === 503)) {
        const delay = wait ?? backoffMs(attempt, policy);
        if (delay <= policy.maxRetryAfterMs) {
          await sleep(delay, signal);
          continue;
        }
      }
      throw problemError(result.error, response, operation, wait);
    }
  }

  /**
   * One attempt on the wire: the URL, query and body serialized as openapi-fetch serializes them,
   * then `fetch(url, init)` — no `Request` built per call unless a middleware or a fetch of the
   * caller's needs one — and the answer read as openapi-fetch reads it (`{data}` or `{error}`).
   * The typed helpers use it; openapi-fetch itself (`api`) would cost a third more CPU per append
   * (docs/clients.md, Choosing the generator).
   */
  private async transport(
    verb: string,
    path: string,
    init: Omit<AnyInit, keyof CallOptions | 'headers' | 'signal'>,
    headers: Record<string, string>,
    signal: AbortSignal | undefined,
  ): Promise<{ data?: unknown; error?: unknown; response: Response }> {
    const {
      params = {},
      body,
      bodySerializer,
      parseAs = 'json',
      middleware: _m,
      ...extra
    } = init as AnyInit & {
      bodySerializer?: (body: unknown) => BodyInit;
      middleware?: unknown;
    };
    let url = params.path ? defaultPathSerializer(this.baseUrl + path, params.path) : this.baseUrl + path;
    const query = params.query ? serializeQuery(params.query) : '';
    if (query) url += `?${query}`;
    const all: Record<string, string> = { ...this.baseHeaders };
    for (const name in params.header) {
      const value = params.header[name];
      if (value !== undefined && value !== null) all[name] = String(value);
    }
    Object.assign(all, headers);
    let payload: BodyInit | undefined;
    if (body !== undefined) {
      payload = bodySerializer ? bodySerializer(body) : JSON.stringify(body);
      if (!hasHeader(all, 'content-type')) all['Content-Type'] = 'application/json';
    }
    const requestInit: RequestInit = { ...this.requestInit, ...extra, method: verb, headers: all, body: payload };
    if (signal) requestInit.signal = signal;
    let response: Response;
    if (this.middleware.length === 0 && !this.customFetch) {
      response = await globalThis.fetch(url, requestInit);
    } else {
      let early: Response | undefined;
      let request = this.customFetch ? new Request(url, requestInit) : new PlainRequest(url, requestInit);
      const context = { schemaPath: path, params, id: newIdempotencyKey(), options: {} as never };
      for (const step of this.middleware) {
        const replaced = (await step.onRequest?.({ ...context, request: request as Request })) as
          | Request
          | Response
          | undefined;
        if (replaced instanceof Response) {
          early = replaced;
          break;
        }
        if (replaced) request = replaced;
      }
      response =
        early ??
        (this.customFetch ? await this.customFetch(request as Request) : await plainFetch(request as PlainRequest));
      for (let i = this.middleware.length - 1; i >= 0; i--) {
        const replaced = (await this.middleware[i].onResponse?.({
          ...context,
          request: request as Request,
          response,
        })) as Response | undefined;
        if (replaced) response = replaced;
      }
    }
    if (response.status === 204 || verb === 'HEAD' || response.headers.get('content-length') === '0') {
      return response.ok ? { data: undefined, response } : { error: undefined, response };
    }
    if (response.ok) {
      if (parseAs === 'stream') return { data: response.body, response };
      if (parseAs === 'json') {
        const text = await response.text();
        return { data: text ? JSON.parse(text) : undefined, response };
      }
      return { data: await response[parseAs](), response };
    }
    let error: unknown = await response.text();
    try {
      error = JSON.parse(error as string);
    } catch {
      // not JSON: keep the text
    }
    return { error, response };
  }

  /** Every page of a cursor-paginated list, following `nextCursor` until it is null. */
  pages<P extends PaginatedPath>(path: P, ...init: RequestArgs<P, 'get'>): AsyncGenerator<AnswerOf<P, 'get'>> {
    return this.walk(path, init[0]) as AsyncGenerator<AnswerOf<P, 'get'>>;
  }

  /**
   * Every item of a cursor-paginated list (sessions, messages, search, receipts, routes,
   * deliveries, gateways, imports), fetched a page at a time as the loop asks for more.
   */
  async *paginate<P extends PaginatedPath>(path: P, ...init: RequestArgs<P, 'get'>): AsyncGenerator<ItemOf<P>> {
    for await (const page of this.walk(path, init[0])) yield* (page as { items: ItemOf<P>[] }).items;
  }

  private async *walk(path: string, options: unknown): AsyncGenerator<unknown> {
    const first = (options ?? {}) as AnyInit;
    let query: Record<string, unknown> = { ...first.params?.query };
    for (;;) {
      const { data } = await this.send('get', path, { ...first, params: { ...first.params, query } });
      yield data;
      const next = (data as { nextCursor?: string | null }).nextCursor;
      if (next === null || next === undefined) return;
      query = { ...query, ...nextPageQuery(path, query, next) };
    }
  }

  /**
   * A handle on one session that remembers its revision, generation and turn from every answer
   * and presents them (`If-Match`, `X-Expected-Generation`, `X-Turn-Id`) as each operation needs.
   */
  session(id: string, known: SessionState = {}): SessionHandle {
    return new SessionHandle(this, id, known);
  }

  /**
   * Watches the receipt feed (`GET /v1/deletion-receipts/watch`, server-sent events): an async
   * iterable of events that reconnects after a dropped connection with `Last-Event-ID`, and ends
   * with a thrown `cursor_expired` problem when the cursor falls below the reclaimed floor.
   */
  watchReceipts(options: ReceiptWatchOptions = {}): ReceiptWatcher {
    return new ReceiptWatcher(this, options);
  }

  /** The headers a raw request of this client carries (the bearer token); for streams opened by hand. */
  async authorization(): Promise<Record<string, string>> {
    const token = typeof this.token === 'function' ? await this.token() : this.token;
    return token ? { Authorization: `Bearer ${token}` } : {};
  }
}

const APPEND_PATH = '/v1/sessions/{id}/messages';

/** openapi-fetch's own query serialization (form, exploded arrays, deepObject). */
const serializeQuery = createQuerySerializer();

/** Headers in any form RequestInit takes, as a plain object. */
function plainHeaders(given: HeadersOptions | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (!given) return headers;
  const entries =
    given instanceof Headers ? given.entries() : Array.isArray(given) ? given : Object.entries(given as object);
  for (const [name, value] of entries as Iterable<[string, unknown]>) {
    if (value !== undefined && value !== null) headers[name] = String(value);
  }
  return headers;
}

function hasHeader(headers: Record<string, unknown> | undefined, lowerName: string): boolean {
  if (!headers) return false;
  for (const name in headers) {
    if (headers[name] !== undefined && headers[name] !== null && name.toLowerCase() === lowerName) return true;
  }
  return false;
}

/**
 * An append the API deduplicates by itself: every message carries a `platformMessageId` (a repeat
 * returns the stored rows; docs/domain.md §2.3.6) and nothing else would count twice (`usage`,
 * `model`). It needs no `Idempotency-Key` to be retried — and a key costs the API a record in the
 * append's transaction (docs/benchmarks.md, figure 17).
 */
function deduplicatedAppend(body: unknown): boolean {
  const append = body as { messages?: { platformMessageId?: unknown }[]; usage?: unknown; model?: unknown } | undefined;
  return (
    Array.isArray(append?.messages) &&
    append.messages.length > 0 &&
    append.messages.every((message) => typeof message?.platformMessageId === 'string') &&
    append.usage === undefined &&
    append.model === undefined
  );
}

/** The query of the page after one whose `nextCursor` is `cursor`. */
function nextPageQuery(path: string, query: Record<string, unknown>, cursor: string): Record<string, unknown> {
  // Receipts page by sequence: the cursor is the next `after` (oldest first) or `before` (newest first).
  if (path === '/v1/deletion-receipts') {
    return query.order === 'newest' ? { before: Number(cursor) } : { after: Number(cursor) };
  }
  return { cursor };
}

/** The thrown form of a non-2xx answer: its problem document, or one inferred from the status. */
export function problemError(
  body: unknown,
  response: Response,
  operation: string,
  retryAfter: number | null = retryAfterMs(response.headers.get('retry-after')),
): StatehouseProblemError {
  const parsed = asProblem(body, response.status);
  const problem: Problem =
    parsed ??
    problemFromStatus(
      response.status,
      response.statusText,
      typeof body === 'string' ? body : body === undefined ? '' : JSON.stringify(body),
    );
  return new StatehouseProblemError(problem, {
    retryAfterSeconds: retryAfter === null ? null : Math.ceil(retryAfter / 1000),
    requestId: response.headers.get('x-request-id'),
    synthesized: parsed === null,
    operation,
  });
}

/** A client for `baseUrl` (see {@link StatehouseClientOptions}). */
export function createStatehouseClient(options: StatehouseClientOptions): StatehouseClient {
  return new StatehouseClient(options);
}
