import type { SessionRow } from '../db/database.js';
import { isBusy } from '../repositories/session.repository.js';
import type { Preconditions } from '../shared/context.js';
import {
  PreconditionRequiredError,
  RevisionConflictError,
  SessionBusyError,
  StaleGenerationError,
} from '../shared/errors.js';

/**
 * Destructive operations (delete, rewind, reset, branch, compress) present both tokens: the
 * revision they saw (If-Match) and the generation they hold (X-Expected-Generation).
 */
export function requireDestructivePreconditions(preconditions: Preconditions): void {
  if (preconditions.ifMatch === undefined) throw new PreconditionRequiredError('If-Match');
  if (preconditions.expectedGeneration === undefined) throw new PreconditionRequiredError('X-Expected-Generation');
}

export function requireIfMatch(preconditions: Preconditions): void {
  if (preconditions.ifMatch === undefined) throw new PreconditionRequiredError('If-Match');
}

/**
 * Fencing is mandatory while a lease is live (docs/domain.md §4.6): a writer of a session under a
 * live turn lease must present that turn (`X-Turn-Id`) or the current generation
 * (`X-Expected-Generation`). A presented turn or generation that is not the live one is stale.
 */
export function assertWriterMayProceed(
  row: Pick<SessionRow, 'lease_expires_at' | 'lease_turn_id' | 'lease_holder' | 'generation'>,
  preconditions: Preconditions,
  now: number,
): void {
  if (preconditions.expectedGeneration !== undefined && preconditions.expectedGeneration !== Number(row.generation)) {
    throw new StaleGenerationError(Number(row.generation));
  }
  if (!isBusy(row, now)) return;
  if (preconditions.turnId !== undefined) {
    if (preconditions.turnId === row.lease_turn_id) return;
    throw new StaleGenerationError(Number(row.generation));
  }
  if (preconditions.expectedGeneration !== undefined) return;
  throw new SessionBusyError(
    `a turn held by ${row.lease_holder} is live until ${new Date(Number(row.lease_expires_at)).toISOString()}: present X-Turn-Id or X-Expected-Generation`,
  );
}

/** Checks presented tokens against the locked row; a live lease of another turn makes it busy. */
export function assertDestructiveAllowed(row: SessionRow, preconditions: Preconditions, now: number): void {
  if (preconditions.ifMatch !== undefined && preconditions.ifMatch !== Number(row.revision)) {
    throw new RevisionConflictError(Number(row.revision));
  }
  if (preconditions.expectedGeneration !== undefined && preconditions.expectedGeneration !== Number(row.generation)) {
    throw new StaleGenerationError(Number(row.generation));
  }
  if (isBusy(row, now) && preconditions.turnId !== row.lease_turn_id) {
    throw new SessionBusyError(
      `the session has a live turn held by ${row.lease_holder} until ${new Date(Number(row.lease_expires_at)).toISOString()}`,
    );
  }
}

/** Outside a live lease: If-Match and the expected generation are checked when given (appends, usage). */
export function assertPreconditions(session: SessionRow, preconditions: Preconditions): void {
  if (preconditions.ifMatch !== undefined && preconditions.ifMatch !== Number(session.revision)) {
    throw new RevisionConflictError(Number(session.revision));
  }
  if (
    preconditions.expectedGeneration !== undefined &&
    preconditions.expectedGeneration !== Number(session.generation)
  ) {
    throw new StaleGenerationError(Number(session.generation));
  }
}
