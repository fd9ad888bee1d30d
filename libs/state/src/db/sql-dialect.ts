import { type Expression, type RawBuilder, sql } from 'kysely';
import type { Dialect, Executor } from './database.js';

/** The few SQL spellings that differ between SQLite and PostgreSQL, behind one small port. */
export interface SqlDialect {
  readonly name: Dialect;
  greatest<T>(a: Expression<T>, b: Expression<T> | T): RawBuilder<T>;
  least<T>(a: Expression<T>, b: Expression<T> | T): RawBuilder<T>;
}

export function sqlDialect(name: Dialect): SqlDialect {
  return {
    name,
    greatest: (a, b) => {
      const right = isExpression(b) ? b : sql.val(b);
      return name === 'sqlite' ? sql`max(${a}, ${right})` : sql`greatest(${a}, ${right})`;
    },
    least: (a, b) => {
      const right = isExpression(b) ? b : sql.val(b);
      return name === 'sqlite' ? sql`min(${a}, ${right})` : sql`least(${a}, ${right})`;
    },
  };
}

function isExpression(value: unknown): value is Expression<unknown> {
  return typeof value === 'object' && value !== null && 'toOperationNode' in value;
}

/** A unique-constraint violation, in either dialect's words. */
export function isUniqueViolation(error: unknown, constraintHint?: string): boolean {
  const e = error as { code?: string; message?: string; constraint?: string } | undefined;
  if (!e) return false;
  const unique =
    e.code === '23505' || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
  if (!unique || !constraintHint) return unique;
  return (e.constraint ?? '').includes(constraintHint) || (e.message ?? '').includes(constraintHint);
}

/** Escape a user string for `LIKE … ESCAPE '\'` (both dialects accept the clause). */
export function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

/** Chunk id lists below both dialects' bound-parameter limits. */
export function chunk<T>(items: readonly T[], size = 500): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

/** Rows of a per-session table (messages, routes) that belong to any of the sessions, counted in chunks. */
export async function countForSessions(
  db: Executor,
  table: 'messages' | 'routes',
  sessionIds: readonly string[],
): Promise<number> {
  let total = 0;
  for (const part of chunk(sessionIds)) {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('session_id', 'in', part)
      .executeTakeFirstOrThrow();
    total += Number(row.n);
  }
  return total;
}
