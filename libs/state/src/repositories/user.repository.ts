import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Executor, UsersTable } from '../db/database.js';
import type { SqlDialect } from '../db/sql-dialect.js';

export type UserRow = Selectable<UsersTable>;

/** Dashboard users (scrypt password hashes). */
export class UserRepository {
  async insert(db: Executor, row: Insertable<UsersTable>): Promise<void> {
    await db.insertInto('users').values(row).execute();
  }
  async findByUsername(db: Executor, username: string): Promise<UserRow | undefined> {
    return db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
  }
  async findById(db: Executor, id: string): Promise<UserRow | undefined> {
    return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }
  async list(db: Executor): Promise<UserRow[]> {
    return db.selectFrom('users').selectAll().orderBy('username').execute();
  }
  async count(db: Executor): Promise<number> {
    const row = await db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * The active (not disabled) admins, locked on PostgreSQL until the transaction ends: two admins
   * demoting or disabling each other at once are serialised, and the second sees the first's change.
   * (SQLite transactions are exclusive already.)
   */
  async lockActiveAdmins(db: Executor, dialect: SqlDialect): Promise<string[]> {
    const query = db
      .selectFrom('users')
      .select('id')
      .where('role', '=', 'admin')
      .where('disabled_at', 'is', null)
      .orderBy('id');
    const rows = await (dialect.name === 'postgres' ? query.forUpdate() : query).execute();
    return rows.map((row) => row.id);
  }

  async update(db: Executor, id: string, patch: Updateable<UsersTable>): Promise<void> {
    await db.updateTable('users').set(patch).where('id', '=', id).execute();
  }

  async setLastLogin(db: Executor, id: string, at: number): Promise<void> {
    await db.updateTable('users').set({ last_login_at: at }).where('id', '=', id).execute();
  }

  /** Principals whose profile set is an explicit list (the `*` set follows every profile anyway). */
  async listProfileSets(db: Executor): Promise<{ id: string; profiles: string }[]> {
    return db.selectFrom('users').select(['id', 'profiles']).execute();
  }

  async setProfiles(db: Executor, id: string, profiles: string): Promise<void> {
    await db.updateTable('users').set({ profiles }).where('id', '=', id).execute();
  }

  /** Swaps the hash only if it is still the one read (a password change in between wins). */
  async replacePasswordHash(db: Executor, id: string, previous: string, next: string): Promise<void> {
    await db
      .updateTable('users')
      .set({ password_hash: next })
      .where('id', '=', id)
      .where('password_hash', '=', previous)
      .execute();
  }

  async setPasswordHash(db: Executor, id: string, passwordHash: string): Promise<void> {
    await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', id).execute();
  }
}
