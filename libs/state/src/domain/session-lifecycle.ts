import type { SessionRow } from '../db/database.js';
import { ConversationGenerationRepository } from '../repositories/conversation-generation.repository.js';
import { isPermanentEnd, isRecoverableReason, isResetReason } from './end-reasons.js';
import type { HookRegistry, SessionReopenedEvent } from './hook-registry.js';

/** Where revivals are announced: the store's hooks, or the append writer's thread's messenger. */
export type ReopenedSink = Pick<HookRegistry, 'dispatchSessionReopened'>;

import type { Tx } from '../db/unit-of-work.js';
import type { SessionRepository } from '../repositories/session.repository.js';

/**
 * Writing an end stamp, shared by `end`, `reset` and `compress`: the first end wins, and a
 * reset-class end that actually wrote a boundary bumps the conversation generation of the peer in
 * the same transaction (a repeated end does not count twice).
 */
export class SessionLifecycle {
  private readonly generations = new ConversationGenerationRepository();

  constructor(
    private readonly sessions: SessionRepository,
    /** Lifecycle observers hear revivals after commit (null: nobody listens, e.g. an import). */
    private readonly hooks: ReopenedSink | null = null,
  ) {}

  async end(
    tx: Tx,
    row: SessionRow,
    reason: string,
    now: number,
    detail: string | null = null,
  ): Promise<{ stamped: boolean; conversationGeneration?: number }> {
    const stamped = await this.sessions.stampEnd(tx.db, row.id, now, reason, detail);
    if (!stamped || !isResetReason(reason) || row.session_key === null) return { stamped };
    // Keyed by the surface the conversation was born on: a later `source` change must not move it.
    const conversationGeneration = await this.generations.bump(tx.db, row.created_source, row.session_key, now);
    return { stamped, conversationGeneration };
  }

  /**
   * Clears the end stamp (revision + 1) and tells lifecycle observers after commit: every path that
   * makes an ended session open again comes through here or through `announceReopened`. `via`
   * null: the caller ends the row again in the same transaction (a compression or reset of an
   * automatically ended parent), so nobody is told it was open.
   */
  async clearEnd(tx: Tx, row: SessionRow, via: SessionReopenedEvent['via'] | null): Promise<void> {
    if (row.ended_at === null) return;
    await this.sessions.clearEnd(tx.db, row.id);
    if (via !== null) this.announceReopened(tx, row, via, Number(row.revision) + 1);
  }

  /** For a statement that cleared the end itself (a turn's lease, an append's counters). */
  announceReopened(
    tx: Pick<Tx, 'afterCommit'>,
    row: Pick<SessionRow, 'id' | 'profile' | 'end_reason'>,
    via: SessionReopenedEvent['via'],
    revision: number,
  ): void {
    const hooks = this.hooks;
    if (!hooks || row.end_reason === null) return;
    const event: SessionReopenedEvent = {
      sessionId: row.id,
      profile: row.profile,
      clearedEndReason: row.end_reason,
      via,
      revision,
    };
    tx.afterCommit(() => hooks.dispatchSessionReopened(event));
  }
}

/**
 * Whether resolving the chat (or writing to it) may revive this ended row (docs/domain.md §6.3):
 * an accidental end (§4.3), or any end but a final one on a row a completed handoff owns (§4.8).
 * Open rows are not "revivable": there is nothing to revive.
 */
export function isRevivable(row: Pick<SessionRow, 'ended_at' | 'end_reason' | 'handoff_state'>): boolean {
  if (row.ended_at === null || row.end_reason === 'compression') return false;
  if (isRecoverableReason(row.end_reason)) return true;
  return row.handoff_state === 'completed' && !isPermanentEnd(row.end_reason);
}
