import type { Tx } from '../db/unit-of-work.js';

/**
 * Something else that holds rows for sessions (routes, …). The deletion engine asks each
 * participant to count, then remove, what it holds for the removed sessions — in the deleting
 * transaction, after the receipt is written.
 */
export interface DeletionParticipant {
  readonly name: 'routes' | 'deliveries' | string;
  count(tx: Tx, sessionIds: readonly string[]): Promise<number>;
  remove(tx: Tx, sessionIds: readonly string[]): Promise<void>;
  /**
   * The sessions moved to another profile (profile repair). Participants whose rows can follow
   * them do so here; without this method a move removes the participant's rows like a deletion.
   */
  relocate?(tx: Tx, sessionIds: readonly string[], targetProfile: string): Promise<void>;
  /**
   * Removes up to `limit` of the rows it holds per message of a session being purged in chunks
   * (hidden for deletion); returns how many. Rows it holds per session go with the session row.
   */
  purgeSome?(tx: Tx, sessionId: string, limit: number): Promise<number>;
}
