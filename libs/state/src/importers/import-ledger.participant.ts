import type { Tx } from '../db/unit-of-work.js';
import type { DeletionParticipant } from '../domain/deletion-participant.js';
import { ImportLedgerRepository } from '../repositories/import-ledger.repository.js';

/**
 * Joins every deletion: the ledger entry of a removed imported session keeps only a tombstone (id,
 * no snapshot, no content fingerprint), so the next re-import of the same store leaves it deleted.
 * Its message entries go with the session row itself (foreign key, cascade). A session moved to
 * another profile keeps its entries: they name the session, not its profile, and a re-import
 * updates it where it now lives.
 */
export class ImportLedgerParticipant implements DeletionParticipant {
  readonly name = 'import_ledger';
  private readonly ledger = new ImportLedgerRepository();

  count(tx: Tx, sessionIds: readonly string[]): Promise<number> {
    return this.ledger.countForSessions(tx.db, sessionIds);
  }

  remove(tx: Tx, sessionIds: readonly string[]): Promise<void> {
    return this.ledger.markDeleted(tx.db, sessionIds);
  }

  /** A purge in chunks removes the message entries in chunks too (10⁵ of them by cascade is one long statement). */
  purgeSome(tx: Tx, sessionId: string, limit: number): Promise<number> {
    return this.ledger.deleteSomeMessagesOf(tx.db, sessionId, limit);
  }

  async relocate(): Promise<void> {
    // Nothing to move: the ledger holds session ids, which a profile move keeps.
  }
}
