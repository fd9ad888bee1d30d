/**
 * @statehouse/client — a typed client for the Statehouse REST API (docs/clients.md).
 *
 * The transport and every type come from the committed OpenAPI document (src/generated, by
 * openapi-typescript; calls go through openapi-fetch); the rest is the thin layer a generator
 * cannot know: auth, problem errors, idempotent retries, pagination, fencing, the receipt watcher.
 */
export type { Middleware } from 'openapi-fetch';
export {
  createStatehouseClient,
  problemError,
  StatehouseClient,
  type StatehouseClientOptions,
  type TokenSource,
} from './client.js';
export {
  type AnyProblemError,
  type CursorExpiredError,
  isProblem,
  PROBLEM_CODE_BY_STATUS,
  type Problem,
  type ProblemBase,
  type ProblemCode,
  type ProblemErrorOf,
  type ProblemOf,
  StatehouseError,
  StatehouseNetworkError,
  StatehouseProblemError,
} from './errors.js';
export { API_VERSION, DOCUMENT_SHA256, PROBLEM_CODES } from './generated/document.js';
export type { components, operations, paths } from './generated/openapi.js';
export { type DeletionReceipt, type ReceiptEvent, ReceiptWatcher, type ReceiptWatchOptions } from './receipts.js';
export { DEFAULT_RETRY, newIdempotencyKey, type RetryPolicy } from './retry.js';
export {
  type AppendAnswer,
  type AppendFence,
  type AppendRequest,
  type Message,
  type Session,
  SessionHandle,
  type SessionState,
  type Turn,
} from './session.js';
export { EventStreamParser, type ServerSentEvent } from './sse.js';
export type {
  AnswerOf,
  BodyOf,
  CallOptions,
  Exchange,
  ItemOf,
  Method,
  PaginatedPath,
  PathOf,
  RequestArgs,
  RequestOf,
} from './types.js';
