import { sql } from 'kysely';
import type { Executor } from '../db/database.js';
import type { SearchFilter, SearchPort, WordCursor } from './search.port.js';
import { type SubstringClause, toTsQuery, type WordClause } from './search-query.js';
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

export class PostgresSearch implements SearchPort {
  async word(db: Executor, clauses: readonly WordClause[], filter: SearchFilter, after?: WordCursor) {
    if (filter.profiles?.length === 0) return [];
    const query = toTsQuery(clauses);
    const terms = clauses.flatMap((clause) => clause.positive.flatMap((term) => term.words));
    // Rank rounded to a numeric, so a cursor compares exactly what the previous page returned.
    const keyset = after ? sql`where (rank < ${after.rank} or (rank = ${after.rank} and id < ${after.id}))` : sql``;
    const { rows } = await sql<SearchSqlRow>`
      with hits as (
        select m.id, m.session_id, m.role, m.timestamp, m.content, m.tool_calls, s.title, s.profile, s.source,
          round(ts_rank(m.search_vector, to_tsquery('simple', ${query}))::numeric, 6) as rank
        from messages m join sessions s on s.id = m.session_id
        where m.search_vector @@ to_tsquery('simple', ${query}) and ${VISIBLE_MESSAGE} ${searchFilters(filter)}
      ), page as (
        select * from hits ${keyset} order by rank desc, id desc limit ${filter.limit}
      )
      select id, session_id, role, timestamp, content, tool_calls, title, profile, source, rank,
        ts_headline('simple', coalesce(content, ''), to_tsquery('simple', ${query}),
          'StartSel=' || chr(2) || ', StopSel=' || chr(3) || ', MaxWords=24, MinWords=8, MaxFragments=1, FragmentDelimiter=…') as snippet
      from page order by rank desc, id desc`.execute(db);
    return rows.map((row) => toSearchRow(row, terms));
  }

  substring(db: Executor, clauses: readonly SubstringClause[], filter: SearchFilter, afterId?: number) {
    // ILIKE uses the partial pg_trgm index for terms of three characters or more.
    return newestContaining(db, { clauses, operator: 'ilike', filter, afterId, substringIndexedOnly: true });
  }

  async count(
    db: Executor,
    mode: 'word' | 'substring',
    query: { clauses: readonly WordClause[]; substringClauses: readonly SubstringClause[] },
    filter: SearchFilter,
    bound: number,
  ) {
    if (filter.profiles?.length === 0) return 0;
    const matches =
      mode === 'word'
        ? sql`m.search_vector @@ to_tsquery('simple', ${toTsQuery(query.clauses)})`
        : sql`m.substring_indexed = 1 and ${matchesClauses(query.substringClauses, 'ilike')}`;
    return countUpTo(
      db,
      sql`select 1 from messages m join sessions s on s.id = m.session_id
        where ${matches} and ${VISIBLE_MESSAGE} ${searchFilters(filter)}`,
      bound,
    );
  }

  scan(db: Executor, clauses: readonly SubstringClause[], filter: SearchFilter, afterId?: number) {
    return boundedScan(db, clauses, filter, 'ilike', afterId);
  }

  titles(db: Executor, clauses: readonly SubstringClause[], filter: SearchFilter) {
    return titleHits(db, clauses, filter);
  }
}
