import { z } from 'zod';

export interface ProblemDefinition {
  status: number;
  title: string;
  /** When the API answers with this code and what the caller should do (docs/api.md, Errors). */
  description: string;
}

/**
 * The one registry of problem codes (docs/api.md, Errors). The API's problem filter takes status and
 * title from here, the OpenAPI document enumerates the codes with these descriptions, and a test
 * fails when code anywhere uses a code that is not listed here or docs/api.md does not list one.
 */
export const PROBLEM_REGISTRY = {
  unauthenticated: {
    status: 401,
    title: 'Authentication required',
    description: 'No credentials, or a token or dashboard session that is unknown, revoked or expired.',
  },
  forbidden: {
    status: 403,
    title: 'Forbidden',
    description: 'An admin-only operation asked by a member principal.',
  },
  not_found: {
    status: 404,
    title: 'Not found',
    description:
      "The resource does not exist, or belongs to a profile outside the principal's set (the owner fence answers exactly like a missing row).",
  },
  validation_failed: {
    status: 400,
    title: 'Validation failed',
    description:
      'The request does not match its schema or breaks an input rule (ids, limits, a user title over 100 characters, a negative retention window, a display kind other than hidden). `issues` lists the offending fields.',
  },
  precondition_required: {
    status: 428,
    title: 'Precondition required',
    description: 'A mutation of a session without `If-Match`, or a destructive one without `X-Expected-Generation`.',
  },
  revision_conflict: {
    status: 412,
    title: 'Revision conflict',
    description:
      'The `If-Match` revision is stale; `currentRevision` says what the session carries now. Re-read and retry.',
  },
  stale_generation: {
    status: 409,
    title: 'Stale generation',
    description:
      'The writer fenced itself out: `X-Expected-Generation` is stale, or the turn being renewed or completed is no longer the live one. `currentGeneration` is the session now.',
  },
  session_busy: {
    status: 409,
    title: 'Session busy',
    description:
      'Another holder has a live turn lease (or a compression of the same conversation is in flight): present that turn (`X-Turn-Id`) or the current generation, or retry after the lease.',
  },
  session_closed: {
    status: 409,
    title: 'Session closed',
    description:
      'The session carries an end that is never cleared (compression, branched, a reset reason), or writing to it would reopen a conversation that continues elsewhere.',
  },
  reopen_not_permitted: {
    status: 409,
    title: 'Reopen not permitted',
    description:
      'The session was closed deliberately (cli_close, tui_close, cli_exit, webhook_complete): only a caller naming the transport profile its live route delivers through, or a dashboard user, may reopen it.',
  },
  idempotency_conflict: {
    status: 422,
    title: 'Idempotency key reused with a different request',
    description: 'The `Idempotency-Key` was first used with a different request; choose a new key.',
  },
  title_conflict: {
    status: 409,
    title: 'Title already in use',
    description: 'Another session of the same profile already carries this user title.',
  },
  profile_collision: {
    status: 409,
    title: 'Profile collision',
    description: 'A profile rename would collide with an existing profile or routing key; nothing was changed.',
  },
  cursor_expired: {
    status: 410,
    title: 'Cursor expired',
    description: 'A receipt cursor below the reclaimed floor; `floor` says where replay can resume.',
  },
  epoch_changed: {
    status: 410,
    title: 'Store epoch changed',
    description:
      "A receipt cursor (or acknowledgement) sent with an `epoch` that is not the store's: the store was restored from a backup since, and sequences after the backup name other receipts. `epoch` is the current one: resynchronise from the start under it.",
  },
  delivery_claimed: {
    status: 409,
    title: 'Delivery claimed',
    description: "Another worker holds a live claim on this delivery obligation (or delegation's wake-up).",
  },
  claim_expired: {
    status: 409,
    title: 'Claim expired',
    description:
      "The caller's claim on a delivery obligation, a delegation's wake-up or a scheduled wake-up is no longer live (it expired and another claim took it over, was released, or was superseded); claim again.",
  },
  delivery_settled: {
    status: 409,
    title: 'Delivery settled',
    description:
      'The delivery obligation is already delivered or abandoned, or the delegation is not due (running, delivered or abandoned); it cannot be claimed or settled.',
  },
  conflict: {
    status: 409,
    title: 'Conflict',
    description:
      'The request conflicts with the current state: an id that already exists, a handoff step out of order, an empty-only delete of a non-empty session, a rebuild already running, a concurrent twin of an Idempotency-Key still completing.',
  },
  payload_too_large: {
    status: 413,
    title: 'Payload too large',
    description: 'The request body exceeds 5 MiB.',
  },
  rate_limited: {
    status: 429,
    title: 'Too many requests',
    description: 'Too many failed logins; `Retry-After` says when to try again.',
  },
  internal_error: {
    status: 500,
    title: 'Internal error',
    description: 'An unexpected failure. It is logged with the request id (`requestId`); quote it when reporting.',
  },
  store_unavailable: {
    status: 503,
    title: 'Store unavailable',
    description:
      'The database cannot answer (unreachable, corrupt, locked past the lock timeout); `Retry-After` says when to retry.',
  },
  deadline_exceeded: {
    status: 503,
    title: 'Deadline exceeded',
    description:
      'A heavy read (a session list, search, lineage, an export page) ran past its deadline (SQLite: `STATEHOUSE_READ_DEADLINE_MS`; PostgreSQL: `statement_timeout`) and was stopped; narrow it or retry after `Retry-After`.',
  },
} as const satisfies Record<string, ProblemDefinition>;

export type ProblemCode = keyof typeof PROBLEM_REGISTRY;
export const PROBLEM_CODES = Object.keys(PROBLEM_REGISTRY) as [ProblemCode, ...ProblemCode[]];
export const ProblemCodeSchema = z.enum(PROBLEM_CODES);

export const ProblemIssueSchema = z.object({
  path: z.string().describe('the offending field, dot-separated (empty for the request as a whole)'),
  message: z.string(),
});

const RetryAfterSecondsSchema = z
  .number()
  .int()
  .min(0)
  .describe('seconds to wait before retrying (also sent as `Retry-After`)')
  .meta({ examples: [1] });

/**
 * Extension members a code always carries (docs/api.md, Errors): the OpenAPI document gives each
 * code its own problem schema with these members, so a generated client can narrow on `code`.
 */
export const PROBLEM_MEMBERS = {
  validation_failed: z.object({
    issues: z.array(ProblemIssueSchema).optional().describe('the offending fields, at most 50'),
  }),
  revision_conflict: z.object({
    currentRevision: z
      .number()
      .int()
      .describe('the revision the session carries now')
      .meta({ examples: [4] }),
  }),
  stale_generation: z.object({
    currentGeneration: z
      .number()
      .int()
      .describe('the generation the session is at now')
      .meta({ examples: [3] }),
  }),
  cursor_expired: z.object({
    floor: z
      .number()
      .int()
      .describe('receipts at or below this sequence were reclaimed: resume after a full resync')
      .meta({ examples: [120] }),
  }),
  epoch_changed: z.object({
    epoch: z
      .string()
      .describe('the current store epoch: resynchronise from the start under it')
      .meta({ examples: ['01JEPOCH7Q4S3ZK0M2V8X6N5RD'] }),
  }),
  rate_limited: z.object({ retryAfterSeconds: RetryAfterSecondsSchema }),
  store_unavailable: z.object({ retryAfterSeconds: RetryAfterSecondsSchema }),
  deadline_exceeded: z.object({ retryAfterSeconds: RetryAfterSecondsSchema }),
} as const satisfies Partial<Record<ProblemCode, z.ZodObject>>;

/** RFC 9457 problem details, as every error response of the API is shaped. */
export const ProblemSchema = z
  .object({
    type: z.string().describe('a URI naming the code'),
    title: z.string().describe("the code's title (the same for every problem of that code)"),
    status: z.number().int().describe('the HTTP status of the answer'),
    code: ProblemCodeSchema.describe('the stable error code a client branches on'),
    detail: z.string().describe('what happened in this case, for a person'),
    requestId: z.string().optional().describe('the request id (`X-Request-Id`): quote it when reporting'),
    currentRevision: z.number().int().optional().describe('with revision_conflict'),
    currentGeneration: z.number().int().optional().describe('with stale_generation'),
    floor: z.number().int().optional().describe('with cursor_expired'),
    epoch: z.string().optional().describe('with epoch_changed'),
    retryAfterSeconds: z
      .number()
      .int()
      .optional()
      .describe('with rate_limited, store_unavailable and deadline_exceeded'),
    issues: z.array(ProblemIssueSchema).optional().describe('with validation_failed'),
  })
  .passthrough();
export type Problem = z.infer<typeof ProblemSchema>;

export const PROBLEM_STATUS = Object.fromEntries(
  Object.entries(PROBLEM_REGISTRY).map(([code, entry]) => [code, entry.status]),
) as Record<ProblemCode, number>;

export const PROBLEM_TITLES = Object.fromEntries(
  Object.entries(PROBLEM_REGISTRY).map(([code, entry]) => [code, entry.title]),
) as Record<ProblemCode, string>;

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
