import { type Compilable, CompiledQuery, type QueryResult } from 'kysely';
import type { Executor } from '../db/database.js';

const MARKER = '\u0000statehouse-param:';

/** A store's synchronous read path (SQLite's reader connection); see `registerDirectReads`. */
export interface DirectReads {
  /** The rows of a read-only statement, or undefined when the statement must go through Kysely. */
  read<R>(sql: string, parameters: readonly unknown[]): R[] | undefined;
  /** The store's query observer (metrics), called as Kysely's log would be. */
  onQuery?: (operation: string, durationMs: number, failed: boolean) => void;
}

const directReads = new WeakMap<object, DirectReads>();

/**
 * Lets prepared SELECTs run on `db` (the store's root Kysely instance, never a transaction) without
 * Kysely's connection provider: a session read is a few promise hops shorter. Only the SQLite store
 * registers one; a transaction is a different object, so its reads keep running in the transaction.
 */
export function registerDirectReads(db: object, reads: DirectReads): void {
  directReads.set(db, reads);
}

/**
 * A query built with Kysely once and then reused as compiled SQL: on the hottest paths (a
 * single-message append) building and compiling the query tree costs as much as running it.
 * Named parameters are stand-ins when the query is built; each call substitutes real values.
 */
export class PreparedQuery<P extends string, R = unknown> {
  private compiled:
    | { sql: string; select: boolean; slots: ({ name: P } | { value: unknown })[]; operation: string }
    | undefined;

  constructor(private readonly build: (db: Executor, param: (name: P) => never) => Compilable<R>) {}

  async execute(db: Executor, values: Record<P, unknown>): Promise<QueryResult<R>> {
    if (!this.compiled) {
      const query = this.build(db, (name) => `${MARKER}${name}` as never).compile();
      const kind = query.query.kind;
      this.compiled = {
        sql: query.sql,
        select: kind === 'SelectQueryNode',
        // The label Kysely's log gives the store's metrics (connect.ts): 'select', 'update', …
        operation: kind.replace(/QueryNode$|Node$/, '').toLowerCase(),
        slots: query.parameters.map((parameter) =>
          typeof parameter === 'string' && parameter.startsWith(MARKER)
            ? { name: parameter.slice(MARKER.length) as P }
            : { value: parameter },
        ),
      };
    }
    const parameters = this.compiled.slots.map((slot) => ('name' in slot ? values[slot.name] : slot.value));
    const direct = this.compiled.select ? directReads.get(db) : undefined;
    if (direct) {
      const started = direct.onQuery ? performance.now() : 0;
      let rows: R[] | undefined;
      try {
        rows = direct.read<R>(this.compiled.sql, parameters);
      } catch (error) {
        direct.onQuery?.(this.compiled.operation, performance.now() - started, true);
        throw error;
      }
      if (rows) {
        direct.onQuery?.(this.compiled.operation, performance.now() - started, false);
        return { rows };
      }
    }
    return db.executeQuery<R>(CompiledQuery.raw(this.compiled.sql, parameters) as CompiledQuery<R>);
  }
}
