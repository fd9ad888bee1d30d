export interface GroupCommitLimits {
  /** A group commits once it carries this many requests. */
  maxRequests: number;
  /** A group commits at the end of the first request that finds it open this long (ms). */
  maxMs: number;
  /**
   * How late a commit's new messages may reach the search indexes (ms; docs/search.md). A COMMIT
   * indexes what is pending when the last index flush of this writer is at least this old; one
   * sooner leaves its rows pending (committed), and a timer indexes them when the time is up. A
   * search indexes whatever is pending before it reads, so it never misses an answered append.
   * 0 indexes at every COMMIT.
   */
  searchIndexLagMs: number;
}

/** Group commit limits (docs/architecture.md, "Group commit"): whichever comes first closes a group. */
export const GROUP_COMMIT_DEFAULTS: Readonly<GroupCommitLimits> = Object.freeze({
  maxRequests: 64,
  maxMs: 8,
  searchIndexLagMs: 100,
});

/** The end of the event-loop turn, taken at load: a test's fake timers must not freeze commits. */
export const atEndOfTurn = globalThis.setImmediate;

/** Taken at load, as atEndOfTurn: a test's fake timers must not freeze the deferred index flush. */
export const laterTimer = globalThis.setTimeout;
export const clearLaterTimer = globalThis.clearTimeout;

/** The savepoint each request (each Kysely transaction) runs under inside the shared transaction. */
export const MEMBER = 'statehouse_request';

/**
 * One shared write transaction (BEGIN IMMEDIATE … COMMIT) and the requests it carries. Every
 * request's outcome waits for `committed`: nobody is answered from a state that may never exist.
 */
export class GroupTransaction {
  readonly openedAt = performance.now();
  /** Requests that ran in it (each under its own savepoint). */
  requests = 0;
  /** Requests whose savepoint was released (kept) rather than rolled back. */
  kept = 0;
  flushScheduled = false;
  readonly committed: Promise<void>;
  #resolve!: () => void;
  #reject!: (error: unknown) => void;

  constructor() {
    this.committed = new Promise<void>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // Members await it; the group itself must not count as an unhandled rejection.
    this.committed.catch(() => undefined);
  }
  succeed(): void {
    this.#resolve();
  }
  fail(error: unknown): void {
    this.#reject(error);
  }
}

/** The writer connection's owner: one request (or statement) at a time, first come first served. */
export class WriterLock {
  #held = false;
  readonly #waiters: (() => void)[] = [];
  acquire(): Promise<void> {
    if (!this.#held) {
      this.#held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
  /** Takes the lock only if nobody holds it (so nobody waits for it either). */
  tryAcquire(): boolean {
    if (this.#held) return false;
    this.#held = true;
    return true;
  }
  /** Hands the lock straight to the next waiter (nobody can slip in between). */
  release(): void {
    const next = this.#waiters.shift();
    if (next) next();
    else this.#held = false;
  }
}
