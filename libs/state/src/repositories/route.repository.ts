import { type Insertable, type Selectable, sql } from 'kysely';
import type { Executor, RoutesTable } from '../db/database.js';
import { keysetAfter, type ProfileScope, scopedToProfiles } from '../db/list-queries.js';
import { chunk, countForSessions } from '../db/sql-dialect.js';

export type RouteRow = Selectable<RoutesTable>;

/** The gateway routing index: (profile, session key) → session. */
export class RouteRepository {
  async find(db: Executor, profile: string, sessionKey: string): Promise<RouteRow | undefined> {
    return db
      .selectFrom('routes')
      .selectAll()
      .where('profile', '=', profile)
      .where('session_key', '=', sessionKey)
      .executeTakeFirst();
  }

  /**
   * The route, locked for the rest of the transaction on PostgreSQL (`lock`): a concurrent claim of
   * the same key waits for this transaction. SQLite transactions are already exclusive.
   */
  async findForUpdate(db: Executor, profile: string, sessionKey: string, lock: boolean): Promise<RouteRow | undefined> {
    const query = db
      .selectFrom('routes')
      .selectAll()
      .where('profile', '=', profile)
      .where('session_key', '=', sessionKey);
    return (lock ? query.forUpdate() : query).executeTakeFirst();
  }

  /**
   * Writes the route unless one exists (false then): a concurrent insert of the same key waits for
   * the other transaction (PostgreSQL) and finds its row.
   */
  async insertIfAbsent(db: Executor, row: Insertable<RoutesTable>): Promise<boolean> {
    const result = await db
      .insertInto('routes')
      .values(row)
      .onConflict((oc) => oc.columns(['profile', 'session_key']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  /** Points an existing (locked) route at a session and makes it live again. */
  async pointAt(db: Executor, profile: string, sessionKey: string, sessionId: string, now: number): Promise<void> {
    await db
      .updateTable('routes')
      .set({ session_id: sessionId, suspended: 0, updated_at: now })
      .where('profile', '=', profile)
      .where('session_key', '=', sessionKey)
      .execute();
  }

  async upsert(db: Executor, row: Insertable<RoutesTable>): Promise<void> {
    await db
      .insertInto('routes')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['profile', 'session_key']).doUpdateSet({
          session_id: row.session_id,
          origin: row.origin,
          suspended: row.suspended,
          updated_at: row.updated_at,
        }),
      )
      .execute();
  }

  async list(db: Executor, filter: ProfileScope & { after?: [string, string]; limit: number }): Promise<RouteRow[]> {
    let query = scopedToProfiles(db.selectFrom('routes').selectAll(), filter);
    if (!query) return [];
    if (filter.after) query = query.where(keysetAfter(['profile', 'session_key'], filter.after, '>'));
    return query.orderBy('profile').orderBy('session_key').limit(filter.limit).execute();
  }

  /** Every route pointing at `from` now points at `to` (compression, reset): same transaction. */
  async repoint(db: Executor, fromSessionId: string, toSessionId: string, now: number): Promise<number> {
    const result = await db
      .updateTable('routes')
      .set({ session_id: toSessionId, updated_at: now })
      .where('session_id', '=', fromSessionId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  countForSessions(db: Executor, sessionIds: readonly string[]): Promise<number> {
    return countForSessions(db, 'routes', sessionIds);
  }

  async deleteForSessions(db: Executor, sessionIds: readonly string[]): Promise<void> {
    for (const part of chunk(sessionIds)) await db.deleteFrom('routes').where('session_id', 'in', part).execute();
  }

  async deleteForProfile(db: Executor, profile: string): Promise<number> {
    const result = await db.deleteFrom('routes').where('profile', '=', profile).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async listAll(db: Executor, after: [string, string] | undefined, limit: number): Promise<RouteRow[]> {
    return this.list(db, { profiles: null, after, limit });
  }

  async keysWithPrefix(db: Executor, profile: string, prefix: string): Promise<string[]> {
    const rows = await db
      .selectFrom('routes')
      .select('session_key')
      .where('profile', '=', profile)
      .where(sql<boolean>`substr(session_key, 1, ${prefix.length}) = ${prefix}`)
      .execute();
    return rows.map((row) => row.session_key);
  }

  async keysIn(db: Executor, profile: string, keys: readonly string[]): Promise<string[]> {
    const found: string[] = [];
    for (const part of chunk(keys)) {
      const rows = await db
        .selectFrom('routes')
        .select('session_key')
        .where('profile', '=', profile)
        .where('session_key', 'in', part)
        .execute();
      found.push(...rows.map((row) => row.session_key));
    }
    return found;
  }

  async moveProfile(db: Executor, from: string, to: string, oldPrefix: string, newPrefix: string): Promise<number> {
    const rekeyed = await db
      .updateTable('routes')
      .set({ session_key: sql<string>`${newPrefix} || substr(session_key, ${oldPrefix.length + 1})` })
      .where('profile', '=', from)
      .where(sql<boolean>`substr(session_key, 1, ${oldPrefix.length}) = ${oldPrefix}`)
      .executeTakeFirst();
    await db.updateTable('routes').set({ profile: to }).where('profile', '=', from).execute();
    return Number(rekeyed.numUpdatedRows);
  }

  async countInProfile(db: Executor, profile: string): Promise<number> {
    const row = await db
      .selectFrom('routes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('profile', '=', profile)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async originsInProfile(db: Executor, profile: string): Promise<{ sessionKey: string; origin: string }[]> {
    const rows = await db
      .selectFrom('routes')
      .select(['session_key', 'origin'])
      .where('profile', '=', profile)
      .where('origin', 'is not', null)
      .execute();
    return rows.map((row) => ({ sessionKey: row.session_key, origin: row.origin! }));
  }

  async setOrigin(db: Executor, profile: string, sessionKey: string, origin: string): Promise<void> {
    await db
      .updateTable('routes')
      .set({ origin })
      .where('profile', '=', profile)
      .where('session_key', '=', sessionKey)
      .execute();
  }
}
