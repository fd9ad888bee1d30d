import { z } from 'zod';

export const PROBLEM_CODES = [
  'unauthenticated',
  'forbidden',
  'not_found',
  'validation_failed',
  'precondition_required',
  'revision_conflict',
  'stale_generation',
  'session_busy',
  'session_closed',
  'idempotency_conflict',
  'title_conflict',
  'profile_collision',
  'cursor_expired',
  'payload_too_large',
  'rate_limited',
  'store_unavailable',
  'conflict',
  'internal_error',
] as const;
export const ProblemCodeSchema = z.enum(PROBLEM_CODES);
export type ProblemCode = z.infer<typeof ProblemCodeSchema>;

/** RFC 9457 problem details, as every error response of the API is shaped. */
export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    code: ProblemCodeSchema,
    detail: z.string(),
    requestId: z.string().optional(),
    currentRevision: z.number().int().optional(),
    currentGeneration: z.number().int().optional(),
    issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .passthrough();
export type Problem = z.infer<typeof ProblemSchema>;

export const PROBLEM_STATUS: Record<ProblemCode, number> = {
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  validation_failed: 400,
  precondition_required: 428,
  revision_conflict: 412,
  stale_generation: 409,
  session_busy: 409,
  session_closed: 409,
  idempotency_conflict: 422,
  title_conflict: 409,
  profile_collision: 409,
  cursor_expired: 410,
  payload_too_large: 413,
  rate_limited: 429,
  store_unavailable: 503,
  conflict: 409,
  internal_error: 500,
};

export const PROBLEM_TITLES: Record<ProblemCode, string> = {
  unauthenticated: 'Authentication required',
  forbidden: 'Forbidden',
  not_found: 'Not found',
  validation_failed: 'Validation failed',
  precondition_required: 'Precondition required',
  revision_conflict: 'Revision conflict',
  stale_generation: 'Stale generation',
  session_busy: 'Session busy',
  session_closed: 'Session closed',
  idempotency_conflict: 'Idempotency key reused with a different request',
  title_conflict: 'Title already in use',
  profile_collision: 'Profile collision',
  cursor_expired: 'Cursor expired',
  payload_too_large: 'Payload too large',
  rate_limited: 'Too many requests',
  store_unavailable: 'Store unavailable',
  conflict: 'Conflict',
  internal_error: 'Internal error',
};

/**
 * The problem code of an HTTP status that carries no code of its own: a framework error on the API
 * side, a non-conforming error body (a proxy's HTML page) on the client side. Each side picks its
 * own fallback for statuses not listed here.
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

export const problemTypeUri = (code: ProblemCode) => `https://statehouse.dev/problems/${code.replaceAll('_', '-')}`;
