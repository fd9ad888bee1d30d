import type { MessageRole } from '@statehouse/contracts';
import type { Executor } from '../db/database.js';
import type { SubstringClause, WordClause } from './search-query.js';

export interface SearchFilter {
  profiles: string[] | null;
  /** Message times: at or after `from`, before `to` (epoch ms). */
  from?: number;
  to?: number;
  profile?: string;
  /** Only sessions of these surfaces. */
  sources?: readonly string[];
  /** Never sessions of these surfaces. */
  excludeSources?: readonly string[];
  /** Leave out delegate (sub-agent) sessions. */
  excludeDelegates?: boolean;
  /** Leave out tool results. */
  excludeToolRows?: boolean;
  /** Only messages inside (1) or outside (0) the substring index (`messages.substring_indexed`). */
  substringIndexed?: 0 | 1;
  role?: MessageRole;
  /** Only messages of this session. */
  sessionId?: string;
  /** Only messages of these roles. */
  roles?: readonly MessageRole[];
  /** Only sessions carrying, for every set, one of its labels (a resolved `label` filter). */
  labelIdSets?: readonly (readonly string[])[];
  limit: number;
}

export interface SearchRow {
  messageId: number;
  sessionId: string;
  role: string;
  timestamp: number;
  title: string | null;
  profile: string;
  source: string;
  snippet: string;
  rank: number;
  /** Where the query matched: a message's text, or the session's title. */
  matchedIn: 'content' | 'title';
}

/** A session whose title matches, with the first visible message a hit on it links to. */
export interface TitleRow {
  sessionId: string;
  title: string;
  profile: string;
  source: string;
  messageId: number;
  role: string;
  timestamp: number;
}

/** Keyset position inside a ranked (word) or recency-ordered (substring) result list. */
export type WordCursor = { rank: number; id: number };

/**
 * The dialect port of search (docs/domain.md §7): FTS5 unicode61 + trigram on SQLite, tsvector + pg_trgm on
 * PostgreSQL. Both answer only visible messages (not hidden; active or compacted), owner-fenced.
 */
export interface SearchPort {
  word(db: Executor, clauses: readonly WordClause[], filter: SearchFilter, after?: WordCursor): Promise<SearchRow[]>;
  substring(
    db: Executor,
    clauses: readonly SubstringClause[],
    filter: SearchFilter,
    afterId?: number,
  ): Promise<SearchRow[]>;
  /**
   * Bounded scan of the newest visible messages the filter selects (newest first, at most
   * `SCAN_WINDOW` rows examined): while an index is unusable, and for substring queries whose
   * filter selects rows outside the substring index (cron, sub-agent and delegate sessions).
   */
  scan(db: Executor, clauses: readonly SubstringClause[], filter: SearchFilter, afterId?: number): Promise<SearchRow[]>;
  /** How many messages `word` or `substring` would find, counted up to `bound` + 1. */
  count(
    db: Executor,
    mode: 'word' | 'substring',
    query: { clauses: readonly WordClause[]; substringClauses: readonly SubstringClause[] },
    filter: SearchFilter,
    bound: number,
  ): Promise<number>;
  /** Sessions whose title contains the query (newest activity first, at most `limit`). */
  titles(db: Executor, clauses: readonly SubstringClause[], filter: SearchFilter): Promise<TitleRow[]>;
}

/** How far a bounded scan looks back (messages), so it stays bounded on any store size. */
export const SCAN_WINDOW = 20_000;
