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

/** A deletion observer gets this long before it is logged and abandoned. */
export const OBSERVER_TIMEOUT_MS = 5_000;

/**
 * In-process hooks for plugins. Fail-open: a throwing or hanging observer is logged and skipped;
 * it can never break, delay past its timeout, or roll back a delete. No veto. Process-local by
 * nature — the receipt feed is the durable cross-process channel.
 */
export class HookRegistry {
  private readonly observers = new Set<SessionDeletedObserver>();
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly logger: Logger,
    private readonly timeoutMs = OBSERVER_TIMEOUT_MS,
  ) {}

  onSessionDeleted(observer: SessionDeletedObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  /** Called by post-commit effects: starts every observer and returns at once. */
  dispatchSessionDeleted(event: SessionDeletedEvent): void {
    for (const observer of this.observers) {
      const run = this.runBounded(observer, event);
      this.pending.add(run);
      void run.finally(() => this.pending.delete(run));
    }
  }

  /** Resolves when every observer started so far has finished or timed out (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private async runBounded(observer: SessionDeletedObserver, event: SessionDeletedEvent): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.timeoutMs);
      timer.unref?.();
    });
    try {
      const outcome = await Promise.race([Promise.resolve().then(() => observer(event)), timeout]);
      if (outcome === 'timeout') {
        this.logger.warn('deletion observer timed out; skipped', {
          operationId: event.operationId,
          timeoutMs: this.timeoutMs,
        });
      }
    } catch (error) {
      this.logger.error('deletion observer failed; skipped', { operationId: event.operationId, error: String(error) });
    } finally {
      clearTimeout(timer);
    }
  }
}
