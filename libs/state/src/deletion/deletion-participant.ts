import type { Tx } from '../shared/unit-of-work.js';

/**
 * Something else that holds rows for sessions (routes, …). The deletion engine asks each
 * participant to count, then remove, what it holds for the removed sessions — in the deleting
 * transaction, after the receipt is written.
 */
export interface DeletionParticipant {
  readonly name: 'routes' | string;
  count(tx: Tx, sessionIds: readonly string[]): Promise<number>;
  remove(tx: Tx, sessionIds: readonly string[]): Promise<void>;
}
