import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

const WORD_INDEXED = (row: 'new' | 'old') =>
  `(${row}.display_kind <> 'hidden' and (${row}.active = 1 or ${row}.compacted = 1))`;
const SUBSTRING_INDEXED = (row: 'new' | 'old') => `(${row}.substring_indexed = 1 and ${WORD_INDEXED(row)})`;

function updateTrigger(condition: string): string {
  const body = `
    insert into messages_fts(messages_fts, rowid, content, tool_name, tool_calls) select 'delete', old.id, old.content, old.tool_name, old.tool_calls where ${WORD_INDEXED('old')};
    insert into messages_trgm(messages_trgm, rowid, content) select 'delete', old.id, old.content where ${SUBSTRING_INDEXED('old')};
    insert into messages_fts(rowid, content, tool_name, tool_calls) select new.id, new.content, new.tool_name, new.tool_calls where ${WORD_INDEXED('new')};
    insert into messages_trgm(rowid, content) select new.id, new.content where ${SUBSTRING_INDEXED('new')};`;
  return `create trigger messages_search_au after update of content, tool_name, tool_calls, display_kind, active, compacted, substring_indexed on messages ${condition} begin ${body} end`;
}

/**
 * Frozen. SQLite only: the update trigger re-indexes a message only when its indexed text or its
 * membership of an index changes. Compaction flips `compacted` on every message of a long session
 * without changing either, and used to delete and re-add each one in both indexes.
 */
export function searchTriggerWhenMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      if (dialect !== 'sqlite') return;
      await sql`drop trigger if exists messages_search_au`.execute(db);
      const changed = [
        'old.content is not new.content',
        'old.tool_name is not new.tool_name',
        'old.tool_calls is not new.tool_calls',
        `${WORD_INDEXED('old')} <> ${WORD_INDEXED('new')}`,
        `${SUBSTRING_INDEXED('old')} <> ${SUBSTRING_INDEXED('new')}`,
      ].join(' or ');
      await sql.raw(updateTrigger(`when ${changed}`)).execute(db);
    },
    async down(db: Kysely<any>) {
      if (dialect !== 'sqlite') return;
      await sql`drop trigger if exists messages_search_au`.execute(db);
      await sql.raw(updateTrigger('')).execute(db);
    },
  };
}
