import type { SessionRow } from '../db/database.js';
import type { Preconditions } from '../shared/context.js';
import {
  PreconditionRequiredError,
  RevisionConflictError,
  SessionBusyError,
  StaleGenerationError,
} from '../shared/errors.js';
import { isBusy } from './session.repository.js';

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
