import { sql } from 'kysely';
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

  async withKeyPrefix(
    db: Executor,
    prefix: string,
  ): Promise<{ source: string; sessionKey: string; generation: number }[]> {
    const rows = await db
      .selectFrom('conversation_generations')
      .selectAll()
      .where(sql<boolean>`substr(session_key, 1, ${prefix.length}) = ${prefix}`)
      .execute();
    return rows.map((row) => ({ source: row.source, sessionKey: row.session_key, generation: Number(row.generation) }));
  }

  /** Carries a counter to a new key without ever lowering what is there (rows are never dropped). */
  async raiseTo(db: Executor, source: string, sessionKey: string, generation: number, now: number): Promise<void> {
    await db
      .insertInto('conversation_generations')
      .values({ source, session_key: sessionKey, generation, updated_at: now })
      .onConflict((oc) =>
        oc.columns(['source', 'session_key']).doUpdateSet((eb) => ({
          generation: sql<number>`case when ${eb.ref('conversation_generations.generation')} > ${generation} then ${eb.ref('conversation_generations.generation')} else ${generation} end`,
          updated_at: now,
        })),
      )
      .execute();
  }
}
