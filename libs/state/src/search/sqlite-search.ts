import { sql } from 'kysely';
import type { Executor } from '../db/database.js';
import type { SearchFilter, SearchPort, WordCursor } from './search.port.js';
import { type SubstringClause, toFts5Match, toTrigramMatch, type WordClause } from './search-query.js';
import {
  boundedScan,
  countUpTo,
  matchesClauses,
  newestContaining,
  type SearchSqlRow,
  searchFilters,
  titleHits,
  toSearchRow,
  VISIBLE_MESSAGE,
} from './search-sql.js';

/** How many extra top-ranked hits the word query reads so ties at the page edge order exactly. */
const RANK_OVERFETCH = 100;

export class SqliteSearch implements SearchPort {
  async word(db: Executor, clauses: readonly WordClause[], filter: SearchFilter, after?: WordCursor) {
    if (filter.profiles?.length === 0) return [];
    const match = toFts5Match(clauses);
    const terms = clauses.flatMap((clause) => clause.positive.flatMap((term) => term.words));
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
      select m.id, m.session_id, m.role, m.timestamp, m.content, m.tool_calls, s.title, s.profile, s.source,
        snippet(messages_fts, -1, char(2), char(3), '…', 16) as snippet, -page.bm25 as rank
      from page
      join messages_fts on messages_fts.rowid = page.id
      join messages m on m.id = page.id
      join sessions s on s.id = m.session_id
      where messages_fts match ${match}
      order by page.bm25, page.id desc`.execute(db);
    return rows.map((row) => toSearchRow(row, terms));
  }

  async substring(db: Executor, clauses: readonly SubstringClause[], filter: SearchFilter, afterId?: number) {
    if (filter.profiles?.length === 0) return [];
    const terms = clauses.flatMap((clause) => clause.include);
    // One plain alternative (the usual query): the trigram index takes the terms of three characters
    // or more, and the shorter ones (two-character CJK words) filter its hits.
    const plain = clauses.length === 1 && clauses[0].exclude.length === 0 ? clauses[0].include : undefined;
    const long = plain?.filter((term) => Array.from(term).length >= 3) ?? [];
    const short = plain?.filter((term) => Array.from(term).length < 3) ?? [];
    const match = plain
      ? long.length > 0
        ? toTrigramMatch([{ include: long, exclude: [] }])
        : null
      : toTrigramMatch(clauses);
    // Without a usable trigram expression: walk the newest messages.
    if (match === null) {
      return newestContaining(db, { clauses, operator: 'like', filter, afterId, substringIndexedOnly: true });
    }
    const shortFilter = short.length ? sql`and ${matchesClauses([{ include: short, exclude: [] }], 'like')}` : sql``;
    // Ordering by the FTS rowid (= message id) lets FTS5 walk backwards and stop at the LIMIT.
    const keyset = afterId !== undefined ? sql`and t.rowid < ${afterId}` : sql``;
    const { rows } = await sql<SearchSqlRow>`
      select m.id, m.session_id, m.role, m.timestamp, m.content, m.tool_calls, s.title, s.profile, s.source,
        snippet(messages_trgm, 0, char(2), char(3), '…', 16) as snippet, 0 as rank
      from messages_trgm t
      join messages m on m.id = t.rowid
      join sessions s on s.id = m.session_id
      where messages_trgm match ${match} ${shortFilter} ${searchFilters(filter)} ${keyset}
      order by t.rowid desc
      limit ${filter.limit}`.execute(db);
    return rows.map((row) => toSearchRow(row, terms));
  }

  async count(
    db: Executor,
    mode: 'word' | 'substring',
    query: { clauses: readonly WordClause[]; substringClauses: readonly SubstringClause[] },
    filter: SearchFilter,
    bound: number,
  ) {
    if (filter.profiles?.length === 0) return 0;
    if (mode === 'word') {
      return countUpTo(
        db,
        sql`select 1 from messages_fts f join messages m on m.id = f.rowid join sessions s on s.id = m.session_id
          where messages_fts match ${toFts5Match(query.clauses)} ${searchFilters(filter)}`,
        bound,
      );
    }
    // The same index choice as `substring`.
    const clauses = query.substringClauses;
    const plain = clauses.length === 1 && clauses[0].exclude.length === 0 ? clauses[0].include : undefined;
    const long = plain?.filter((term) => Array.from(term).length >= 3) ?? [];
    const short = plain?.filter((term) => Array.from(term).length < 3) ?? [];
    const match = plain
      ? long.length > 0
        ? toTrigramMatch([{ include: long, exclude: [] }])
        : null
      : toTrigramMatch(clauses);
    if (match === null) {
      return countUpTo(
        db,
        sql`select 1 from messages m join sessions s on s.id = m.session_id
          where m.substring_indexed = 1 and ${VISIBLE_MESSAGE} and ${matchesClauses(clauses, 'like')} ${searchFilters(filter)}`,
        bound,
      );
    }
    const shortFilter = short.length ? sql`and ${matchesClauses([{ include: short, exclude: [] }], 'like')}` : sql``;
    return countUpTo(
      db,
      sql`select 1 from messages_trgm t join messages m on m.id = t.rowid join sessions s on s.id = m.session_id
        where messages_trgm match ${match} ${shortFilter} ${searchFilters(filter)}`,
      bound,
    );
  }

  scan(db: Executor, clauses: readonly SubstringClause[], filter: SearchFilter, afterId?: number) {
    return boundedScan(db, clauses, filter, 'like', afterId);
  }

  titles(db: Executor, clauses: readonly SubstringClause[], filter: SearchFilter) {
    return titleHits(db, clauses, filter);
  }
}
