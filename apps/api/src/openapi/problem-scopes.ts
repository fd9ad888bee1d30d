import type { ProblemCode } from '@statehouse/contracts';
import type { OperationFacts } from './operation-facts.js';

export interface ProblemScope {
  /** Which operations can answer the code, in words (docs/api.md, "Errors per operation"). */
  when: string;
  applies: (facts: OperationFacts) => boolean;
}

const SESSION_PATH = /^\/v1\/sessions\/\{id\}(\/|$)/;
/** Request members that name another row (a profile, a session, …): an owner-fenced lookup, 404 when missing or out of reach. */
const REFERENCE = /^(profile|.+Id|.+Ids|ids)$/;
const writesSession = (facts: OperationFacts) => facts.mutation && SESSION_PATH.test(facts.path);
/** Work claimed under a lease and settled once: delivery obligations, delegation wake-ups, schedule ticks. */
const CLAIMED_TAGS = new Set(['deliveries', 'delegations', 'schedules']);
const claimsOne = (facts: OperationFacts) =>
  facts.mutation && CLAIMED_TAGS.has(facts.tag) && facts.pathParams.length > 0;

/**
 * For every code of the problem registry (libs/contracts/src/problem.schema.ts), the kind of
 * operation that can answer it, in terms of what routes declare (operation-facts.ts). The OpenAPI
 * document lists, per operation and status, exactly the codes whose scope applies; the API tests
 * fail on any answer outside it. A new code needs its scope here (the type requires it); a new
 * route gets its codes from its declarations.
 */
export const PROBLEM_SCOPES: Record<ProblemCode, ProblemScope> = {
  unauthenticated: {
    when: 'every operation that needs credentials, and those that check a password (a wrong one)',
    applies: (facts) => facts.auth === 'required' || (facts.auth === 'optional' && facts.adminOnly) || facts.throttled,
  },
  forbidden: {
    when: 'admin-only operations (asked by a member), dashboard-only ones (asked with a token), and every mutation (a dashboard cookie from another origin, a login from another site)',
    applies: (facts) => facts.adminOnly || facts.cookieOnly || facts.mutation,
  },
  not_found: {
    when: 'operations on a row named in the path, or naming one (a profile, a session id) in the query or body: missing or outside the caller’s profiles',
    applies: (facts) =>
      facts.pathParams.length > 0 || [...facts.queryFields, ...facts.bodyFields].some((name) => REFERENCE.test(name)),
  },
  validation_failed: {
    when: 'every operation (the URL, parameters, headers and body are checked)',
    applies: () => true,
  },
  precondition_required: {
    when: 'operations that require `If-Match` or `X-Expected-Generation`',
    applies: (facts) =>
      facts.headers['If-Match'] === 'required' || facts.headers['X-Expected-Generation'] === 'required',
  },
  revision_conflict: {
    when: 'operations that take `If-Match`',
    applies: (facts) => 'If-Match' in facts.headers,
  },
  stale_generation: {
    when: 'operations that take `X-Expected-Generation` or `X-Turn-Id`, and renewing or completing a turn',
    applies: (facts) =>
      'X-Expected-Generation' in facts.headers || 'X-Turn-Id' in facts.headers || facts.pathParams.includes('turnId'),
  },
  session_busy: {
    when: 'writes fenced by turn leases (`X-Turn-Id`), beginning a turn, and admin repairs that move or delete sessions',
    applies: (facts) =>
      'X-Turn-Id' in facts.headers ||
      (facts.mutation && facts.tag === 'turns' && !facts.pathParams.includes('turnId')) ||
      (facts.mutation && facts.adminOnly && (facts.tag === 'profiles' || SESSION_PATH.test(facts.path))),
  },
  session_closed: {
    when: 'writes to a session (`/v1/sessions/{id}/…`)',
    applies: writesSession,
  },
  reopen_not_permitted: {
    when: 'writes to a session that name a `transportProfile` (reopen)',
    applies: (facts) => writesSession(facts) && facts.bodyFields.includes('transportProfile'),
  },
  idempotency_conflict: {
    when: 'every operation that honours `Idempotency-Key`',
    applies: (facts) => facts.idempotent,
  },
  title_conflict: {
    when: 'operations whose body sets a session `title`',
    applies: (facts) => facts.bodyFields.includes('title'),
  },
  profile_collision: {
    when: 'changes to a named profile',
    applies: (facts) => facts.mutation && facts.tag === 'profiles' && facts.pathParams.length > 0,
  },
  cursor_expired: {
    when: 'receipt reads from a sequence (`after`)',
    applies: (facts) => facts.queryFields.includes('after'),
  },
  epoch_changed: {
    when: 'receipt reads and consumer acknowledgements that carry a store `epoch`',
    applies: (facts) => facts.queryFields.includes('epoch') || facts.bodyFields.includes('epoch'),
  },
  delivery_claimed: {
    when: 'changes to one claimed item: a delivery obligation, a delegation’s wake-up, a wake-up schedule',
    applies: claimsOne,
  },
  claim_expired: {
    when: 'changes to one claimed item: a delivery obligation, a delegation’s wake-up, a wake-up schedule',
    applies: claimsOne,
  },
  delivery_settled: {
    when: 'changes to one claimed item: a delivery obligation, a delegation’s wake-up, a wake-up schedule',
    applies: claimsOne,
  },
  conflict: {
    when: 'every mutation (an id that exists, a step out of order, a concurrent twin of an `Idempotency-Key`, …)',
    applies: (facts) => facts.mutation,
  },
  payload_too_large: {
    when: 'operations that take a request body',
    applies: (facts) => facts.hasBody,
  },
  rate_limited: {
    when: 'operations that check a password (throttled like a login)',
    applies: (facts) => facts.throttled,
  },
  internal_error: {
    when: 'every operation',
    applies: () => true,
  },
  store_unavailable: {
    when: 'every operation that reads or writes the store',
    applies: (facts) => !facts.storeFree,
  },
  deadline_exceeded: {
    when: 'every operation that reads or writes the store (a statement past its deadline is stopped)',
    applies: (facts) => !facts.storeFree,
  },
};

/**
 * A code answered with another status than its registry's, and where: body-parser refuses a JSON
 * body in a charset or content encoding it does not read with 415 (`validation_failed`).
 */
export const OTHER_STATUSES: { code: ProblemCode; status: number; when: string; applies: ProblemScope['applies'] }[] = [
  {
    code: 'validation_failed',
    status: 415,
    when: 'a JSON body in a charset or content encoding the API does not read',
    applies: (facts) => facts.jsonBody,
  },
];
