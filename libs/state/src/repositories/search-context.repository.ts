import { SEARCH_CONTEXT_CHARS } from '@statehouse/contracts';
import { sql } from 'kysely';
import type { Executor } from '../db/database.js';
import { chunk } from '../db/sql-dialect.js';

export interface HitDetails {
  toolName: string | null;
  model: string | null;
  sessionStartedAt: number;
}

export interface ContextMessage {
  messageId: number;
  role: string;
  content: string;
}

/** Three selects per hit: SQLite takes up to 500 in one compound statement. */
const CONTEXT_HITS_PER_STATEMENT = 100;

/** What a page of search hits shows besides the hit itself: its session's details and its neighbours. */
export class SearchContextRepository {
  async details(db: Executor, messageIds: readonly number[]): Promise<Map<number, HitDetails>> {
    const found = new Map<number, HitDetails>();
    for (const part of chunk([...new Set(messageIds)])) {
      const rows = await db
        .selectFrom('messages as m')
        .innerJoin('sessions as s', 's.id', 'm.session_id')
        .select(['m.id', 'm.tool_name', 's.model', 's.started_at'])
        .where('m.id', 'in', part)
        .execute();
      for (const row of rows) {
        found.set(Number(row.id), {
          toolName: row.tool_name,
          model: row.model,
          sessionStartedAt: Number(row.started_at),
        });
      }
    }
    return found;
  }

  /**
   * For each hit, the hit and up to `count` visible messages of its session on each side, in order —
   * every hit's neighbours in one statement (two index range scans of (session_id, id) per hit, one
   * round trip to the read pool); texts cut to `SEARCH_CONTEXT_CHARS`.
   */
  async around(
    db: Executor,
    hits: readonly { sessionId: string; messageId: number }[],
    count: number,
  ): Promise<Map<number, ContextMessage[]>> {
    const found = new Map<number, ContextMessage[]>();
    for (const part of chunk([...hits], CONTEXT_HITS_PER_STATEMENT)) {
      const parts = part.flatMap(({ sessionId, messageId }) => {
        const visible = sql`session_id = ${sessionId} and display_kind <> 'hidden' and (active = 1 or compacted = 1)`;
        return [
          sql`select * from (select ${messageId} as hit, id, role, content from messages where ${visible} and id < ${messageId} order by id desc limit ${count}) b`,
          sql`select ${messageId} as hit, id, role, content from messages where id = ${messageId}`,
          sql`select * from (select ${messageId} as hit, id, role, content from messages where ${visible} and id > ${messageId} order by id asc limit ${count}) a`,
        ];
      });
      const { rows } = await sql<{ hit: number; id: number; role: string; content: string | null }>`${sql.join(
        parts,
        sql` union all `,
      )}`.execute(db);
      for (const row of rows) {
        const hit = Number(row.hit);
        const list = found.get(hit) ?? [];
        list.push({
          messageId: Number(row.id),
          role: row.role,
          content: (row.content ?? '').slice(0, SEARCH_CONTEXT_CHARS),
        });
        found.set(hit, list);
      }
    }
    for (const list of found.values()) list.sort((a, b) => a.messageId - b.messageId);
    return found;
  }
}
