import type { SessionRow } from '../db/database.js';
import { isResetReason } from '../end-reasons.js';
import { ConversationGenerationRepository } from '../generations/conversation-generation.repository.js';
import type { Tx } from '../shared/unit-of-work.js';
import type { SessionRepository } from './session.repository.js';

/**
 * Writing an end stamp, shared by `end`, `reset` and `compress`: the first end wins, and a
 * reset-class end that actually wrote a boundary bumps the conversation generation of the peer in
 * the same transaction (a repeated end does not count twice).
 */
export class SessionLifecycle {
  private readonly generations = new ConversationGenerationRepository();

  constructor(private readonly sessions: SessionRepository) {}

  async end(
    tx: Tx,
    row: SessionRow,
    reason: string,
    now: number,
  ): Promise<{ stamped: boolean; conversationGeneration?: number }> {
    const stamped = await this.sessions.stampEnd(tx.db, row.id, now, reason);
    if (!stamped || !isResetReason(reason) || row.session_key === null) return { stamped };
    // Keyed by the surface the conversation was born on: a later `source` change must not move it.
    const conversationGeneration = await this.generations.bump(tx.db, row.created_source, row.session_key, now);
    return { stamped, conversationGeneration };
  }

  async clearEnd(tx: Tx, row: SessionRow): Promise<void> {
    if (row.ended_at !== null) await this.sessions.clearEnd(tx.db, row.id);
  }
}
