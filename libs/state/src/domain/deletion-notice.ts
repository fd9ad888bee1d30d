import type { HookRegistry, SessionDeletedEvent } from './hook-registry.js';

/**
 * What the committed transactions of one operation removed, told to deletion observers in one call
 * when the operation is over (docs/domain.md §5.2): a bulk delete, a maintenance pass or a profile
 * delete that runs in several transactions (chunks) and writes a receipt per profile still makes
 * exactly one observer call. A transaction adds its part only once it committed, so a rolled-back
 * chunk is never heard of, and what committed before a failure is still told.
 */
export class DeletionNotice {
  private event: SessionDeletedEvent | undefined;

  constructor(private readonly hooks: HookRegistry) {}

  /** The part of one committed transaction. */
  add(part: SessionDeletedEvent): void {
    this.event = this.event ? mergeDeletionEvents(this.event, part) : part;
  }

  /** Once, when the operation is over (succeeded or not): one call, only if something was removed. */
  dispatch(): void {
    const event = this.event;
    this.event = undefined;
    if (event && event.deletedIds.length > 0) this.hooks.dispatchSessionDeleted(event);
  }

  /** Runs the operation and tells observers what it committed, whatever its outcome. */
  async around<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } finally {
      this.dispatch();
    }
  }
}

/** One event of two parts of an operation: the first part names the operation, the ids add up. */
export function mergeDeletionEvents(first: SessionDeletedEvent, next: SessionDeletedEvent): SessionDeletedEvent {
  const byProfile: Record<string, string[]> = {};
  for (const part of [first, next]) {
    for (const [profile, ids] of Object.entries(part.byProfile))
      byProfile[profile] = [...(byProfile[profile] ?? []), ...ids];
  }
  return {
    ...first,
    deletedIds: [...first.deletedIds, ...next.deletedIds],
    byProfile,
    receipts: [...first.receipts, ...next.receipts],
  };
}
