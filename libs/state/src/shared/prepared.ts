import { type Compilable, CompiledQuery, type QueryResult } from 'kysely';
import type { Executor } from '../db/database.js';

const MARKER = '\u0000statehouse-param:';

/**
 * A query built with Kysely once and then reused as compiled SQL: on the hottest paths (a
 * single-message append) building and compiling the query tree costs as much as running it.
 * Named parameters are stand-ins when the query is built; each call substitutes real values.
 */
export class PreparedQuery<P extends string, R = unknown> {
  private compiled: { sql: string; slots: ({ name: P } | { value: unknown })[] } | undefined;

  constructor(private readonly build: (db: Executor, param: (name: P) => never) => Compilable<R>) {}

  async execute(db: Executor, values: Record<P, unknown>): Promise<QueryResult<R>> {
    if (!this.compiled) {
      const query = this.build(db, (name) => `${MARKER}${name}` as never).compile();
      this.compiled = {
        sql: query.sql,
        slots: query.parameters.map((parameter) =>
          typeof parameter === 'string' && parameter.startsWith(MARKER)
            ? { name: parameter.slice(MARKER.length) as P }
            : { value: parameter },
        ),
      };
    }
    const parameters = this.compiled.slots.map((slot) => ('name' in slot ? values[slot.name] : slot.value));
    return db.executeQuery<R>(CompiledQuery.raw(this.compiled.sql, parameters) as CompiledQuery<R>);
  }
}
