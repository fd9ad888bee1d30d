import { type MessageRole, SNIPPET_MATCH_END, SNIPPET_MATCH_START } from '@statehouse/contracts';
import { type RawBuilder, sql } from 'kysely';
import type { Executor } from '../db/database.js';
import { likeContains } from '../db/sql-dialect.js';
import { readableToolCalls } from '../domain/message-content.js';
import { SCAN_WINDOW, type SearchFilter, type SearchRow, type TitleRow } from './search.port.js';
import type { SubstringClause } from './search-query.js';
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
  tool_calls?: string | null;
  rank: number | string;
}

/** The owner fence and the caller's filters, over `m` (messages) and `s` (sessions). */
export function searchFilters(filter: SearchFilter): RawBuilder<unknown> {
  // A hidden session (half-imported, migration 2026-12-01T03.00) has no hits; every caller joins `s`.
  const parts: RawBuilder<unknown>[] = [sql`s.hidden_for is null`];
  if (filter.from !== undefined) parts.push(sql`m.timestamp >= ${filter.from}`);
  if (filter.to !== undefined) parts.push(sql`m.timestamp < ${filter.to}`);
  if (filter.profiles !== null) parts.push(sql`s.profile in (${sql.join(filter.profiles)})`);
  if (filter.profile) parts.push(sql`s.profile = ${filter.profile}`);
  parts.push(...sessionScope(filter));
  if (filter.role) parts.push(sql`m.role = ${filter.role}`);
  if (filter.excludeToolRows) parts.push(sql`m.role <> 'tool'`);
  if (filter.substringIndexed !== undefined) parts.push(sql`m.substring_indexed = ${filter.substringIndexed}`);
  if (filter.sessionId) parts.push(sql`m.session_id = ${filter.sessionId}`);
  if (filter.roles?.length) parts.push(sql`m.role in (${sql.join([...filter.roles])})`);
  return parts.length ? sql`and ${sql.join(parts, sql` and `)}` : sql``;
}

/** The surfaces a search selects, over `s` (sessions): messages and titles alike (docs/search.md, "Scope"). */
function sessionScope(filter: SearchFilter): RawBuilder<unknown>[] {
  const parts: RawBuilder<unknown>[] = [];
  if (filter.sources?.length) parts.push(sql`s.source in (${sql.join([...filter.sources])})`);
  if (filter.excludeSources?.length) parts.push(sql`s.source not in (${sql.join([...filter.excludeSources])})`);
  if (filter.excludeDelegates) parts.push(sql`s.delegated = 0`);
  for (const labelIds of filter.labelIdSets ?? []) {
    const ids = labelIds.length ? [...labelIds] : [''];
    parts.push(
      sql`exists (select 1 from session_labels sl where sl.session_id = s.id and sl.label_id in (${sql.join(ids)}))`,
    );
  }
  return parts;
}

/** What people can see (and what the partial indexes cover: keep the predicates identical). */
export const VISIBLE_MESSAGE = sql`m.display_kind <> 'hidden' and (m.active = 1 or m.compacted = 1)`;

/**
 * The substring alternatives as SQL over `column`: in some alternative, every included text occurs
 * and no excluded one does (`like` on SQLite, `ilike` on PostgreSQL; texts are bound, escaped).
 */
export function matchesClauses(
  clauses: readonly SubstringClause[],
  operator: 'like' | 'ilike',
  column: RawBuilder<unknown> = sql`m.content`,
): RawBuilder<unknown> {
  const op = sql.raw(operator);
  const alternative = (clause: SubstringClause) =>
    sql`(${sql.join(
      [
        ...clause.include.map((term) => sql`${column} ${op} ${likeContains(term)} escape '\\'`),
        ...clause.exclude.map((term) => sql`coalesce(${column} not ${op} ${likeContains(term)} escape '\\', true)`),
      ],
      sql` and `,
    )})`;
  return sql`(${sql.join(clauses.map(alternative), sql` or `)})`;
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
    snippet: readableSnippet(row, terms),
    rank: Number(row.rank),
    matchedIn: 'content',
  };
}

/**
 * Tool calls are stored as JSON; a hit on one is shown as people read a call —
 * `web_search(query: …)` — never as escaped JSON (docs/domain.md §7.4).
 */
function readableSnippet(row: SearchSqlRow, terms: readonly string[]): string {
  const calls = readableToolCalls(row.tool_calls ?? null);
  if (calls === null) return row.snippet ?? makeSnippet(row.content ?? null, terms);
  const text = [row.content, calls].filter((part) => part?.trim()).join('\n');
  const highlighted = row.snippet ? stripMarkers(row.snippet) : '';
  const wanted = terms.length > 0 ? terms : highlighted ? [highlighted] : [];
  return makeSnippet(text, wanted);
}

function stripMarkers(snippet: string): string {
  const start = snippet.indexOf(SNIPPET_MATCH_START);
  const end = snippet.indexOf(SNIPPET_MATCH_END, start + 1);
  return start >= 0 && end > start ? snippet.slice(start + 1, end) : '';
}

/**
 * The newest visible messages matching the substring alternatives — a bounded walk down the id
 * index, used where no engine index applies (short CJK terms, pg_trgm, the bounded scan). `window`
 * limits it to the newest messages the filter selects.
 */
export async function newestContaining(
  db: Executor,
  options: {
    clauses: readonly SubstringClause[];
    operator: 'like' | 'ilike';
    filter: SearchFilter;
    afterId?: number;
    substringIndexedOnly: boolean;
    window?: number;
  },
): Promise<SearchRow[]> {
  const { clauses, filter, afterId } = options;
  if (filter.profiles?.length === 0 || clauses.length === 0) return [];
  const indexed = options.substringIndexedOnly ? sql`m.substring_indexed = 1 and` : sql``;
  const keyset = afterId !== undefined ? sql`and m.id < ${afterId}` : sql``;
  const terms = clauses.flatMap((clause) => clause.include);
  if (options.window === undefined) {
    const { rows } = await sql<SearchSqlRow>`
      select m.id, m.session_id, m.role, m.timestamp, m.content, m.tool_calls, s.title, s.profile, s.source, null as snippet, 0 as rank
      from messages m join sessions s on s.id = m.session_id
      where ${indexed} ${VISIBLE_MESSAGE} and ${matchesClauses(clauses, options.operator)} ${searchFilters(filter)} ${keyset}
      order by m.id desc
      limit ${filter.limit}`.execute(db);
    return rows.map((row) => toSearchRow(row, terms));
  }
  // Examine at most `window` of the newest messages the filter selects, then match among them.
  const { rows } = await sql<SearchSqlRow>`
    select recent.* from (
      select m.id, m.session_id, m.role, m.timestamp, m.content, m.tool_calls, s.title, s.profile, s.source, null as snippet, 0 as rank
      from messages m join sessions s on s.id = m.session_id
      where ${indexed} ${VISIBLE_MESSAGE} ${searchFilters(filter)} ${keyset}
      order by m.id desc
      limit ${options.window}
    ) recent
    where ${matchesClauses(clauses, options.operator, sql`recent.content`)}
    order by recent.id desc
    limit ${filter.limit}`.execute(db);
  return rows.map((row) => toSearchRow(row, terms));
}

export function boundedScan(
  db: Executor,
  clauses: readonly SubstringClause[],
  filter: SearchFilter,
  operator: 'like' | 'ilike',
  afterId?: number,
): Promise<SearchRow[]> {
  return newestContaining(db, {
    clauses,
    operator,
    filter,
    afterId,
    substringIndexedOnly: false,
    window: SCAN_WINDOW,
  });
}

/** How many sessions a search names by title, at most. */
export const TITLE_HITS = 5;
/** How many of the most recently active titled sessions a title search reads, at most. */
export const TITLE_SCAN_WINDOW = 20_000;

/**
 * Sessions of the caller's selection whose title contains the query, newest activity first, each
 * with the first visible message a hit links to (a session without one is not shown).
 */
export async function titleHits(
  db: Executor,
  clauses: readonly SubstringClause[],
  filter: SearchFilter,
): Promise<TitleRow[]> {
  if (filter.profiles?.length === 0 || clauses.length === 0) return [];
  const lowered = clauses.map((clause) => ({
    include: clause.include.map((term) => term.toLowerCase()),
    exclude: clause.exclude.map((term) => term.toLowerCase()),
  }));
  const sessionFilters: RawBuilder<unknown>[] = [];
  if (filter.profiles !== null) sessionFilters.push(sql`s.profile in (${sql.join(filter.profiles)})`);
  if (filter.profile) sessionFilters.push(sql`s.profile = ${filter.profile}`);
  sessionFilters.push(...sessionScope(filter));
  if (filter.sessionId) sessionFilters.push(sql`s.id = ${filter.sessionId}`);
  // A date range keeps the sessions that were active in it.
  if (filter.from !== undefined) sessionFilters.push(sql`s.last_activity_at >= ${filter.from}`);
  if (filter.to !== undefined) sessionFilters.push(sql`s.started_at < ${filter.to}`);
  // Bounded like every scan: the titles of the most recently active sessions of the selection.
  const { rows } = await sql<{
    session_id: string;
    title: string;
    profile: string;
    source: string;
    first_id: number | null;
  }>`
    select s.id as session_id, s.title, s.profile, s.source,
      (select min(m.id) from messages m where m.session_id = s.id and ${VISIBLE_MESSAGE}) as first_id
    from (
      select s.id, s.title, s.profile, s.source, s.last_activity_at from sessions s
      where s.title is not null and s.hidden_for is null ${sessionFilters.length ? sql`and ${sql.join(sessionFilters, sql` and `)}` : sql``}
      order by s.last_activity_at desc, s.id desc
      limit ${TITLE_SCAN_WINDOW}
    ) s
    where ${matchesClauses(lowered, 'like', sql`lower(s.title)`)}
    order by s.last_activity_at desc, s.id desc
    limit ${TITLE_HITS * 2}`.execute(db);
  const found = rows.filter((row) => row.first_id !== null).slice(0, TITLE_HITS);
  if (found.length === 0) return [];
  const messages = await db
    .selectFrom('messages')
    .select(['id', 'role', 'timestamp'])
    .where(
      'id',
      'in',
      found.map((row) => Number(row.first_id)),
    )
    .execute();
  const byId = new Map(messages.map((message) => [Number(message.id), message]));
  return found.flatMap((row) => {
    const message = byId.get(Number(row.first_id));
    if (!message || (filter.role && message.role !== filter.role)) return [];
    if (filter.roles?.length && !filter.roles.includes(message.role as MessageRole)) return [];
    return [
      {
        sessionId: row.session_id,
        title: row.title,
        profile: row.profile,
        source: row.source,
        messageId: Number(message.id),
        role: message.role,
        timestamp: Number(message.timestamp),
      },
    ];
  });
}

/** `select count(*)` of a hit query stopped after `bound` + 1 rows (a search's "100+"). */
export async function countUpTo(db: Executor, hits: RawBuilder<unknown>, bound: number): Promise<number> {
  const { rows } = await sql<{
    n: number | string;
  }>`select count(*) as n from (${hits} limit ${bound + 1}) hits`.execute(db);
  return Number(rows[0]?.n ?? 0);
}
