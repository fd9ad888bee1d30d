import type { FetchOptions } from 'openapi-fetch';
import type {
  FilterKeys,
  PathsWithMethod,
  RequiredKeysOf,
  ResponseObjectMap,
  SuccessResponse,
} from 'openapi-typescript-helpers';
import type { paths } from './generated/openapi.js';
import type { RetryPolicy } from './retry.js';

/** The HTTP methods the API uses. */
export type Method = 'get' | 'put' | 'post' | 'patch' | 'delete';

/** The document's paths that answer `M` (e.g. `PathOf<'post'>` includes `'/v1/sessions/{id}/messages'`). */
export type PathOf<M extends Method> = PathsWithMethod<paths, M>;

/** The operation object of `M P` as the generator typed it. */
export type OperationOf<P extends keyof paths, M extends Method> = FilterKeys<paths[P], M>;

/** What a call may add to openapi-fetch's request options. */
export interface CallOptions {
  /**
   * `Idempotency-Key` of this logical call, sent with every attempt. Default: a new random key for
   * each POST, PATCH and DELETE when the client's `idempotency` is `'auto'` — except an append
   * the API deduplicates itself (every message with a `platformMessageId`, no `usage` or `model`);
   * `false` sends none (the call is then retried only if it is a GET, a PUT or such an append).
   */
  idempotencyKey?: string | false;
  /** This call's retry policy (merged over the client's), or `false` for one attempt only. */
  retry?: Partial<RetryPolicy> | false;
  /** Milliseconds until an attempt without an answer is abandoned (the client's default otherwise). */
  timeoutMs?: number;
}

/** The request options of `M P`: path, query and header parameters, body, plus {@link CallOptions}. */
export type RequestOf<P extends PathOf<M>, M extends Method> = FetchOptions<OperationOf<P, M>> & CallOptions;

/** The options argument, required exactly when the operation has a required parameter or body. */
export type RequestArgs<P extends PathOf<M>, M extends Method> =
  RequiredKeysOf<RequestOf<P, M>> extends never ? [init?: RequestOf<P, M>] : [init: RequestOf<P, M>];

type Success<P extends PathOf<M>, M extends Method> =
  // biome-ignore lint/suspicious/noExplicitAny: the helpers' own constraint
  ResponseObjectMap<OperationOf<P, M>> extends infer Responses extends Record<string | number, any>
    ? SuccessResponse<Responses, 'application/json'>
    : never;

/** The JSON body of a successful answer to `M P` (`undefined` for a 204). */
export type AnswerOf<P extends PathOf<M>, M extends Method> = [Success<P, M>] extends [never]
  ? undefined
  : Success<P, M>;

/** A successful answer with its response (headers: `ETag`, `Idempotent-Replayed`, `X-Request-Id`). */
export interface Exchange<T> {
  data: T;
  response: Response;
}

/** GET paths answering a cursor page `{items, nextCursor}`: what `pages()` and `paginate()` walk. */
export type PaginatedPath = {
  [P in PathOf<'get'>]: AnswerOf<P, 'get'> extends { items: unknown[]; nextCursor: string | null } ? P : never;
}[PathOf<'get'>];

/** One item of a paginated list. */
export type ItemOf<P extends PaginatedPath> = AnswerOf<P, 'get'> extends { items: (infer Item)[] } ? Item : never;

/** The JSON request body of `M P`. */
export type BodyOf<P extends PathOf<M>, M extends Method> =
  OperationOf<P, M> extends {
    requestBody?: { content: { 'application/json': infer Body } };
  }
    ? Body
    : never;
