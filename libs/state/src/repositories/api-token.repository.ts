import type { Insertable, Selectable } from 'kysely';
import type { ApiTokensTable, Executor } from '../db/database.js';
import { PreparedQuery } from '../db/prepared.js';

export type ApiTokenRow = Selectable<ApiTokensTable>;

/** API tokens (hashed at rest). */
export class ApiTokenRepository {
  async insert(db: Executor, row: Insertable<ApiTokensTable>): Promise<void> {
    await db.insertInto('api_tokens').values(row).execute();
  }
  private readonly activeByHash = new PreparedQuery<'hash', ApiTokenRow>((db, param) =>
    db.selectFrom('api_tokens').selectAll().where('token_hash', '=', param('hash')).where('revoked_at', 'is', null),
  );

  async findActiveByHash(db: Executor, hash: string): Promise<ApiTokenRow | undefined> {
    return (await this.activeByHash.execute(db, { hash })).rows[0];
  }
  async list(db: Executor): Promise<ApiTokenRow[]> {
    return db.selectFrom('api_tokens').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
  }
  async revoke(db: Executor, id: string, at: number): Promise<boolean> {
    const result = await db
      .updateTable('api_tokens')
      .set({ revoked_at: at })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
  async touch(db: Executor, id: string, at: number): Promise<void> {
    await db.updateTable('api_tokens').set({ last_used_at: at }).where('id', '=', id).execute();
  }

  /** Principals whose profile set is an explicit list (the `*` set follows every profile anyway). */
  async listProfileSets(db: Executor): Promise<{ id: string; profiles: string }[]> {
    return db.selectFrom('api_tokens').select(['id', 'profiles']).execute();
  }

  async setProfiles(db: Executor, id: string, profiles: string): Promise<void> {
    await db.updateTable('api_tokens').set({ profiles }).where('id', '=', id).execute();
  }
}
