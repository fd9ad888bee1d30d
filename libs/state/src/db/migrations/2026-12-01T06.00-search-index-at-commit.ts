import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/** Frozen copies of the index conditions of 2026-11-29T12.00 / T23.00. */
const WORD_INDEXED = (row: string) =>
  `(${row}.display_kind <> 'hidden' and (${row}.active = 1 or ${row}.compacted = 1))`;
const SUBSTRING_INDEXED = (row: string) => `(${row}.substring_indexed = 1 and ${WORD_INDEXED(row)})`;
const PENDING = 'messages_search_pending';
/** The row's postings are not in either index yet: its transaction indexes it before COMMIT. */
const NOT_PENDING = (row: string) => `not exists (select 1 from ${PENDING} where id = ${row}.id)`;

/** 2026-11-29T23.00's condition: a change of the indexed text or of membership of an index. */
const CHANGED = [
  'old.content is not new.content',
  'old.tool_name is not new.tool_name',
  'old.tool_calls is not new.tool_calls',
  `${WORD_INDEXED('old')} <> ${WORD_INDEXED('new')}`,
  `${SUBSTRING_INDEXED('old')} <> ${SUBSTRING_INDEXED('new')}`,
].join(' or ');
const UPDATE_OF = 'content, tool_name, tool_calls, display_kind, active, compacted, substring_indexed';

/** Both indexes lose `row` (`gate`: an extra condition on each statement). */
const removeFromIndexes = (row: string, gate: string) => `
  insert into messages_fts(messages_fts, rowid, content, tool_name, tool_calls) select 'delete', ${row}.id, ${row}.content, ${row}.tool_name, ${row}.tool_calls where ${WORD_INDEXED(row)}${gate};
  insert into messages_trgm(messages_trgm, rowid, content) select 'delete', ${row}.id, ${row}.content where ${SUBSTRING_INDEXED(row)}${gate};`;
const addToIndexes = (row: string, gate: string) => `
  insert into messages_fts(rowid, content, tool_name, tool_calls) select ${row}.id, ${row}.content, ${row}.tool_name, ${row}.tool_calls where ${WORD_INDEXED(row)}${gate};
  insert into messages_trgm(rowid, content) select ${row}.id, ${row}.content where ${SUBSTRING_INDEXED(row)}${gate};`;

/** The pending rows' current text goes into both indexes, and nothing is pending any more. */
const FLUSH = [
  `insert into messages_fts(rowid, content, tool_name, tool_calls) select m.id, m.content, m.tool_name, m.tool_calls from ${PENDING} p cross join messages m on m.id = p.id where ${WORD_INDEXED('m')}`,
  `insert into messages_trgm(rowid, content) select m.id, m.content from ${PENDING} p cross join messages m on m.id = p.id where ${SUBSTRING_INDEXED('m')}`,
  `delete from ${PENDING}`,
];

/**
 * Frozen. SQLite only: a new message is indexed by its transaction just before COMMIT, not by the
 * statement that inserts it (docs/architecture.md, "Group commit"). FTS5 writes its in-memory
 * pending terms as a new segment of each index at every savepoint boundary, so with one savepoint
 * per request in a group commit every request paid two index flushes; now a group pays one per
 * index, for all its new rows.
 * - `messages_search_pending` holds the ids of messages inserted by the open transaction and not
 *   yet in either index. The insert trigger only records the id (when the row belongs in the word
 *   index — the substring index is a subset of it).
 * - Every writer runs the flush (FLUSH above, db/sqlite-search-pending.ts) before its COMMIT: the
 *   rows' *current* text goes into each index whose condition they meet, and the table empties. A
 *   committed state therefore has nothing pending; a transaction that never commits (rolled back,
 *   process killed) takes its pending ids with its messages.
 * - Delete and update triggers leave a pending row's postings alone (there are none — an
 *   external-content FTS5 'delete' of a row never indexed corrupts the index): a deleted pending
 *   row leaves the table, an updated one is indexed with its new text by the flush.
 */
export function searchIndexAtCommitMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      if (dialect !== 'sqlite') return;
      await sql.raw(`create table ${PENDING} (id integer primary key)`).execute(db);
      for (const trigger of ['messages_search_ai', 'messages_search_ad', 'messages_search_au']) {
        await sql.raw(`drop trigger if exists ${trigger}`).execute(db);
      }
      const notPending = ` and ${NOT_PENDING('old')}`;
      await sql
        .raw(
          `create trigger messages_search_ai after insert on messages when ${WORD_INDEXED('new')} begin insert into ${PENDING}(id) values (new.id); end`,
        )
        .execute(db);
      await sql
        .raw(
          `create trigger messages_search_ad after delete on messages begin ${removeFromIndexes('old', notPending)} delete from ${PENDING} where id = old.id; end`,
        )
        .execute(db);
      await sql
        .raw(
          `create trigger messages_search_au after update of ${UPDATE_OF} on messages when ${CHANGED} begin ${removeFromIndexes('old', notPending)} ${addToIndexes('new', notPending)} end`,
        )
        .execute(db);
    },
    async down(db: Kysely<any>) {
      if (dialect !== 'sqlite') return;
      // Rows of this transaction still pending are indexed before the table goes.
      for (const statement of FLUSH) await sql.raw(statement).execute(db);
      for (const trigger of ['messages_search_ai', 'messages_search_ad', 'messages_search_au']) {
        await sql.raw(`drop trigger if exists ${trigger}`).execute(db);
      }
      await sql.raw(`drop table ${PENDING}`).execute(db);
      // 2026-11-29T12.00's insert and delete triggers, 2026-11-29T23.00's update trigger.
      await sql
        .raw(`create trigger messages_search_ai after insert on messages begin ${addToIndexes('new', '')} end`)
        .execute(db);
      await sql
        .raw(`create trigger messages_search_ad after delete on messages begin ${removeFromIndexes('old', '')} end`)
        .execute(db);
      await sql
        .raw(
          `create trigger messages_search_au after update of ${UPDATE_OF} on messages when ${CHANGED} begin ${removeFromIndexes('old', '')} ${addToIndexes('new', '')} end`,
        )
        .execute(db);
    },
  };
}
