import { type Compilable, CompiledQuery, type QueryResult } from 'kysely';
import type { Executor } from './database.js';
import { soloWrites } from './solo-write.js';

const MARKER = '\u0000statehouse-param:';

/** A store's synchronous read path (SQLite's reader connection); see `registerDirectReads`. */
export interface DirectReads {
  /** The rows of a read-only statement, or undefined when the statement must go through Kysely. */
  read<R>(sql: string, parameters: readonly unknown[]): R[] | undefined;
  /** The store's query observer (metrics), called as Kysely's log would be. */
  onQuery?: (operation: string, durationMs: number, failed: boolean) => void;
}

const directReads = new WeakMap<object, DirectReads>();

/** A store's synchronous path for the statements of its open write transaction (SQLite's writer). */
export interface DirectWrites {
  /** The statement's result, or undefined when it must go through Kysely. */
  write<R>(sql: string, parameters: readonly unknown[]): QueryResult<R> | undefined;
  onQuery?: (operation: string, durationMs: number, failed: boolean) => void;
}

/** Per store (its root Kysely instance): how a transaction of it may run statements directly. */
const storeWrites = new WeakMap<object, DirectWrites>();
/** Per transaction object, while the unit of work has it between BEGIN and COMMIT. */
const directWrites = new WeakMap<object, DirectWrites>();

/**
 * Lets prepared statements of `db`'s transactions run on its writer in one call (SQLite only);
 * a transaction takes part once the unit of work binds it (`bindDirectWrites`).
 */
export function registerDirectWrites(db: object, writes: DirectWrites): void {
  storeWrites.set(db, writes);
}

/**
 * `trx`, a transaction of `db` that has begun, runs its prepared statements directly until the
 * returned function is called (before its COMMIT or ROLLBACK). Kysely serializes the statements of
 * one transaction; a direct statement runs at once, so it could only overtake a Kysely statement
 * issued before it and not yet awaited — never the case for statements that depend on each other.
 */
export function bindDirectWrites(db: object, trx: object): () => void {
  const writes = storeWrites.get(db);
  if (!writes) return () => undefined;
  directWrites.set(trx, writes);
  return () => directWrites.delete(trx);
}

/**
 * Lets prepared SELECTs run on `db` (the store's root Kysely instance, never a transaction) without
 * Kysely's connection provider: a session read is a few promise hops shorter. Only the SQLite store
 * registers one; a transaction is a different object, so its reads keep running in the transaction.
 */
export function registerDirectReads(db: object, reads: DirectReads): void {
  directReads.set(db, reads);
}

/** Executors that must not write (`UnitOfWork.readOnly`): a prepared write on one throws. */
const readOnlyExecutors = new WeakSet<object>();

/** `db` only reads: a prepared statement that is not a SELECT throws instead of running on it. */
export function markReadOnly(db: object): void {
  readOnlyExecutors.add(db);
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

  /**
   * Runs this write committed on its own if `db`'s store can right now (db/solo-write.ts): its writer
   * idle and its change stamp still `stamp`. False: nothing ran.
   */
  executeAlone(db: Executor, values: Record<P, unknown>, stamp: string): boolean {
    const solo = soloWrites(db);
    if (!solo || readOnlyExecutors.has(db)) return false;
    const compiled = this.compile(db);
    return solo.write(
      stamp,
      compiled.sql,
      compiled.slots.map((slot) => ('name' in slot ? values[slot.name] : slot.value)),
    );
  }

  private compile(db: Executor) {
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
    return this.compiled;
  }

  async execute(db: Executor, values: Record<P, unknown>): Promise<QueryResult<R>> {
    const compiled = this.compile(db);
    // Compiled once, run as raw SQL: Kysely plugins never see it again, so the guard is here.
    if (!compiled.select && readOnlyExecutors.has(db)) {
      throw new Error(`a read-only unit of work tried to write (${compiled.operation})`);
    }
    const parameters = compiled.slots.map((slot) => ('name' in slot ? values[slot.name] : slot.value));
    const writes = directWrites.get(db);
    if (writes) {
      const started = writes.onQuery ? performance.now() : 0;
      let result: QueryResult<R> | undefined;
      try {
        result = writes.write<R>(compiled.sql, parameters);
      } catch (error) {
        writes.onQuery?.(compiled.operation, performance.now() - started, true);
        throw error;
      }
      if (result) {
        writes.onQuery?.(compiled.operation, performance.now() - started, false);
        return result;
      }
    }
    const direct = compiled.select ? directReads.get(db) : undefined;
    if (direct) {
      const started = direct.onQuery ? performance.now() : 0;
      let rows: R[] | undefined;
      try {
        rows = direct.read<R>(compiled.sql, parameters);
      } catch (error) {
        direct.onQuery?.(compiled.operation, performance.now() - started, true);
        throw error;
      }
      if (rows) {
        direct.onQuery?.(compiled.operation, performance.now() - started, false);
        return { rows };
      }
    }
    return db.executeQuery<R>(CompiledQuery.raw(compiled.sql, parameters) as CompiledQuery<R>);
  }
}
