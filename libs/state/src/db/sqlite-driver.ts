import type BetterSqlite3 from 'better-sqlite3';
import type { CompiledQuery, DatabaseConnection, Driver, QueryResult, TransactionSettings } from 'kysely';
import { StoreUnavailableError } from '../shared/errors.js';
import type { SqliteConnections } from './sqlite-dialect.js';
import {
  atEndOfTurn,
  clearLaterTimer,
  GROUP_COMMIT_DEFAULTS,
  GroupTransaction,
  laterTimer,
  MEMBER,
  WriterLock,
} from './sqlite-group-commit.js';
import { flushSearchPending, isMissingPendingTable, SEARCH_PENDING_ANY } from './sqlite-search-pending.js';
import { StatementCache } from './sqlite-statement-cache.js';

/** Longest pause between two attempts at the write lock: short, so a lock released between two chunks of another process's work is taken soon. */
export const MAX_LOCK_RETRY_MS = 4;

export function isBusy(error: unknown): boolean {
  return String((error as { code?: unknown })?.code ?? '').startsWith('SQLITE_BUSY');
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The writer's change stamp, `changes:version`: the rows it changed (`total_changes()`) and the
 * commits of other connections it has seen (`data_version`). Read by `changeStamp`, checked by the
 * statement of a solo write (`guardedByStamp`), which needs the version inside its own SQL: there
 * it is the pragma's table function. The read takes it from `pragma data_version` itself, a
 * statement of its own: the table function prepares the pragma again on every call, which cost a
 * resolve more than its route lookup.
 */
const STAMP_CHANGES = 'total_changes()';
const STAMP_VERSION = '(select data_version from pragma_data_version)';

/**
 * The driver behind StatehouseSqliteDialect: the writer connection shared by group commit, the
 * reader connection for reads outside a transaction, and the lock wait on timers.
 */
export class SqliteDriver implements Driver {
  readonly #lock = new WriterLock();
  readonly #writer: StatementCache;
  readonly #reader: StatementCache | null;
  readonly #maxRequests: number;
  readonly #maxMs: number;
  readonly #indexLagMs: number;
  /** The shared transaction open on the writer, if any. */
  #group: GroupTransaction | null = null;
  /** The change stamp's two reads, prepared once on the writer (first `changeStamp`). */
  #stampReads: { changes: BetterSqlite3.Statement; version: BetterSqlite3.Statement } | undefined;
  /** When this writer last indexed what was pending (performance.now()); never yet: -Infinity. */
  #indexedAt = Number.NEGATIVE_INFINITY;
  /** Set while commits of this writer left rows pending: it indexes them when the lag is up. */
  #indexTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly connections: SqliteConnections) {
    this.#writer = new StatementCache(connections.writer);
    this.#reader = connections.reader ? new StatementCache(connections.reader) : null;
    this.#maxRequests = Math.max(1, connections.groupCommit?.maxRequests ?? GROUP_COMMIT_DEFAULTS.maxRequests);
    this.#maxMs = connections.groupCommit?.maxMs ?? GROUP_COMMIT_DEFAULTS.maxMs;
    this.#indexLagMs = Math.max(0, connections.groupCommit?.searchIndexLagMs ?? GROUP_COMMIT_DEFAULTS.searchIndexLagMs);
  }
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return new SqliteHandle(this);
  }

  /**
   * A request joins the open shared transaction, or opens one (BEGIN IMMEDIATE, waiting for the
   * file's lock on timers), and runs under its own savepoint. Requests run one at a time: the
   * writer lock passes from one to the next, and a group is the requests that took it in turn
   * before the group committed.
   */
  async beginTransaction(connection: DatabaseConnection, _settings: TransactionSettings): Promise<void> {
    const handle = connection as SqliteHandle;
    await this.#lock.acquire();
    try {
      if (!this.#group) {
        await this.withLockRetry(() => this.#writer.prepare('begin immediate').run());
        this.#group = new GroupTransaction();
      }
      this.#writer.prepare(`savepoint ${MEMBER}`).run();
    } catch (error) {
      const group = this.#group;
      // A group nobody joined (its first request failed to start) ends here.
      if (group && group.requests === 0) this.#commit(group);
      this.#lock.release();
      throw error;
    }
    this.#group.requests++;
    handle.group = this.#group;
  }

  /** Keeps the request's work (RELEASE), then answers once the shared COMMIT has succeeded. */
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const group = (connection as SqliteHandle).leave();
    if (!group) return;
    try {
      this.#writer.prepare(`release ${MEMBER}`).run();
      group.kept++;
    } catch (error) {
      // RELEASE fails only when the transaction itself is gone: nothing of the group survives.
      this.#abandon(group, error);
    }
    this.#endRequest(group);
    await group.committed;
  }

  /**
   * Undoes the request's work only (ROLLBACK TO its savepoint); its neighbours keep theirs. The
   * error is answered once the group has committed too, so no caller acts on a state that was
   * never committed; if the COMMIT fails, this request gets that error instead.
   */
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const group = (connection as SqliteHandle).leave();
    // The request already left: its COMMIT failed and that error is on its way to the caller.
    if (!group) return;
    let lostByThisRequest = false;
    if (group === this.#group) {
      if (this.connections.writer.inTransaction) {
        try {
          this.#writer.prepare(`rollback to ${MEMBER}`).run();
          this.#writer.prepare(`release ${MEMBER}`).run();
        } catch (error) {
          this.#abandon(group, error);
          lostByThisRequest = true;
        }
      } else {
        // SQLite rolled the whole transaction back on this request's error (disk full, I/O error,
        // ON CONFLICT ROLLBACK): the requests before it in the group are lost with it and must not
        // be acknowledged. This request keeps its own error.
        this.#abandon(group, new StoreUnavailableError('the shared write transaction was rolled back; retry later'));
        lostByThisRequest = true;
      }
    }
    this.#endRequest(group);
    if (!lostByThisRequest) await group.committed;
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const handle = connection as SqliteHandle;
    if (handle.inTransaction) await this.rollbackTransaction(handle);
  }
  async destroy(): Promise<void> {
    await this.#lock.acquire();
    try {
      if (this.#group) this.#commit(this.#group, true);
      // A store closed cleanly leaves nothing pending (unless the file's lock cannot be had: then
      // the rows stay pending, committed, for the next writer to index).
      else if (this.connections.writer.open) await this.#indexOnItsOwn().catch(() => undefined);
      if (this.#indexTimer) clearLaterTimer(this.#indexTimer);
      this.#indexTimer = null;
    } finally {
      this.#lock.release();
    }
    if (this.connections.reader?.open) this.connections.reader.close();
    if (this.connections.writer.open) this.connections.writer.close();
  }

  /**
   * A request is done (its savepoint released or rolled back); the writer lock is still held.
   * Commit now if the group is full (requests or time), else at the end of this event-loop turn:
   * requests that reach the writer meanwhile join the group. Nothing waits on a timer: a lone
   * request commits as soon as the loop has run the callbacks already due.
   */
  #endRequest(group: GroupTransaction): void {
    if (group === this.#group) {
      if (group.requests >= this.#maxRequests || performance.now() - group.openedAt >= this.#maxMs) {
        this.#commit(group);
      } else if (!group.flushScheduled) {
        group.flushScheduled = true;
        atEndOfTurn(() => void this.#flush(group));
      }
    }
    this.#lock.release();
  }

  /** Commits the group after the requests already waiting for the writer have joined it. */
  async #flush(group: GroupTransaction): Promise<void> {
    await this.#lock.acquire();
    try {
      if (group === this.#group) this.#commit(group);
    } finally {
      this.#lock.release();
    }
  }

  /**
   * With the writer lock held: COMMIT (ROLLBACK if every request rolled back) and answer the group.
   * `index`: index what is pending in this COMMIT whatever the lag (a search or a close waits for it).
   */
  #commit(group: GroupTransaction, index = false): void {
    this.#group = null;
    let failure: { error: unknown } | null = null;
    try {
      if (group.kept > 0) {
        // The group's new messages go into the search indexes at COMMIT, all at once: one FTS5
        // segment per index for the group rather than one per request savepoint (migration
        // 2026-12-01T06.00) — and, while commits follow each other closely, one for the commits of
        // the last searchIndexLagMs: an index flush has a fixed cost of its own (docs/search.md).
        const now = performance.now();
        if (index || now - this.#indexedAt >= this.#indexLagMs) {
          flushSearchPending((text) => this.#writer.prepare(text));
          this.#indexedAt = now;
        } else {
          this.#indexLater(this.#indexLagMs - (now - this.#indexedAt));
        }
        this.#writer.prepare('commit').run();
      } else {
        this.#writer.prepare('rollback').run();
      }
    } catch (error) {
      failure = { error };
      // A failed COMMIT (disk full, I/O error): none of the group's requests is acknowledged.
      if (this.connections.writer.inTransaction) {
        try {
          this.#writer.prepare('rollback').run();
        } catch {
          // The COMMIT's error is the one to report.
        }
      }
    }
    this.connections.onWriteLock?.(performance.now() - group.openedAt, group.requests);
    if (failure) group.fail(failure.error);
    else group.succeed();
  }

  /** The shared transaction is lost (or unusable): roll back what is left and fail every request in it. */
  #abandon(group: GroupTransaction, error: unknown): void {
    if (group !== this.#group) return;
    this.#group = null;
    if (this.connections.writer.inTransaction) {
      try {
        this.#writer.prepare('rollback').run();
      } catch {
        // Already gone.
      }
    }
    this.connections.onWriteLock?.(performance.now() - group.openedAt, group.requests);
    group.fail(error);
  }

  /** Commits of this writer left rows pending: index them in `ms`, in a transaction of their own. */
  #indexLater(ms: number): void {
    if (this.#indexTimer) return;
    this.#indexTimer = laterTimer(() => {
      this.#indexTimer = null;
      // The file's lock not had in time (another process's long transaction): try again later.
      this.indexPending().catch(() => this.#indexLater(this.#indexLagMs));
    }, Math.ceil(ms));
    // Rows left pending by a process that exits are committed: the next writer indexes them.
    this.#indexTimer.unref?.();
  }

  /**
   * Indexes every committed message still pending, whoever wrote it (this writer's commits of the
   * last lag, another process's): the open group commits with them, or a transaction of their own
   * runs. Searches call it before they read (docs/search.md).
   */
  async indexPending(): Promise<void> {
    await this.#lock.acquire();
    try {
      if (!this.connections.writer.open) return;
      if (this.#group) this.#commit(this.#group, true);
      else await this.#indexOnItsOwn();
    } finally {
      this.#lock.release();
    }
  }

  executeInTransaction<R>(compiledQuery: CompiledQuery): QueryResult<R> {
    return this.#writer.run<R>(this.#writer.prepare(compiledQuery.sql), compiledQuery.parameters as unknown[]);
  }

  writeNow<R>(sql: string, parameters: readonly unknown[]): QueryResult<R> | undefined {
    if (!this.#group || !this.connections.writer.inTransaction) return undefined;
    return this.#writer.run<R>(this.#writer.prepare(sql), parameters as unknown[]);
  }

  /**
   * The writer's change stamp (db/change-stamp.ts): the rows it changed so far (committed or not,
   * `total_changes()`) and the commits of other connections it has seen (`data_version`).
   */
  changeStamp(when: 'idle' | 'in-transaction'): string | undefined {
    if (!this.connections.writer.open) return undefined;
    if (when === 'idle' ? this.#group !== null : !this.#group || !this.connections.writer.inTransaction) {
      return undefined;
    }
    const writer = this.connections.writer;
    this.#stampReads ??= {
      changes: writer.prepare(`select ${STAMP_CHANGES}`).pluck(),
      version: writer.prepare('pragma data_version').pluck(),
    };
    return `${this.#stampReads.changes.get()}:${this.#stampReads.version.get()}`;
  }

  /**
   * One write committed on its own in this call (db/solo-write.ts): only while the writer is idle —
   * its lock free, no group open — and only if its change stamp is still `stamp`, which the
   * statement checks itself (an auto-committed statement: the check and the write are one atomic
   * step; a commit by another connection since the statement's snapshot makes it fail busy rather
   * than write). False when nothing was written — not idle, the stamp moved, the row is not there,
   * the file's lock is taken — and the caller takes the usual way. Any other failure throws.
   */
  writeAlone(stamp: string, sql: string, parameters: readonly unknown[]): boolean {
    if (this.#group || !this.connections.writer.open || !this.#lock.tryAcquire()) return false;
    const opened = performance.now();
    try {
      // The parts in the order `changeStamp` wrote them, `changes:version`.
      const [changes, version] = stamp.split(':').map(Number);
      const result = this.#writer.run(this.#writer.prepare(guardedByStamp(sql)), [changes, version, ...parameters]);
      return Number(result.numAffectedRows ?? 0) === 1;
    } catch (error) {
      if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) return false;
      throw error;
    } finally {
      if (this.connections.writer.inTransaction) this.#writer.prepare('rollback').run();
      this.connections.onWriteLock?.(performance.now() - opened, 1);
      this.#lock.release();
    }
  }

  readNow<R>(sql: string, parameters: readonly unknown[]): R[] | undefined {
    if (!this.#reader || !this.connections.reader?.open || /^\s*pragma\b/i.test(sql)) return undefined;
    let statement: BetterSqlite3.Statement;
    try {
      statement = this.#reader.prepare(sql);
    } catch {
      return undefined;
    }
    return statement.readonly && statement.reader ? this.#reader.all<R>(statement, parameters as unknown[]) : undefined;
  }

  async executeOutsideTransaction<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const parameters = compiledQuery.parameters as unknown[];
    // PRAGMAs read or set the state of a connection: they mean the writer (the store's own one).
    if (this.#reader && !/^\s*pragma\b/i.test(compiledQuery.sql)) {
      let statement: BetterSqlite3.Statement | undefined;
      try {
        statement = this.#reader.prepare(compiledQuery.sql);
      } catch {
        // Not preparable on the reader (a temp object of the writer's): the writer decides.
      }
      if (statement?.readonly) return this.#reader.run<R>(statement, parameters);
    }
    // A write outside a transaction (or no reader): one statement on the writer, its own lock wait.
    await this.#lock.acquire();
    try {
      // Run on its own, not inside an open group (it would be seen before the group commits, and
      // some PRAGMAs cannot run in a transaction): the group commits first.
      if (this.#group) this.#commit(this.#group);
      const result = await this.withLockRetry(() =>
        this.#writer.run<R>(this.#writer.prepare(compiledQuery.sql), parameters),
      );
      // A message inserted by a statement of its own (autocommit) is left pending by its trigger:
      // index it now (with whatever else is pending).
      if (!/^\s*pragma\b/i.test(compiledQuery.sql)) await this.#indexOnItsOwn();
      return result;
    } finally {
      this.#lock.release();
    }
  }

  /**
   * With the writer lock held and no transaction open: indexes what is pending (an autocommit
   * write's rows, commits of the last lag) in a transaction of its own.
   */
  async #indexOnItsOwn(): Promise<void> {
    if (this.connections.writer.inTransaction) return;
    let pending = false;
    try {
      pending = this.#writer.prepare(SEARCH_PENDING_ANY).get() !== undefined;
    } catch (error) {
      if (!isMissingPendingTable(error)) throw error;
    }
    if (!pending) return;
    await this.withLockRetry(() => this.#writer.prepare('begin immediate').run());
    try {
      flushSearchPending((text) => this.#writer.prepare(text));
      this.#writer.prepare('commit').run();
      this.#indexedAt = performance.now();
    } catch {
      // The rows' own writes committed: failing a caller now would report a write that happened
      // as lost. The rows stay pending (committed) and the next index flush of any writer takes them.
      if (this.connections.writer.inTransaction) this.#writer.prepare('rollback').run();
    }
  }

  /** Retries SQLITE_BUSY on timers until the lock timeout: the event loop keeps running meanwhile. */
  private async withLockRetry<T>(attempt: () => T): Promise<T> {
    const deadline = performance.now() + this.connections.lockTimeoutMs;
    for (let round = 0; ; round++) {
      try {
        return attempt();
      } catch (error) {
        if (!isBusy(error) || performance.now() >= deadline) throw error;
      }
      await sleep(Math.min(MAX_LOCK_RETRY_MS, 1 + (round >> 1)));
    }
  }
}

/** One Kysely "connection": a view on the driver that knows whether it holds the writer's transaction. */
class SqliteHandle implements DatabaseConnection {
  /** The shared transaction this handle's request runs in (under its savepoint), while it does. */
  group: GroupTransaction | null = null;
  constructor(private readonly driver: SqliteDriver) {}

  get inTransaction(): boolean {
    return this.group !== null;
  }
  /** The request is done with the writer: its group, once. */
  leave(): GroupTransaction | null {
    const group = this.group;
    this.group = null;
    return group;
  }

  executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    if (this.inTransaction) {
      try {
        return Promise.resolve(this.driver.executeInTransaction<R>(compiledQuery));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.driver.executeOutsideTransaction<R>(compiledQuery);
  }

  // biome-ignore lint/correctness/useYield: streaming is not used; fail loudly if someone tries.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported by the SQLite driver');
  }
}

/** Guarded statements by their SQL: each is built once. */
const guarded = new Map<string, string>();

/**
 * `sql` — one `UPDATE … WHERE …` (nothing after its WHERE) — changed to write only while the writer's
 * change stamp is what its two first parameters say (`total_changes()`, then `data_version`).
 */
function guardedByStamp(sql: string): string {
  let text = guarded.get(sql);
  if (!text) {
    if (!/^update\b[\s\S]*\bwhere\b/i.test(sql) || /\breturning\b/i.test(sql)) {
      throw new Error('a solo write is one UPDATE … WHERE … with nothing after its WHERE');
    }
    text =
      `with statehouse_unchanged as (select 1 where ${STAMP_CHANGES} = ? and ${STAMP_VERSION} = ?) ` +
      `${sql} and exists (select 1 from statehouse_unchanged)`;
    guarded.set(sql, text);
  }
  return text;
}
