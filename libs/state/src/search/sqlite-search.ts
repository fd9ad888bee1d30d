import { sql } from 'kysely';
import type { Executor } from '../db/database.js';
import { DEGRADED_SCAN_WINDOW, type SearchFilter, type SearchPort, type WordCursor } from './search.port.js';
import { toFts5Match, toTrigramMatch, type WordTerm } from './search-query.js';
import {
  containsAll,
  countUpTo,
  newestContaining,
  type SearchSqlRow,
  searchFilters,
  toSearchRow,
  VISIBLE_MESSAGE,
} from './search-sql.js';

/** How many extra top-ranked hits the word query reads so ties at the page edge order exactly. */
const RANK_OVERFETCH = 100;

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
    const { rows } = await sql<SearchSqlRow>`
      with top as (
        select f.rowid as id, f.rank as bm25
        from messages_fts f
        join messages m on m.id = f.rowid
        join sessions s on s.id = m.session_id
        where messages_fts match ${match} ${searchFilters(filter)} ${keyset}
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
    return rows.map((row) => toSearchRow(row, []));
  }

  async substring(db: Executor, substrings: readonly string[], filter: SearchFilter, afterId?: number) {
    if (filter.profiles?.length === 0) return [];
    const match = toTrigramMatch(substrings);
    // Without a term of three characters the trigram index cannot help: walk the newest messages.
    if (match === null) {
      return newestContaining(db, { substrings, operator: 'like', filter, afterId, substringIndexedOnly: true });
    }
    // Shorter terms (two-character CJK words) filter the trigram hits.
    const short = substrings.filter((term) => Array.from(term).length < 3);
    const shortFilter = short.length ? sql`and ${containsAll(short, 'like')}` : sql``;
    // Ordering by the FTS rowid (= message id) lets FTS5 walk backwards and stop at the LIMIT.
    const keyset = afterId !== undefined ? sql`and t.rowid < ${afterId}` : sql``;
    const { rows } = await sql<SearchSqlRow>`
      select m.id, m.session_id, m.role, m.timestamp, s.title, s.profile, s.source,
        snippet(messages_trgm, 0, char(2), char(3), '…', 16) as snippet, 0 as rank
      from messages_trgm t
      join messages m on m.id = t.rowid
      join sessions s on s.id = m.session_id
      where messages_trgm match ${match} ${shortFilter} ${searchFilters(filter)} ${keyset}
      order by t.rowid desc
      limit ${filter.limit}`.execute(db);
    return rows.map((row) => toSearchRow(row, substrings));
  }

  async count(
    db: Executor,
    mode: 'word' | 'substring',
    query: { terms: readonly WordTerm[]; substrings: readonly string[] },
    filter: SearchFilter,
    bound: number,
  ) {
    if (filter.profiles?.length === 0) return 0;
    if (mode === 'word') {
      const match = toFts5Match(query.terms);
      return countUpTo(
        db,
        sql`select 1 from messages_fts f join messages m on m.id = f.rowid join sessions s on s.id = m.session_id
          where messages_fts match ${match} ${searchFilters(filter)}`,
        bound,
      );
    }
    const match = toTrigramMatch(query.substrings);
    if (match === null) {
      return countUpTo(
        db,
        sql`select 1 from messages m join sessions s on s.id = m.session_id
          where m.substring_indexed = 1 and ${VISIBLE_MESSAGE} and ${containsAll(query.substrings, 'like')} ${searchFilters(filter)}`,
        bound,
      );
    }
    const short = query.substrings.filter((term) => Array.from(term).length < 3);
    const shortFilter = short.length ? sql`and ${containsAll(short, 'like')}` : sql``;
    return countUpTo(
      db,
      sql`select 1 from messages_trgm t join messages m on m.id = t.rowid join sessions s on s.id = m.session_id
        where messages_trgm match ${match} ${shortFilter} ${searchFilters(filter)}`,
      bound,
    );
  }

  scan(db: Executor, substrings: readonly string[], filter: SearchFilter, afterId?: number) {
    return newestContaining(db, {
      substrings,
      operator: 'like',
      filter,
      afterId,
      substringIndexedOnly: false,
      window: DEGRADED_SCAN_WINDOW,
    });
  }
}
