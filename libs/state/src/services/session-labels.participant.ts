import type { LineageKind } from '@statehouse/contracts';
import type { SessionRow } from '../db/database.js';
import type { Tx } from '../db/unit-of-work.js';
import type { DeletionParticipant } from '../domain/deletion-participant.js';
import { SessionLabelRepository } from '../repositories/session-label.repository.js';
import type { Clock } from '../shared/clock.js';
import type { ContinuationHook } from './lineage.service.js';

/**
 * A session's labels through its life (docs/domain.md §15): they go with it when it is deleted,
 * stay behind when it moves to another profile (a label belongs to its profile), and carry over
 * to the child of a compression, where the conversation goes on.
 */
export class SessionLabelsParticipant implements DeletionParticipant, ContinuationHook {
  readonly name = 'labels';
  private readonly tags = new SessionLabelRepository();

  constructor(private readonly clock: Clock) {}

  /** Labels are not content: receipts never count them (the engine asks participants by name). */
  async count(): Promise<number> {
    return 0;
  }

  async remove(tx: Tx, sessionIds: readonly string[]): Promise<void> {
    await this.tags.removeSessions(tx.db, sessionIds);
  }

  async relocate(tx: Tx, sessionIds: readonly string[]): Promise<void> {
    await this.tags.removeSessions(tx.db, sessionIds);
  }

  async onContinued(tx: Tx, from: SessionRow, to: SessionRow, kind: LineageKind): Promise<void> {
    // A branch or a reset starts a new conversation, untagged.
    if (kind === 'compression' && from.profile === to.profile) {
      await this.tags.copy(tx.db, from.id, to.id, this.clock.now());
    }
  }
}
