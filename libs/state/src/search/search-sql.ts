import { type RawBuilder, sql } from 'kysely';
import type { Executor } from '../db/database.js';
import { likeContains } from '../shared/sql-dialect.js';
import type { SearchFilter, SearchRow } from './search.port.js';
import { makeSnippet } from './snippet.js';

/** SQL fragments and row mapping shared by both dialects' search ports. */
export interface SearchSqlRow {
  id: number;
  session_id: string;
  role: string;
  timestamp: number;
  title: string | null;
  profile: string;
  source: string;
  snippet: string | null;
  content?: string | null;
  rank: number | string;
}

/** The owner fence and the caller's filters, over `m` (messages) and `s` (sessions). */
export function searchFilters(filter: SearchFilter): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [];
  if (filter.from !== undefined) parts.push(sql`m.timestamp >= ${filter.from}`);
  if (filter.to !== undefined) parts.push(sql`m.timestamp < ${filter.to}`);
  if (filter.profiles !== null) parts.push(sql`s.profile in (${sql.join(filter.profiles)})`);
  if (filter.profile) parts.push(sql`s.profile = ${filter.profile}`);
  if (filter.source) parts.push(sql`s.source = ${filter.source}`);
  if (filter.role) parts.push(sql`m.role = ${filter.role}`);
  return parts.length ? sql`and ${sql.join(parts, sql` and `)}` : sql``;
}

/** What people can see (and what the partial indexes cover: keep the predicates identical). */
export const VISIBLE_MESSAGE = sql`m.display_kind <> 'hidden' and (m.active = 1 or m.compacted = 1)`;

/** Every substring must occur in the content (`like` on SQLite, `ilike` on PostgreSQL). */
export function containsAll(substrings: readonly string[], operator: 'like' | 'ilike'): RawBuilder<unknown> {
  return sql.join(
    substrings.map((term) => sql`m.content ${sql.raw(operator)} ${likeContains(term)} escape '\\'`),
    sql` and `,
  );
}

export function toSearchRow(row: SearchSqlRow, terms: readonly string[]): SearchRow {
  return {
    messageId: Number(row.id),
    sessionId: row.session_id,
    role: row.role,
    timestamp: Number(row.timestamp),
    title: row.title,
    profile: row.profile,
    source: row.source,
    snippet: row.snippet ?? makeSnippet(row.content ?? null, terms),
    rank: Number(row.rank),
  };
}

/**
 * The newest visible messages containing every substring — a bounded walk down the id index, used
 * where no engine index applies (short CJK terms, pg_trgm, the degraded scan). `window` limits it
 * to the most recent messages.
 */
export async function newestContaining(
  db: Executor,
  options: {
    substrings: readonly string[];
    operator: 'like' | 'ilike';
    filter: SearchFilter;
    afterId?: number;
    substringIndexedOnly: boolean;
    window?: number;
  },
): Promise<SearchRow[]> {
  const { substrings, filter, afterId } = options;
  if (filter.profiles?.length === 0 || substrings.length === 0) return [];
  const from =
    options.window === undefined
      ? sql`messages`
      : sql`(select * from messages order by id desc limit ${options.window})`;
  const indexed = options.substringIndexedOnly ? sql`m.substring_indexed = 1 and` : sql``;
  const keyset = afterId !== undefined ? sql`and m.id < ${afterId}` : sql``;
  const { rows } = await sql<SearchSqlRow>`
    select m.id, m.session_id, m.role, m.timestamp, m.content, s.title, s.profile, s.source, null as snippet, 0 as rank
    from ${from} m join sessions s on s.id = m.session_id
    where ${indexed} ${VISIBLE_MESSAGE} and ${containsAll(substrings, options.operator)} ${searchFilters(filter)} ${keyset}
    order by m.id desc
    limit ${filter.limit}`.execute(db);
  return rows.map((row) => toSearchRow(row, substrings));
}

/** `select count(*)` of a hit query stopped after `bound` + 1 rows (a search's "100+"). */
export async function countUpTo(db: Executor, hits: RawBuilder<unknown>, bound: number): Promise<number> {
  const { rows } = await sql<{
    n: number | string;
  }>`select count(*) as n from (${hits} limit ${bound + 1}) hits`.execute(db);
  return Number(rows[0]?.n ?? 0);
}
