import type { Insertable, Selectable } from 'kysely';
import type { AuthSessionsTable, Executor } from '../db/database.js';

export type AuthSessionRow = Selectable<AuthSessionsTable>;

/**
 * Server-side dashboard sessions: the cookie holds a secret, the table holds its hash; owners see
 * and end them by a separate random public id.
 */
export class AuthSessionRepository {
  async insert(db: Executor, row: Insertable<AuthSessionsTable>): Promise<void> {
    await db.insertInto('auth_sessions').values(row).execute();
  }
  async findLive(db: Executor, idHash: string, now: number): Promise<AuthSessionRow | undefined> {
    return db
      .selectFrom('auth_sessions')
      .selectAll()
      .where('id_hash', '=', idHash)
      .where('expires_at', '>', now)
      .executeTakeFirst();
  }
  async delete(db: Executor, idHash: string): Promise<void> {
    await db.deleteFrom('auth_sessions').where('id_hash', '=', idHash).execute();
  }
  async deleteExpired(db: Executor, now: number): Promise<void> {
    await db.deleteFrom('auth_sessions').where('expires_at', '<=', now).execute();
  }
  async listLiveForUser(db: Executor, userId: string, now: number): Promise<AuthSessionRow[]> {
    return db
      .selectFrom('auth_sessions')
      .selectAll()
      .where('user_id', '=', userId)
      .where('expires_at', '>', now)
      .orderBy('created_at', 'desc')
      .orderBy('public_id')
      .execute();
  }
  /** Ends one of a user's sessions by its public id; false when the user has no such session. */
  async deleteForUser(db: Executor, userId: string, publicId: string): Promise<boolean> {
    const result = await db
      .deleteFrom('auth_sessions')
      .where('user_id', '=', userId)
      .where('public_id', '=', publicId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
  /** Ends every session of a user except the one whose secret hashes to `keepHash` (none kept: null). */
  async deleteOthersForUser(db: Executor, userId: string, keepHash: string | null): Promise<number> {
    let query = db.deleteFrom('auth_sessions').where('user_id', '=', userId);
    if (keepHash !== null) query = query.where('id_hash', '!=', keepHash);
    const result = await query.executeTakeFirst();
    return Number(result.numDeletedRows);
  }
  async deleteAllForUser(db: Executor, userId: string): Promise<number> {
    const result = await db.deleteFrom('auth_sessions').where('user_id', '=', userId).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
  async touch(db: Executor, idHash: string, at: number): Promise<void> {
    await db.updateTable('auth_sessions').set({ last_seen_at: at }).where('id_hash', '=', idHash).execute();
  }
  /** Live sessions per user (the users list shows who is signed in). */
  async countLiveByUser(db: Executor, now: number): Promise<Map<string, number>> {
    const rows = await db
      .selectFrom('auth_sessions')
      .select((eb) => ['user_id', eb.fn.countAll<number>().as('n')])
      .where('expires_at', '>', now)
      .groupBy('user_id')
      .execute();
    return new Map(rows.map((row) => [row.user_id, Number(row.n)]));
  }
}
