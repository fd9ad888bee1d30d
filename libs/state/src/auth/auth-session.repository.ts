import type { Insertable, Selectable } from 'kysely';
import type { AuthSessionsTable, Executor } from '../db/database.js';

export type AuthSessionRow = Selectable<AuthSessionsTable>;

/** Server-side dashboard sessions: the cookie holds a secret, the table holds its hash. */
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
}
