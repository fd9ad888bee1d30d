import { type RawBuilder, sql } from 'kysely';
import type { Executor } from '../db/database.js';
import { likeContains } from '../shared/sql-dialect.js';
import {
  DEGRADED_SCAN_WINDOW,
  type SearchFilter,
  type SearchPort,
  type SearchRow,
  type WordCursor,
} from './search.port.js';
import { toTsQuery, type WordTerm } from './search-query.js';
import { makeSnippet } from './snippet.js';

type Row = {
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
};

function filters(filter: SearchFilter): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [];
  if (filter.profiles !== null) parts.push(sql`s.profile in (${sql.join(filter.profiles)})`);
  if (filter.profile) parts.push(sql`s.profile = ${filter.profile}`);
  if (filter.source) parts.push(sql`s.source = ${filter.source}`);
  if (filter.role) parts.push(sql`m.role = ${filter.role}`);
  return parts.length ? sql`and ${sql.join(parts, sql` and `)}` : sql``;
}

// Must match the partial indexes' predicates for the planner to use them.
const VISIBLE = sql`m.display_kind <> 'hidden' and (m.active = 1 or m.compacted = 1)`;

function toRow(row: Row, terms: readonly string[]): SearchRow {
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

export class PostgresSearch implements SearchPort {
  async word(db: Executor, terms: readonly WordTerm[], filter: SearchFilter, after?: WordCursor) {
    if (filter.profiles?.length === 0) return [];
    const query = toTsQuery(terms);
    // Rank rounded to a numeric, so a cursor compares exactly what the previous page returned.
    const keyset = after ? sql`where (rank < ${after.rank} or (rank = ${after.rank} and id < ${after.id}))` : sql``;
    const { rows } = await sql<Row>`
      with hits as (
        select m.id, m.session_id, m.role, m.timestamp, m.content, s.title, s.profile, s.source,
          round(ts_rank(m.search_vector, to_tsquery('simple', ${query}))::numeric, 6) as rank
        from messages m join sessions s on s.id = m.session_id
        where m.search_vector @@ to_tsquery('simple', ${query}) and ${VISIBLE} ${filters(filter)}
      ), page as (
        select * from hits ${keyset} order by rank desc, id desc limit ${filter.limit}
      )
      select id, session_id, role, timestamp, title, profile, source, rank,
        ts_headline('simple', coalesce(content, ''), to_tsquery('simple', ${query}),
          'StartSel=' || chr(2) || ', StopSel=' || chr(3) || ', MaxWords=24, MinWords=8, MaxFragments=1, FragmentDelimiter=…') as snippet
      from page order by rank desc, id desc`.execute(db);
    return rows.map((row) => toRow(row, []));
  }

  async substring(db: Executor, substrings: readonly string[], filter: SearchFilter, afterId?: number) {
    if (filter.profiles?.length === 0 || substrings.length === 0) return [];
    const likes = sql.join(
      substrings.map((term) => sql`m.content ilike ${likeContains(term)} escape '\\'`),
      sql` and `,
    );
    const keyset = afterId !== undefined ? sql`and m.id < ${afterId}` : sql``;
    const { rows } = await sql<Row>`
      select m.id, m.session_id, m.role, m.timestamp, m.content, s.title, s.profile, s.source,
        null as snippet, 0 as rank
      from messages m join sessions s on s.id = m.session_id
      where m.substring_indexed = 1 and ${VISIBLE} and ${likes} ${filters(filter)} ${keyset}
      order by m.id desc
      limit ${filter.limit}`.execute(db);
    return rows.map((row) => toRow(row, substrings));
  }

  async scan(db: Executor, substrings: readonly string[], filter: SearchFilter, afterId?: number) {
    if (filter.profiles?.length === 0 || substrings.length === 0) return [];
    const likes = sql.join(
      substrings.map((term) => sql`m.content ilike ${likeContains(term)} escape '\\'`),
      sql` and `,
    );
    const keyset = afterId !== undefined ? sql`and m.id < ${afterId}` : sql``;
    const { rows } = await sql<Row>`
      select m.id, m.session_id, m.role, m.timestamp, m.content, s.title, s.profile, s.source,
        null as snippet, 0 as rank
      from (select * from messages order by id desc limit ${DEGRADED_SCAN_WINDOW}) m
      join sessions s on s.id = m.session_id
      where ${VISIBLE} and ${likes} ${filters(filter)} ${keyset}
      order by m.id desc
      limit ${filter.limit}`.execute(db);
    return rows.map((row) => toRow(row, substrings));
  }
}
