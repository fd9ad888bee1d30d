import { type Kysely, sql } from 'kysely';

/**
 * Frozen. `messages_answerable_idx`: a session's active, visible user messages by id — the rows a
 * reply's latency is measured from (docs/stats.md, "Reply latency"). Without it the lookback
 * walked the session's rows back from the newest through every tool call and tool result since
 * the user last wrote, reading each row (past its content's overflow pages) to test its role: an
 * agent's reply after a thousand tool rows cost twice an ordinary append. The same on both dialects.
 */
export function answerableMessagesIndexMigration() {
  return {
    async up(db: Kysely<any>) {
      await sql`create index messages_answerable_idx on messages (session_id, id)
        where role = 'user' and active = 1 and display_kind = 'visible'`.execute(db);
    },

    async down(db: Kysely<any>) {
      await sql`drop index if exists messages_answerable_idx`.execute(db);
    },
  };
}
