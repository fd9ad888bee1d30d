import type { ProblemCode } from '@statehouse/contracts';

/**
 * Typed domain errors. The API maps them once (a global filter) to problem-details; `extra`
 * becomes extension members of the problem (currentRevision, floor, …).
 */
export class DomainError extends Error {
  constructor(
    readonly code: ProblemCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class NotFoundError extends DomainError {
  constructor(what = 'resource') {
    super('not_found', `${what} not found`);
  }
}
export class UnauthenticatedError extends DomainError {
  constructor(message = 'valid credentials are required') {
    super('unauthenticated', message);
  }
}
export class ForbiddenError extends DomainError {
  constructor(message = 'this operation requires the admin role') {
    super('forbidden', message);
  }
}
export class ValidationError extends DomainError {
  constructor(message: string, issues?: { path: string; message: string }[]) {
    super('validation_failed', message, issues ? { issues } : {});
  }
}
export class PreconditionRequiredError extends DomainError {
  constructor(header: string) {
    super('precondition_required', `this operation requires the ${header} header`);
  }
}
export class RevisionConflictError extends DomainError {
  constructor(
    readonly currentRevision: number,
    what = 'session',
  ) {
    super('revision_conflict', `the ${what} changed: current revision is ${currentRevision}`, { currentRevision });
  }
}
export class StaleGenerationError extends DomainError {
  constructor(readonly currentGeneration: number) {
    super('stale_generation', `a newer turn began: current generation is ${currentGeneration}`, {
      currentGeneration,
    });
  }
}
export class SessionBusyError extends DomainError {
  constructor(detail = 'the session has a live turn lease') {
    super('session_busy', detail);
  }
}
export class SessionClosedError extends DomainError {
  constructor(detail: string) {
    super('session_closed', detail);
  }
}
export class TitleConflictError extends DomainError {
  constructor(title: string) {
    super('title_conflict', `another session of this profile is titled "${title}"`);
  }
}
export class ConflictError extends DomainError {
  constructor(detail: string) {
    super('conflict', detail);
  }
}
export class IdempotencyConflictError extends DomainError {
  constructor() {
    super('idempotency_conflict', 'this Idempotency-Key was used with a different request');
  }
}
/** A concurrent request with the same Idempotency-Key committed first; replay its record. */
export class IdempotencyRaceError extends DomainError {
  constructor() {
    super('conflict', 'a request with the same Idempotency-Key is completing concurrently');
  }
}
export class RateLimitedError extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super('rate_limited', 'too many attempts; try again later', { retryAfterSeconds });
  }
}
export class StoreUnavailableError extends DomainError {
  constructor(detail: string, options?: { cause?: unknown; retryAfterSeconds?: number }) {
    super('store_unavailable', detail, { retryAfterSeconds: options?.retryAfterSeconds ?? 1 }, options);
  }
}
export class ProfileCollisionError extends DomainError {
  constructor(detail: string) {
    super('profile_collision', detail);
  }
}
/** A deliberate close is cleared only by the routing transport or a dashboard user (docs/domain.md §4.5). */
export class ReopenNotPermittedError extends DomainError {
  constructor(detail: string) {
    super('reopen_not_permitted', detail);
  }
}
export class DeliveryClaimedError extends DomainError {
  constructor(holder: string, expiresAt: string) {
    super('delivery_claimed', `the delivery is claimed by ${holder} until ${expiresAt}`);
  }
}
export class ClaimExpiredError extends DomainError {
  constructor(detail = 'this claim is no longer live (it expired or another worker claimed the delivery)') {
    super('claim_expired', detail);
  }
}
export class DeliverySettledError extends DomainError {
  constructor(state: string) {
    super('delivery_settled', `the delivery is already ${state}`);
  }
}
/** A read ran past its deadline and was stopped: answered `503 deadline_exceeded` with Retry-After. */
export class DeadlineExceededError extends DomainError {
  constructor(deadlineMs: number | null, reason?: string, options?: { cause?: unknown }) {
    super(
      'deadline_exceeded',
      `the read did not finish within its deadline${deadlineMs === null ? '' : ` of ${deadlineMs} ms`}${reason ? ` (${reason})` : ''}; narrow it or retry later`,
      { retryAfterSeconds: 2 },
      options,
    );
  }
}

/**
 * A delegation's wake-up claim (docs/domain.md §12): the same three outcomes, and problem codes,
 * as a delivery obligation's claim.
 */
export class WakeClaimedError extends DomainError {
  constructor(holder: string, expiresAt: string) {
    super('delivery_claimed', `the delegation's wake-up is claimed by ${holder} until ${expiresAt}`);
  }
}
export class WakeClaimExpiredError extends DomainError {
  constructor() {
    super('claim_expired', 'this claim is no longer live (it expired, was released, or another worker claimed it)');
  }
}
export class WakeSettledError extends DomainError {
  constructor(state: string) {
    super(
      'delivery_settled',
      state === 'running'
        ? 'the delegation is still running: there is nothing to wake its origin with yet'
        : `the delegation is already ${state}`,
    );
  }
}
