import type BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type TransactionSettings,
} from 'kysely';
import { StoreUnavailableError } from '../shared/errors.js';
import { flushSearchPending, isMissingPendingTable, SEARCH_PENDING_ANY } from './sqlite-search-pending.js';

export interface SqliteConnections {
  /** The one connection of this process that writes (every transaction runs here). */
  writer: BetterSqlite3.Database;
  /**
   * A second connection for reads outside a transaction (`query_only`). In WAL mode it never
   * waits on a writer, so reads keep answering while this process waits for the write lock.
   * Null for `:memory:` databases (nothing to share): everything then runs on the writer.
   */
  reader: BetterSqlite3.Database | null;
  /** How long a writer waits for the lock (another process's transaction) before SQLITE_BUSY. */
  lockTimeoutMs: number;
  /**
   * Observes each shared transaction: how long it held the write lock (BEGIN IMMEDIATE →
   * COMMIT/ROLLBACK) and how many requests it carried (group commit).
   */
  onWriteLock?: (heldMs: number, requests: number) => void;
  /** Group commit limits (defaults GROUP_COMMIT_DEFAULTS); `maxRequests: 1` turns grouping off. */
  groupCommit?: Partial<GroupCommitLimits>;
}

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

/**
 * Kysely's SqliteDialect, reshaped for a store shared by processes:
 * - write transactions begin IMMEDIATE, so a writer takes the lock up front;
 * - waiting for the lock happens on the event loop, not inside SQLite: the writer's busy_timeout
 *   is 0 and a BUSY `BEGIN IMMEDIATE` is retried after a timer, so a process whose writes wait on
 *   another process's transaction still answers `/healthz` and serves reads meanwhile;
 * - reads outside a transaction go to a separate connection that never queues behind the writer;
 * - prepared statements are cached by SQL text on each connection;
 * - group commit: transactions that reach the writer while one is open run in it, one after the
 *   other, each under its own savepoint, and commit together (docs/architecture.md, "Group commit").
 */
export class StatehouseSqliteDialect implements Dialect {
  #driver: SqliteDriver | null = null;
  constructor(private readonly connections: SqliteConnections) {}
  createDriver(): Driver {
    this.#driver = new SqliteDriver(this.connections);
    return this.#driver;
  }

  /**
   * A read-only statement outside any transaction, answered on the reader connection in this call
   * — the same connection and statement cache Kysely's path would use, without its connection
   * provider's promise hops. Undefined when that path would not run it on the reader (no reader,
   * the store is closed, a PRAGMA, a statement the reader cannot prepare, a write): the caller
   * then goes through Kysely, which decides as always.
   */
  readNow<R>(sql: string, parameters: readonly unknown[]): R[] | undefined {
    return this.#driver?.readNow<R>(sql, parameters);
  }

  /**
   * A statement of the transaction that holds the writer, run in this call: what Kysely's
   * transaction would run on the same connection, without its connection provider's promise hops.
   * Only for a transaction between its BEGIN and its COMMIT/ROLLBACK (the unit of work binds it
   * there): that request holds the writer lock, so the open group is its own. Undefined when no
   * group is open (the caller then goes through Kysely, which decides as always).
   */
  writeNow<R>(sql: string, parameters: readonly unknown[]): QueryResult<R> | undefined {
    return this.#driver?.writeNow<R>(sql, parameters);
  }

  /**
   * Indexes the committed messages still pending (docs/search.md): before a search reads. Asks the
   * reader first, which costs an index probe and no lock when nothing is pending.
   */
  async indexPending(): Promise<void> {
    if (this.#driver?.readNow(SEARCH_PENDING_ANY, [])?.length === 0) return;
    await this.#driver?.indexPending();
  }
  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }
  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}

const STATEMENT_CACHE_SIZE = 500;
/** Longest pause between two attempts at the write lock: short, so a lock released between two chunks of another process's work is taken soon. */
export const MAX_LOCK_RETRY_MS = 4;

/** Turns one raw row (the column values in order) into the object better-sqlite3 would have built. */
type RowMaker = (values: unknown[]) => unknown;

/**
 * A statement's row constructor. `schema`: the schema version its column list was read at, for a
 * statement whose columns follow the schema (`*` in its SQL); null for one whose result columns
 * its SQL text names, which cannot change without the statement failing to prepare.
 */
interface RowShape {
  make: RowMaker;
  schema: number | null;
}

export class StatementCache {
  readonly #statements = new Map<string, BetterSqlite3.Statement>();
  /** Per statement that returns rows: its row constructor, or null where object mode builds them. */
  readonly #shapes = new WeakMap<BetterSqlite3.Statement, RowShape | null>();
  #schemaVersion: BetterSqlite3.Statement | undefined;
  constructor(private readonly database: BetterSqlite3.Database) {}

  prepare(sql: string): BetterSqlite3.Statement {
    let statement = this.#statements.get(sql);
    if (statement) {
      // refresh recency
      this.#statements.delete(sql);
    } else {
      statement = this.database.prepare(sql);
      if (this.#statements.size >= STATEMENT_CACHE_SIZE) {
        const oldest = this.#statements.keys().next().value as string;
        this.#statements.delete(oldest);
      }
    }
    this.#statements.set(sql, statement);
    return statement;
  }

  /**
   * The rows of a statement that returns data: the objects better-sqlite3 builds (one property
   * per column, the last of equal names winning), built here from the raw row instead. The driver
   * builds an object through V8's API property by property, which for a session's 48 columns
   * costs more than finding the row (docs/architecture.md, "Row objects"); a constructor compiled
   * once per statement makes the same object in one literal, with one shape for every row.
   *
   * A `select *` (or `returning *`) takes its columns from the schema: SQLite re-prepares it when
   * another connection changes the schema (a migration), possibly with other columns at the same
   * positions. So its constructor is only used while the schema version, read after each run,
   * is the one its columns were read at; otherwise the run is repeated in object mode (only
   * statements that only read have such a constructor) and the constructor is learnt again.
   */
  all<R>(statement: BetterSqlite3.Statement, parameters: unknown[]): R[] {
    const shape = this.#shapes.get(statement);
    if (shape === undefined) return this.#firstRun<R>(statement, parameters);
    if (shape === null) return statement.all(parameters) as R[];
    statement.raw(true);
    let values: unknown[][];
    try {
      values = statement.all(parameters) as unknown[][];
    } finally {
      // Object mode is the statement's state for every other caller of prepare().
      statement.raw(false);
    }
    // The version only grows: equal after the run means the run had the constructor's columns.
    if (shape.schema !== null && shape.schema !== this.#schema()) {
      // Only statements that only read get here (#firstRun): running it again is safe.
      this.#shapes.delete(statement);
      return statement.all(parameters) as R[];
    }
    const rows = new Array<R>(values.length);
    for (let i = 0; i < values.length; i++) rows[i] = shape.make(values[i]) as R;
    return rows;
  }

  /**
   * A statement's first run, in object mode, learns its constructor. A schema-following one's
   * column list is read between two equal schema versions, so it belongs to that version (its
   * run re-prepared it to the schema of the moment). A write that follows the schema keeps object
   * mode: it could not run again after a change was noticed.
   */
  #firstRun<R>(statement: BetterSqlite3.Statement, parameters: unknown[]): R[] {
    const names = () => statement.columns().map((column) => column.name);
    if (!statement.source.includes('*')) {
      const rows = statement.all(parameters) as R[];
      const make = rowMaker(names());
      this.#shapes.set(statement, make && { make, schema: null });
      return rows;
    }
    if (!statement.readonly) {
      this.#shapes.set(statement, null);
      return statement.all(parameters) as R[];
    }
    const before = this.#schema();
    const rows = statement.all(parameters) as R[];
    const after = this.#schema();
    // Changed meanwhile: learn it at the next run instead.
    if (before === after) {
      const make = rowMaker(names());
      this.#shapes.set(statement, make && { make, schema: after });
    }
    return rows;
  }

  #schema(): number {
    this.#schemaVersion ??= this.database.prepare('pragma schema_version').pluck();
    return this.#schemaVersion.get() as number;
  }

  run<R>(statement: BetterSqlite3.Statement, parameters: unknown[]): QueryResult<R> {
    if (statement.reader) return { rows: this.all<R>(statement, parameters) };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return {
      numAffectedRows: BigInt(changes),
      insertId: lastInsertRowid === undefined || lastInsertRowid === null ? undefined : BigInt(lastInsertRowid),
      rows: [],
    };
  }
}

/**
 * `(values) => ({ "name": values[0], … })` for these column names, or null where an object literal
 * would not mean what better-sqlite3's rows mean: a `__proto__` key sets the prototype in a literal.
 * The names are the statement's own (our schema's SQL); JSON.stringify quotes them as keys.
 */
function rowMaker(names: readonly string[]): RowMaker | null {
  if (names.includes('__proto__')) return null;
  const last = new Map(names.map((name, index) => [name, index]));
  const properties = [...last].map(([name, index]) => `${JSON.stringify(name)}: values[${index}]`);
  return new Function('values', `return { ${properties.join(', ')} };`) as RowMaker;
}

export function isBusy(error: unknown): boolean {
  return String((error as { code?: unknown })?.code ?? '').startsWith('SQLITE_BUSY');
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** The end of the event-loop turn, taken at load: a test's fake timers must not freeze commits. */
const atEndOfTurn = globalThis.setImmediate;

/** Group commit limits (docs/architecture.md, "Group commit"): whichever comes first closes a group. */
export const GROUP_COMMIT_DEFAULTS: Readonly<GroupCommitLimits> = Object.freeze({
  maxRequests: 64,
  maxMs: 8,
  searchIndexLagMs: 100,
});

/** Taken at load, as atEndOfTurn: a test's fake timers must not freeze the deferred index flush. */
const laterTimer = globalThis.setTimeout;
const clearLaterTimer = globalThis.clearTimeout;

/** The savepoint each request (each Kysely transaction) runs under inside the shared transaction. */
const MEMBER = 'statehouse_request';

/**
 * One shared write transaction (BEGIN IMMEDIATE … COMMIT) and the requests it carries. Every
 * request's outcome waits for `committed`: nobody is answered from a state that may never exist.
 */
class GroupTransaction {
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

class SqliteDriver implements Driver {
  readonly #lock = new WriterLock();
  readonly #writer: StatementCache;
  readonly #reader: StatementCache | null;
  readonly #maxRequests: number;
  readonly #maxMs: number;
  readonly #indexLagMs: number;
  /** The shared transaction open on the writer, if any. */
  #group: GroupTransaction | null = null;
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

/** The writer connection's owner: one request (or statement) at a time, first come first served. */
class WriterLock {
  #held = false;
  readonly #waiters: (() => void)[] = [];
  acquire(): Promise<void> {
    if (!this.#held) {
      this.#held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
  /** Hands the lock straight to the next waiter (nobody can slip in between). */
  release(): void {
    const next = this.#waiters.shift();
    if (next) next();
    else this.#held = false;
  }
}
