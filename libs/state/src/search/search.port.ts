import type { MessageRole } from '@statehouse/contracts';
import type { Executor } from '../db/database.js';
import type { WordTerm } from './search-query.js';

export interface SearchFilter {
  profiles: string[] | null;
  /** Message times: at or after `from`, before `to` (epoch ms). */
  from?: number;
  to?: number;
  profile?: string;
  source?: string;
  role?: MessageRole;
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
}

/** Keyset position inside a ranked (word) or recency-ordered (substring) result list. */
export type WordCursor = { rank: number; id: number };

/**
 * The dialect port of search (SPEC §7): FTS5 unicode61 + trigram on SQLite, tsvector + pg_trgm on
 * PostgreSQL. Both answer only visible messages (not hidden; active or compacted), owner-fenced.
 */
export interface SearchPort {
  word(db: Executor, terms: readonly WordTerm[], filter: SearchFilter, after?: WordCursor): Promise<SearchRow[]>;
  substring(db: Executor, substrings: readonly string[], filter: SearchFilter, afterId?: number): Promise<SearchRow[]>;
  /** How many messages `word` or `substring` would find, counted up to `bound` + 1. */
  count(
    db: Executor,
    mode: 'word' | 'substring',
    query: { terms: readonly WordTerm[]; substrings: readonly string[] },
    filter: SearchFilter,
    bound: number,
  ): Promise<number>;
  /** Bounded scan over recent visible messages, used while an index is unusable. */
  scan(db: Executor, substrings: readonly string[], filter: SearchFilter, afterId?: number): Promise<SearchRow[]>;
}

/** How far a degraded scan looks back (messages), so it stays bounded on any store size. */
export const DEGRADED_SCAN_WINDOW = 20_000;
