import type BetterSqlite3 from 'better-sqlite3';
import {
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
} from 'kysely';
import { SqliteDriver } from './sqlite-driver.js';
import type { GroupCommitLimits } from './sqlite-group-commit.js';
import { SEARCH_PENDING_ANY } from './sqlite-search-pending.js';

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

  /** One write committed on its own if the writer is idle and unchanged since `stamp` (db/solo-write.ts). */
  writeAlone(stamp: string, sql: string, parameters: readonly unknown[]): boolean {
    return this.#driver?.writeAlone(stamp, sql, parameters) ?? false;
  }

  /** The writer's change stamp (db/change-stamp.ts); undefined before the driver exists. */
  changeStamp(when: 'idle' | 'in-transaction'): string | undefined {
    return this.#driver?.changeStamp(when);
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
