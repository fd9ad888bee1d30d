import type { Executor } from '../db/database.js';
import { PreparedQuery } from '../db/prepared.js';
import { chunk } from '../db/sql-dialect.js';

/** System prompt snapshots, beside their sessions (docs/domain.md §2.2.19); rows go with their session. */
export class SessionPromptRepository {
  /** Read with every single-session read (`GET /v1/sessions/:id`): prepared once, as the row is. */
  private readonly byId = new PreparedQuery<'sessionId', { prompt: string }>((db, param) =>
    db.selectFrom('session_prompts').select('prompt').where('session_id', '=', param('sessionId')),
  );

  async get(db: Executor, sessionId: string): Promise<string | null> {
    const { rows } = await this.byId.execute(db, { sessionId });
    return rows[0]?.prompt ?? null;
  }

  async getMany(db: Executor, sessionIds: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (const part of chunk([...new Set(sessionIds)])) {
      const rows = await db
        .selectFrom('session_prompts')
        .select(['session_id', 'prompt'])
        .where('session_id', 'in', part)
        .execute();
      for (const row of rows) found.set(row.session_id, row.prompt);
    }
    return found;
  }

  /** Stores the snapshot, or (null) removes it. */
  async set(db: Executor, sessionId: string, prompt: string | null, now: number): Promise<void> {
    if (prompt === null) {
      await db.deleteFrom('session_prompts').where('session_id', '=', sessionId).execute();
      return;
    }
    await db
      .insertInto('session_prompts')
      .values({ session_id: sessionId, prompt, updated_at: now })
      .onConflict((oc) => oc.column('session_id').doUpdateSet({ prompt, updated_at: now }))
      .execute();
  }
}
