import type { PostgresCursor, PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';

/** Distinct statement texts a process names at most; the rest run unnamed (PostgreSQL keeps each per connection). */
export const MAX_PREPARED_STATEMENTS = 256;
/** A text is named on this use: one-off statements (migrations, ad-hoc admin work) never are. */
const NAME_ON_USE = 2;
/** Texts counted while waiting for their second use, before the count starts over. */
const MAX_COUNTED_TEXTS = 4096;

/**
 * Which statements run as named prepared statements, so PostgreSQL parses and plans them once per
 * connection instead of on every call (Kysely's driver sends each as an unnamed statement).
 *
 * Only INSERT, UPDATE and DELETE are named: the write path repeats a few of them on every append,
 * and their plans are index lookups that a generic plan keeps. Reads are left unnamed because a
 * generic plan can be worse for a skewed parameter (a big profile's list, a search term).
 */
export class PreparedStatementNames {
  readonly #names = new Map<string, string>();
  readonly #uses = new Map<string, number>();
  /** Texts a connection could not run prepared (a schema change under a cached plan): unnamed from then on. */
  readonly #refused = new Set<string>();

  constructor(private readonly max = MAX_PREPARED_STATEMENTS) {}

  nameFor(text: string): string | undefined {
    const name = this.#names.get(text);
    if (name !== undefined) return name;
    if (this.#names.size >= this.max || !isWrite(text) || this.#refused.has(text)) return undefined;
    const uses = (this.#uses.get(text) ?? 0) + 1;
    if (uses < NAME_ON_USE) {
      if (this.#uses.size >= MAX_COUNTED_TEXTS) this.#uses.clear();
      this.#uses.set(text, uses);
      return undefined;
    }
    this.#uses.delete(text);
    const named = `statehouse_${this.#names.size + 1}`;
    this.#names.set(text, named);
    return named;
  }

  refuse(text: string): void {
    this.#names.delete(text);
    this.#refused.add(text);
  }

  get size(): number {
    return this.#names.size;
  }
}

function isWrite(text: string): boolean {
  const head = text.trimStart().slice(0, 6).toLowerCase();
  return head === 'insert' || head === 'update' || head === 'delete';
}

/**
 * PostgreSQL answers a prepared statement whose tables changed shape (a migration run by another
 * replica) with "cached plan must not change result type"; the statement is re-run unnamed.
 */
function isStalePlan(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  return code === '0A000' && /cached plan/i.test(message ?? '');
}

/** Kysely's PostgreSQL pool over a `pg.Pool`, naming the statements `names` picks (see PreparedStatementNames). */
export function preparedStatementPool(pool: pg.Pool, names: PreparedStatementNames): PostgresPool {
  return {
    connect: async () => wrapClient(await pool.connect(), names),
    end: () => pool.end(),
  };
}

function wrapClient(client: pg.PoolClient, names: PreparedStatementNames): PostgresPoolClient {
  return {
    query: ((sqlOrCursor: string | PostgresCursor<unknown>, parameters?: ReadonlyArray<unknown>) => {
      if (typeof sqlOrCursor !== 'string') return client.query(sqlOrCursor as never);
      const values = parameters as unknown[];
      const name = values && values.length > 0 ? names.nameFor(sqlOrCursor) : undefined;
      if (name === undefined) return client.query(sqlOrCursor, values);
      return client.query({ name, text: sqlOrCursor, values }).catch((error: unknown) => {
        if (!isStalePlan(error)) throw error;
        names.refuse(sqlOrCursor);
        // Inside a transaction the error has aborted it: the caller's retry runs the text unnamed.
        throw error;
      });
    }) as unknown as PostgresPoolClient['query'],
    release: (destroy?: boolean) => client.release(destroy),
  };
}
