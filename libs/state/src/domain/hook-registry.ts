import type { DeletionIntent, DeletionOrigin, DeletionReason, ReceiptRef } from '@statehouse/contracts';
import type { Logger } from '../shared/logger.js';

/**
 * What a deletion observer hears (docs/domain.md §5.2): once per operation — one call however many
 * profiles, transactions or chunks the operation took — after its last commit, never on rollback.
 */
export interface SessionDeletedEvent {
  /** The operation's first receipt (a fresh id for an archive, which writes none). */
  operationId: string;
  /**
   * `archive` for a deliberate archive (nothing removed, no receipt); `profile_repair` for sessions
   * that left `profile` for `toProfile` — heard from the profile they left: they are gone from it.
   */
  reason: DeletionReason | 'archive';
  origin: DeletionOrigin;
  intent: DeletionIntent;
  /** The profile of `sessionId`; an operation may span profiles (`byProfile`). */
  profile: string;
  /** The session the operation was about (the first selected one). */
  sessionId: string;
  /** Every session that left: removed, or for `profile_repair` moved out of its profile. */
  deletedIds: string[];
  /** `deletedIds` by the profile each one left: what a plugin keyed by (profile, session) releases. */
  byProfile: Record<string, string[]>;
  /** The receipts the operation wrote, in order (one per profile and transaction; none for an archive). */
  receipts: ReceiptRef[];
  /** For `archive`: the sessions put away (the whole compression lineage). */
  archivedIds?: string[];
  /** For `profile_repair`: the profile the sessions now live in, with their messages. */
  toProfile?: string;
}

export type SessionDeletedObserver = (event: SessionDeletedEvent) => void | Promise<void>;

/**
 * What a move observer hears (docs/domain.md §5.2): sessions that left `fromProfile` for
 * `toProfile` — still alive, with their messages — once per committed move, after commit.
 * Deletion observers hear the same move from `fromProfile`'s side (`reason: 'profile_repair'`).
 */
export interface SessionMovedEvent {
  operationId: string;
  reason: 'profile_repair';
  origin: DeletionOrigin;
  intent: DeletionIntent;
  fromProfile: string;
  toProfile: string;
  /** The session the move was asked for. */
  sessionId: string;
  /** Every session that moved (its compression chain and delegates with it). */
  movedIds: string[];
}

export type SessionMovedObserver = (event: SessionMovedEvent) => void | Promise<void>;

/**
 * What a lifecycle observer hears when an ended session is open again (docs/domain.md §4): once
 * per committed revival, after commit. `via` names the path that revived it: a resolve that
 * recovered the chat, an append to a recoverably ended session, a turn, or an explicit reopen.
 */
export interface SessionReopenedEvent {
  sessionId: string;
  profile: string;
  /** The end stamp the revival cleared. */
  clearedEndReason: string;
  via: 'resolve' | 'append' | 'turn' | 'reopen';
  /** The session's revision after the revival (its transaction may have changed more). */
  revision: number;
}

export type SessionReopenedObserver = (event: SessionReopenedEvent) => void | Promise<void>;

/** A deletion observer gets this long before it is logged and abandoned. */
export const OBSERVER_TIMEOUT_MS = 5_000;

/**
 * In-process hooks for plugins. Fail-open: a throwing or hanging observer is logged and skipped;
 * it can never break, delay past its timeout, or roll back a delete. No veto. Best-effort and
 * process-local (docs/domain.md §5.2.5): no exactly-once, a call is lost if the process dies between
 * the commit and the call, and another process's deletions are heard there — the receipt feed is
 * the durable cross-process channel.
 */
export class HookRegistry {
  private readonly observers = new Set<SessionDeletedObserver>();
  private readonly moveObservers = new Set<SessionMovedObserver>();
  private readonly reopenObservers = new Set<SessionReopenedObserver>();
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly logger: Logger,
    private readonly timeoutMs = OBSERVER_TIMEOUT_MS,
  ) {}

  onSessionDeleted(observer: SessionDeletedObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  onSessionMoved(observer: SessionMovedObserver): () => void {
    this.moveObservers.add(observer);
    return () => this.moveObservers.delete(observer);
  }

  onSessionReopened(observer: SessionReopenedObserver): () => void {
    this.reopenObservers.add(observer);
    return () => this.reopenObservers.delete(observer);
  }

  /** Called by post-commit effects: starts every observer and returns at once. */
  dispatchSessionDeleted(event: SessionDeletedEvent): void {
    for (const observer of this.observers) this.start(() => observer(event), event.operationId);
  }

  dispatchSessionMoved(event: SessionMovedEvent): void {
    for (const observer of this.moveObservers) this.start(() => observer(event), event.operationId);
  }

  dispatchSessionReopened(event: SessionReopenedEvent): void {
    for (const observer of this.reopenObservers) this.start(() => observer(event), `reopen:${event.sessionId}`);
  }

  private start(call: () => void | Promise<void>, operationId: string): void {
    const run = this.runBounded(call, operationId);
    this.pending.add(run);
    void run.finally(() => this.pending.delete(run));
  }

  /** Resolves when every observer started so far has finished or timed out (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private async runBounded(call: () => void | Promise<void>, operationId: string): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.timeoutMs);
      timer.unref?.();
    });
    try {
      const outcome = await Promise.race([Promise.resolve().then(call), timeout]);
      if (outcome === 'timeout') {
        this.logger.warn('session observer timed out; skipped', { operationId, timeoutMs: this.timeoutMs });
      }
    } catch (error) {
      this.logger.error('session observer failed; skipped', { operationId, error: String(error) });
    } finally {
      clearTimeout(timer);
    }
  }
}
