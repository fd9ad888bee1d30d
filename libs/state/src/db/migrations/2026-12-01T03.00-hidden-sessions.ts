import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Frozen. `sessions.hidden_for`: a session that exists as rows but is not there yet (or any more)
 * for anyone reading. null = visible (every ordinary session); `'import'` while an import writes
 * one huge session in several transactions (the last one clears it). Named generically: a session
 * deleted in chunks will be hidden the same way (`'deletion'`). Every read path, sweep and write by
 * id leaves such rows out (docs/operations.md, "Huge sessions are imported in chunks").
 *
 * No index: hidden rows are a handful at any time, and every query that filters on it already
 * narrows by another indexed column; the filter is a residual check on the rows found.
 */
export function hiddenSessionsMigration(_dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('sessions').addColumn('hidden_for', 'text').execute();
    },
    async down(db: Kysely<any>) {
      // A session still hidden is half-written: it goes (its messages, postings and ledger
      // messages follow by cascade and triggers), as a schema without the column cannot hide it.
      await sql`delete from messages where session_id in (select id from sessions where hidden_for is not null)`.execute(
        db,
      );
      await sql`delete from sessions where hidden_for is not null`.execute(db);
      await db.schema.alterTable('sessions').dropColumn('hidden_for').execute();
    },
  };
}
