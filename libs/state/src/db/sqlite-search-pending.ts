import type BetterSqlite3 from 'better-sqlite3';

/**
 * Messages of the open transaction not yet in the search indexes (migration 2026-12-01T06.00):
 * their insert trigger only records the id here, and every SQLite writer indexes them all at once
 * just before its COMMIT — one FTS5 segment per index per transaction instead of one per request
 * savepoint (docs/architecture.md, "Group commit"). A committed state holds nothing here.
 */
export const SEARCH_PENDING_TABLE = 'messages_search_pending';

const WORD_ROWS = `m.display_kind <> 'hidden' and (m.active = 1 or m.compacted = 1)`;
const SUBSTRING_ROWS = `m.substring_indexed = 1 and ${WORD_ROWS}`;

/** Anything pending? (One row or none: an index probe of a table that is empty between transactions.) */
export const SEARCH_PENDING_ANY = `select 1 as pending from ${SEARCH_PENDING_TABLE} limit 1`;

/**
 * The flush, in order: the pending rows' current text into each index whose condition they meet
 * now (an update since their insert counts; a deleted row already left the table), then nothing
 * is pending. `cross join` keeps the pending table outside: the planner would otherwise scan
 * `messages` (10⁶ rows) for the few pending ids.
 */
export const SEARCH_PENDING_FLUSH: readonly string[] = [
  `insert into messages_fts(rowid, content, tool_name, tool_calls) select m.id, m.content, m.tool_name, m.tool_calls from ${SEARCH_PENDING_TABLE} p cross join messages m on m.id = p.id where ${WORD_ROWS}`,
  `insert into messages_trgm(rowid, content) select m.id, m.content from ${SEARCH_PENDING_TABLE} p cross join messages m on m.id = p.id where ${SUBSTRING_ROWS}`,
  `delete from ${SEARCH_PENDING_TABLE}`,
];

/** A schema before the migration (the migrations themselves commit through the writers). */
export function isMissingPendingTable(error: unknown): boolean {
  return new RegExp(`no such table: (main\\.)?${SEARCH_PENDING_TABLE}\\b`).test(String((error as Error)?.message));
}

/**
 * Indexes what the transaction open on the connection left pending (nothing to do when nothing is,
 * or when the schema predates the table). Run it right before COMMIT; an error means the
 * transaction must not commit.
 */
export function flushSearchPending(prepare: (sql: string) => BetterSqlite3.Statement): void {
  try {
    if (prepare(SEARCH_PENDING_ANY).get() === undefined) return;
  } catch (error) {
    if (isMissingPendingTable(error)) return;
    throw error;
  }
  for (const statement of SEARCH_PENDING_FLUSH) prepare(statement).run();
}
