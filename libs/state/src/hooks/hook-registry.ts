import type { DeletionIntent, DeletionOrigin, DeletionReason } from '@statehouse/contracts';
import type { Logger } from '../shared/logger.js';

/** What a deletion observer hears: once per committed operation, after commit, never on rollback. */
export interface SessionDeletedEvent {
  operationId: string;
  /** `archive` for a deliberate archive (nothing removed, no receipt). */
  reason: DeletionReason | 'archive';
  origin: DeletionOrigin;
  intent: DeletionIntent;
  profile: string;
  /** The session the operation was about (the first selected one). */
  sessionId: string;
  deletedIds: string[];
  /** For `archive`: the sessions put away (the whole compression lineage). */
  archivedIds?: string[];
}

export type SessionDeletedObserver = (event: SessionDeletedEvent) => void | Promise<void>;

/**
 * What a move observer hears (docs/domain.md §5.2): sessions that left `fromProfile` for
 * `toProfile` — still alive, with their messages — once per committed move, after commit. A move
 * is never reported as a deletion: deletion observers do not hear it.
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

/** A deletion observer gets this long before it is logged and abandoned. */
export const OBSERVER_TIMEOUT_MS = 5_000;

/**
 * In-process hooks for plugins. Fail-open: a throwing or hanging observer is logged and skipped;
 * it can never break, delay past its timeout, or roll back a delete. No veto. Process-local by
 * nature — the receipt feed is the durable cross-process channel.
 */
export class HookRegistry {
  private readonly observers = new Set<SessionDeletedObserver>();
  private readonly moveObservers = new Set<SessionMovedObserver>();
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

  /** Called by post-commit effects: starts every observer and returns at once. */
  dispatchSessionDeleted(event: SessionDeletedEvent): void {
    for (const observer of this.observers) this.start(() => observer(event), event.operationId);
  }

  dispatchSessionMoved(event: SessionMovedEvent): void {
    for (const observer of this.moveObservers) this.start(() => observer(event), event.operationId);
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
