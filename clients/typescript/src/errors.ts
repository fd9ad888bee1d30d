import { PROBLEM_CODES } from './generated/document.js';
import type { components } from './generated/openapi.js';

type Schemas = components['schemas'];

/** Every problem `code` the API may answer, from the document's Problem schema (docs/api.md, Errors). */
export type ProblemCode = (typeof PROBLEM_CODES)[number];

/** The problem document's common members (RFC 9457 plus `code`, `requestId`, extension members). */
export type ProblemBase = Schemas['Problem'];

/** The schema the document gives one code (e.g. `StaleGenerationProblem`), when it names one per code. */
type CodeSchema<C extends ProblemCode> = Extract<Schemas[keyof Schemas], { code: C }>;

type OneProblem<C extends ProblemCode> = C extends ProblemCode
  ? [CodeSchema<C>] extends [never]
    ? Omit<ProblemBase, 'code'> & { code: C }
    : CodeSchema<C>
  : never;

/** A problem document as a union discriminated on `code`: `switch (problem.code)` narrows it. */
export type Problem = OneProblem<ProblemCode>;

/**
 * The problem document of one code: the document's own schema for that code (with the extension
 * members it always carries, e.g. `currentGeneration` with `stale_generation`) where it has one,
 * else the common Problem schema narrowed to the code. Several codes give the union.
 */
export type ProblemOf<C extends ProblemCode> = OneProblem<C>;

/** Base class of everything this client throws for a failed call. */
export class StatehouseError extends Error {
  override name = 'StatehouseError';
}

/**
 * The API answered with a problem document (any non-2xx answer). `problem` is a union discriminated
 * on `code`: `switch (error.problem.code)` narrows it; `isProblem(error, 'stale_generation')`
 * narrows `error.code` and `error.problem` together ({@link ProblemErrorOf}).
 */
export class StatehouseProblemError extends StatehouseError {
  override name = 'StatehouseProblemError';
  readonly problem: Problem;
  readonly code: ProblemCode;
  readonly status: number;
  /** Seconds from `Retry-After` (429, 503), when the API sent one. */
  readonly retryAfterSeconds: number | null;
  /** `X-Request-Id` of the answer (quote it when reporting a 500). */
  readonly requestId: string | null;
  /**
   * True when the body was not a problem document (a proxy's HTML page, an empty 502): the code
   * is then inferred from the status (see {@link problemFromStatus}).
   */
  readonly synthesized: boolean;
  /** `METHOD /path` of the call that failed. */
  readonly operation: string;

  constructor(
    problem: Problem,
    options: { retryAfterSeconds?: number | null; requestId?: string | null; synthesized?: boolean; operation: string },
  ) {
    const base = problem as unknown as ProblemBase;
    super(`${base.status} ${base.code}: ${base.detail} (${options.operation})`);
    this.problem = problem;
    this.code = base.code;
    this.status = base.status;
    this.retryAfterSeconds = options.retryAfterSeconds ?? null;
    this.requestId = options.requestId ?? base.requestId ?? null;
    this.synthesized = options.synthesized ?? false;
    this.operation = options.operation;
  }
}

/** A problem error of some codes: `code` and `problem` narrowed together. */
export type ProblemErrorOf<C extends ProblemCode> = StatehouseProblemError & {
  readonly code: C;
  readonly problem: ProblemOf<C>;
};

/** A problem error as a union over codes: after `isProblem(error)`, `switch (error.code)` narrows `error.problem`. */
export type AnyProblemError = { [C in ProblemCode]: ProblemErrorOf<C> }[ProblemCode];

/** `cursor_expired` (410): a receipt cursor below the reclaimed floor; `floor` says where replay resumes. */
export type CursorExpiredError = ProblemErrorOf<'cursor_expired'>;

/**
 * Whether `error` is a problem answer (of one of `codes`, when given): a type guard that narrows
 * `error.problem` to that code's schema.
 */
export function isProblem(error: unknown): error is AnyProblemError;
export function isProblem<C extends ProblemCode>(error: unknown, ...codes: [C, ...C[]]): error is ProblemErrorOf<C>;
export function isProblem(error: unknown, ...codes: ProblemCode[]): boolean {
  return error instanceof StatehouseProblemError && (codes.length === 0 || codes.includes(error.code));
}

/**
 * The API could not be reached or did not answer: refused connection, DNS failure, a dropped
 * connection, or no answer within the call's timeout (`timedOut`). Retried like a 503 when the
 * call is safe to repeat (docs/clients.md, Retries).
 */
export class StatehouseNetworkError extends StatehouseError {
  override name = 'StatehouseNetworkError';
  constructor(
    message: string,
    readonly operation: string,
    readonly timedOut: boolean,
    options?: { cause?: unknown },
  ) {
    super(`${message} (${operation})`, options);
  }

  /** The failure in the words of its cause (ECONNREFUSED, ENOTFOUND, …), without addresses. */
  get reason(): string {
    if (this.timedOut) return 'timeout';
    const cause = (this.cause as { cause?: { code?: unknown } } | undefined)?.cause;
    return typeof cause?.code === 'string' ? cause.code : 'connection failed';
  }
}

const KNOWN_CODES: ReadonlySet<string> = new Set(PROBLEM_CODES);

/**
 * The code of an error answer whose body is not a problem document, by its status (the registry's
 * generic code of that status; docs/api.md, Errors). A test checks it against libs/contracts.
 */
export const PROBLEM_CODE_BY_STATUS: Readonly<Record<number, ProblemCode>> = {
  400: 'validation_failed',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  412: 'revision_conflict',
  413: 'payload_too_large',
  422: 'validation_failed',
  428: 'precondition_required',
  429: 'rate_limited',
  503: 'store_unavailable',
};

/** A problem document for an answer that carried none (a proxy's page): the code inferred from the status. */
export function problemFromStatus(status: number, statusText: string, text: string): Problem {
  const code = PROBLEM_CODE_BY_STATUS[status] ?? 'internal_error';
  return {
    type: 'about:blank',
    title: statusText || 'Request failed',
    status,
    code,
    detail: text.slice(0, 300) || `HTTP ${status}`,
  } as Problem;
}

/** Whether a parsed body is a problem document of a code this client knows. */
export function asProblem(body: unknown, status: number): Problem | null {
  if (typeof body !== 'object' || body === null) return null;
  const candidate = body as Partial<ProblemBase>;
  if (typeof candidate.code !== 'string' || !KNOWN_CODES.has(candidate.code)) return null;
  if (typeof candidate.detail !== 'string') return null;
  return { type: 'about:blank', title: candidate.code, ...candidate, status: candidate.status ?? status } as Problem;
}
