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
  /** Observes how long each transaction held the write lock (BEGIN IMMEDIATE → COMMIT/ROLLBACK). */
  onWriteLock?: (heldMs: number) => void;
}

/**
 * Kysely's SqliteDialect, reshaped for a store shared by processes:
 * - write transactions begin IMMEDIATE, so a writer takes the lock up front;
 * - waiting for the lock happens on the event loop, not inside SQLite: the writer's busy_timeout
 *   is 0 and a BUSY `BEGIN IMMEDIATE` is retried after a timer, so a process whose writes wait on
 *   another process's transaction still answers `/healthz` and serves reads meanwhile;
 * - reads outside a transaction go to a separate connection that never queues behind the writer;
 * - prepared statements are cached by SQL text on each connection.
 * The single writer connection is where a later group commit of concurrent appends would sit.
 */
export class StatehouseSqliteDialect implements Dialect {
  constructor(private readonly connections: SqliteConnections) {}
  createDriver(): Driver {
    return new SqliteDriver(this.connections);
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
const MAX_LOCK_RETRY_MS = 4;

export class StatementCache {
  readonly #statements = new Map<string, BetterSqlite3.Statement>();
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
}

function run<R>(statement: BetterSqlite3.Statement, parameters: unknown[]): QueryResult<R> {
  if (statement.reader) return { rows: statement.all(parameters) as R[] };
  const { changes, lastInsertRowid } = statement.run(parameters);
  return {
    numAffectedRows: BigInt(changes),
    insertId: lastInsertRowid === undefined || lastInsertRowid === null ? undefined : BigInt(lastInsertRowid),
    rows: [],
  };
}

export function isBusy(error: unknown): boolean {
  return String((error as { code?: unknown })?.code ?? '').startsWith('SQLITE_BUSY');
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

class SqliteDriver implements Driver {
  readonly #mutex = new ConnectionMutex();
  readonly #writer: StatementCache;
  readonly #reader: StatementCache | null;
  #lockedAt = 0;

  constructor(private readonly connections: SqliteConnections) {
    this.#writer = new StatementCache(connections.writer);
    this.#reader = connections.reader ? new StatementCache(connections.reader) : null;
  }
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return new SqliteHandle(this);
  }
  async beginTransaction(connection: DatabaseConnection, _settings: TransactionSettings): Promise<void> {
    const handle = connection as SqliteHandle;
    await this.#mutex.lock();
    try {
      await this.withLockRetry(() => this.#writer.prepare('begin immediate').run());
    } catch (error) {
      this.#mutex.unlock();
      throw error;
    }
    this.#lockedAt = performance.now();
    handle.inTransaction = true;
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const handle = connection as SqliteHandle;
    try {
      this.#writer.prepare('commit').run();
    } finally {
      // A failed COMMIT (disk full, I/O error) leaves the transaction for rollbackTransaction.
      if (!this.connections.writer.inTransaction) this.#endTransaction(handle);
    }
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const handle = connection as SqliteHandle;
    try {
      // A failed COMMIT may already have rolled back; never mask the cause.
      if (this.connections.writer.inTransaction) this.#writer.prepare('rollback').run();
    } finally {
      this.#endTransaction(handle);
    }
  }
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const handle = connection as SqliteHandle;
    if (handle.inTransaction) await this.rollbackTransaction(handle);
  }
  async destroy(): Promise<void> {
    if (this.connections.reader?.open) this.connections.reader.close();
    if (this.connections.writer.open) this.connections.writer.close();
  }

  #endTransaction(handle: SqliteHandle): void {
    if (!handle.inTransaction) return;
    handle.inTransaction = false;
    const held = performance.now() - this.#lockedAt;
    this.#mutex.unlock();
    this.connections.onWriteLock?.(held);
  }

  executeInTransaction<R>(compiledQuery: CompiledQuery): QueryResult<R> {
    return run<R>(this.#writer.prepare(compiledQuery.sql), compiledQuery.parameters as unknown[]);
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
      if (statement?.readonly) return run<R>(statement, parameters);
    }
    // A write outside a transaction (or no reader): one statement on the writer, its own lock wait.
    await this.#mutex.lock();
    try {
      return await this.withLockRetry(() => run<R>(this.#writer.prepare(compiledQuery.sql), parameters));
    } finally {
      this.#mutex.unlock();
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
  inTransaction = false;
  constructor(private readonly driver: SqliteDriver) {}

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

class ConnectionMutex {
  #promise: Promise<void> | undefined;
  #resolve: (() => void) | undefined;
  async lock(): Promise<void> {
    while (this.#promise) await this.#promise;
    this.#promise = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }
  unlock(): void {
    const resolve = this.#resolve;
    this.#promise = undefined;
    this.#resolve = undefined;
    resolve?.();
  }
}
