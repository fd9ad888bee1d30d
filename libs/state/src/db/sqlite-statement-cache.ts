import type BetterSqlite3 from 'better-sqlite3';
import type { QueryResult } from 'kysely';

const STATEMENT_CACHE_SIZE = 500;

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
   * costs more than finding the row (docs/decisions/0011-raw-rows-and-row-constructors.md); a constructor compiled
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
