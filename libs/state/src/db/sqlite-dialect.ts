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

/**
 * Kysely's SqliteDialect, with two changes that matter for a store shared by processes:
 * - write transactions begin IMMEDIATE, so a writer takes the lock up front and waits on
 *   busy_timeout instead of failing mid-transaction with SQLITE_BUSY on lock upgrade;
 * - prepared statements are cached by SQL text (better-sqlite3 `prepare` costs more than running
 *   a cached statement on the hot append path).
 */
export class StatehouseSqliteDialect implements Dialect {
  constructor(private readonly database: BetterSqlite3.Database) {}
  createDriver(): Driver {
    return new SqliteDriver(this.database);
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

class SqliteDriver implements Driver {
  readonly #mutex = new ConnectionMutex();
  readonly #connection: SqliteConnection;
  constructor(private readonly database: BetterSqlite3.Database) {
    this.#connection = new SqliteConnection(database);
  }
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#mutex.lock();
    return this.#connection;
  }
  async beginTransaction(connection: DatabaseConnection, _settings: TransactionSettings): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // A failed COMMIT (disk full, I/O error) may already have rolled back; never mask the cause.
    if (this.database.inTransaction) await connection.executeQuery(CompiledQuery.raw('rollback'));
  }
  async releaseConnection(): Promise<void> {
    this.#mutex.unlock();
  }
  async destroy(): Promise<void> {
    if (this.database.open) this.database.close();
  }
}

class SqliteConnection implements DatabaseConnection {
  readonly #statements = new Map<string, BetterSqlite3.Statement>();
  constructor(private readonly database: BetterSqlite3.Database) {}

  #prepare(sql: string): BetterSqlite3.Statement {
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

  executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const statement = this.#prepare(compiledQuery.sql);
    const parameters = compiledQuery.parameters as unknown[];
    if (statement.reader) {
      return Promise.resolve({ rows: statement.all(parameters) as R[] });
    }
    const { changes, lastInsertRowid } = statement.run(parameters);
    return Promise.resolve({
      numAffectedRows: BigInt(changes),
      insertId: lastInsertRowid === undefined || lastInsertRowid === null ? undefined : BigInt(lastInsertRowid),
      rows: [],
    });
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
