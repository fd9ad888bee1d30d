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
import { toFts5Match, toTrigramMatch, type WordTerm } from './search-query.js';
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
  rank: number;
};

function filters(filter: SearchFilter): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [];
  if (filter.profiles !== null) parts.push(sql`s.profile in (${sql.join(filter.profiles)})`);
  if (filter.profile) parts.push(sql`s.profile = ${filter.profile}`);
  if (filter.source) parts.push(sql`s.source = ${filter.source}`);
  if (filter.role) parts.push(sql`m.role = ${filter.role}`);
  return parts.length ? sql`and ${sql.join(parts, sql` and `)}` : sql``;
}

/** How many extra top-ranked hits the word query reads so ties at the page edge order exactly. */
const RANK_OVERFETCH = 100;

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

export class SqliteSearch implements SearchPort {
  async word(db: Executor, terms: readonly WordTerm[], filter: SearchFilter, after?: WordCursor) {
    if (filter.profiles?.length === 0) return [];
    const match = toFts5Match(terms);
    // FTS5 bm25: lower is better; the API's rank is its negation (higher is better).
    const keyset = after
      ? sql`and (-f.rank < ${after.rank} or (-f.rank = ${after.rank} and f.rowid < ${after.id}))`
      : sql``;
    // Ranking by `rank` alone with a literal LIMIT lets FTS5 consume the ORDER BY (a tie-break column
    // or a bound LIMIT makes SQLite sort every hit itself); the page is then ordered exactly by
    // (rank, id) among an over-fetched top, and snippets are computed for the page only.
    const { rows } = await sql<Row>`
      with top as (
        select f.rowid as id, f.rank as bm25
        from messages_fts f
        join messages m on m.id = f.rowid
        join sessions s on s.id = m.session_id
        where messages_fts match ${match} ${filters(filter)} ${keyset}
        order by f.rank
        limit ${sql.lit(filter.limit + RANK_OVERFETCH)}
      ), page as (
        select id, bm25 from top order by bm25, id desc limit ${sql.lit(filter.limit)}
      )
      select m.id, m.session_id, m.role, m.timestamp, s.title, s.profile, s.source,
        snippet(messages_fts, -1, char(2), char(3), '…', 16) as snippet, -page.bm25 as rank
      from page
      join messages_fts on messages_fts.rowid = page.id
      join messages m on m.id = page.id
      join sessions s on s.id = m.session_id
      where messages_fts match ${match}
      order by page.bm25, page.id desc`.execute(db);
    return rows.map((row) => toRow(row, []));
  }

  async substring(db: Executor, substrings: readonly string[], filter: SearchFilter, afterId?: number) {
    if (filter.profiles?.length === 0) return [];
    const match = toTrigramMatch(substrings);
    // Terms under three characters cannot use trigrams: they filter the candidates instead.
    const short = substrings.filter((term) => Array.from(term).length < 3);
    const shortFilter = short.length
      ? sql`and ${sql.join(
          short.map((term) => sql`m.content like ${likeContains(term)} escape '\\'`),
          sql` and `,
        )}`
      : sql``;
    const keyset = afterId !== undefined ? sql`and m.id < ${afterId}` : sql``;
    const trigramKeyset = afterId !== undefined ? sql`and t.rowid < ${afterId}` : sql``;
    if (match === null) {
      const { rows } = await sql<Row>`
        select m.id, m.session_id, m.role, m.timestamp, s.title, s.profile, s.source, null as snippet,
          m.content, 0 as rank
        from messages m join sessions s on s.id = m.session_id
        where m.substring_indexed = 1 and ${VISIBLE} ${shortFilter} ${filters(filter)} ${keyset}
        order by m.id desc
        limit ${filter.limit}`.execute(db);
      return rows.map((row) => toRow(row, substrings));
    }
    const { rows } = await sql<Row>`
      select m.id, m.session_id, m.role, m.timestamp, s.title, s.profile, s.source,
        snippet(messages_trgm, 0, char(2), char(3), '…', 16) as snippet, 0 as rank
      from messages_trgm t
      join messages m on m.id = t.rowid
      join sessions s on s.id = m.session_id
      where messages_trgm match ${match} ${shortFilter} ${filters(filter)} ${trigramKeyset}
      order by t.rowid desc
      limit ${filter.limit}`.execute(db);
    return rows.map((row) => toRow(row, substrings));
  }

  async scan(db: Executor, substrings: readonly string[], filter: SearchFilter, afterId?: number) {
    if (filter.profiles?.length === 0 || substrings.length === 0) return [];
    const likes = sql.join(
      substrings.map((term) => sql`m.content like ${likeContains(term)} escape '\\'`),
      sql` and `,
    );
    const keyset = afterId !== undefined ? sql`and m.id < ${afterId}` : sql``;
    const { rows } = await sql<Row>`
      select m.id, m.session_id, m.role, m.timestamp, s.title, s.profile, s.source, null as snippet,
        m.content, 0 as rank
      from (select * from messages order by id desc limit ${DEGRADED_SCAN_WINDOW}) m
      join sessions s on s.id = m.session_id
      where ${VISIBLE} and ${likes} ${filters(filter)} ${keyset}
      order by m.id desc
      limit ${filter.limit}`.execute(db);
    return rows.map((row) => toRow(row, substrings));
  }
}
