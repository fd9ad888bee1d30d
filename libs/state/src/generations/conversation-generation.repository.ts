import type { Executor } from '../db/database.js';

/**
 * Conversation generations per (source, session key): increment-only and never collected —
 * dropping a row would hand out generation 1 again (an ABA).
 */
export class ConversationGenerationRepository {
  async bump(db: Executor, source: string, sessionKey: string, now: number): Promise<number> {
    const row = await db
      .insertInto('conversation_generations')
      .values({ source, session_key: sessionKey, generation: 1, updated_at: now })
      .onConflict((oc) =>
        oc.columns(['source', 'session_key']).doUpdateSet((eb) => ({
          generation: eb('conversation_generations.generation', '+', 1),
          updated_at: now,
        })),
      )
      .returning('generation')
      .executeTakeFirstOrThrow();
    return Number(row.generation);
  }

  async current(db: Executor, source: string, sessionKey: string): Promise<number> {
    const row = await db
      .selectFrom('conversation_generations')
      .select('generation')
      .where('source', '=', source)
      .where('session_key', '=', sessionKey)
      .executeTakeFirst();
    return row ? Number(row.generation) : 0;
  }
}
