import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/index.js';
import { type Connection, connect } from './connect.js';
import type { DB } from './database.js';
import { migrateToLatest } from './migrator.js';
import { bindDirectWrites, PreparedQuery, registerDirectReads } from './prepared.js';

const byName = new PreparedQuery<'name', { name: string; created_at: number }>((db, param) =>
  db.selectFrom('profiles').select(['name', 'created_at']).where('name', '=', param('name')),
);
const rename = new PreparedQuery<'name' | 'at', unknown>((db, param) =>
  db
    .updateTable('profiles')
    .set({ created_at: param('at') })
    .where('name', '=', param('name')),
);

describe('prepared queries: the direct read path of the SQLite store', () => {
  let database: TestDatabase;
  let connection: Connection;
  const queries: { operation: string; failed: boolean }[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    connection = await connect(database.url, {
      onQuery: (operation, _ms, failed) => queries.push({ operation, failed }),
    });
    await migrateToLatest(connection.db, 'sqlite');
    await connection.db.insertInto('profiles').values({ name: 'p', created_at: 1 }).execute();
  });
  afterAll(async () => {
    await connection?.close();
    await database?.drop();
  });

  it('a prepared SELECT outside a transaction is answered without Kysely, and still reported to the metrics', async () => {
    const kysely = vi.spyOn(connection.db, 'executeQuery');
    queries.length = 0;
    const result = await byName.execute(connection.db, { name: 'p' });
    expect(result.rows).toEqual([{ name: 'p', created_at: 1 }]);
    expect(kysely).not.toHaveBeenCalled();
    expect(queries).toEqual([{ operation: 'select', failed: false }]);
    kysely.mockRestore();
  });

  it('inside a transaction and for writes it goes through Kysely, and reads see the transaction’s own writes', async () => {
    await connection.db.transaction().execute(async (trx) => {
      const spy = vi.spyOn(trx, 'executeQuery');
      await rename.execute(trx, { name: 'p', at: 2 });
      expect((await byName.execute(trx, { name: 'p' })).rows[0]?.created_at).toBe(2);
      expect(spy).toHaveBeenCalledTimes(2);
    });
    expect((await byName.execute(connection.db, { name: 'p' })).rows[0]?.created_at).toBe(2);
  });

  it('a statement the direct path declines goes through Kysely', async () => {
    const db = connection.db as Kysely<DB>;
    const other = db.withoutPlugins(); // a distinct root instance on the same driver
    const read = vi.fn(() => undefined);
    registerDirectReads(other, { read });
    const result = await byName.execute(other, { name: 'p' });
    expect(read).toHaveBeenCalledOnce();
    expect(result.rows).toHaveLength(1);
  });

  it('a transaction bound by the unit of work runs its prepared statements on the writer without Kysely, until unbound', async () => {
    await connection.db.transaction().execute(async (trx) => {
      const spy = vi.spyOn(trx, 'executeQuery');
      const unbind = bindDirectWrites(connection.db, trx);
      queries.length = 0;
      await rename.execute(trx, { name: 'p', at: 3 });
      // The transaction's own write is seen (same connection, same transaction).
      expect((await byName.execute(trx, { name: 'p' })).rows[0]?.created_at).toBe(3);
      expect(spy).not.toHaveBeenCalled();
      expect(queries).toEqual([
        { operation: 'update', failed: false },
        { operation: 'select', failed: false },
      ]);
      unbind();
      await rename.execute(trx, { name: 'p', at: 4 });
      expect(spy).toHaveBeenCalledOnce();
      // Not yet committed: the reader (outside the transaction) still sees the last commit.
      expect((await byName.execute(connection.db, { name: 'p' })).rows[0]?.created_at).toBe(2);
    });
    expect((await byName.execute(connection.db, { name: 'p' })).rows[0]?.created_at).toBe(4);
  });

  it('a failing direct statement rejects like Kysely would, reported as failed, and the unit of work rolls back', async () => {
    const broken = new PreparedQuery<'name', unknown>((db, param) =>
      db.insertInto('profiles').values({ name: param('name'), created_at: 9 }),
    );
    await expect(
      connection.db.transaction().execute(async (trx) => {
        const unbind = bindDirectWrites(connection.db, trx);
        try {
          queries.length = 0;
          await rename.execute(trx, { name: 'p', at: 5 });
          await broken.execute(trx, { name: 'p' }); // duplicate primary key
        } finally {
          unbind();
        }
      }),
    ).rejects.toThrow(/UNIQUE|constraint/i);
    expect(queries.at(-1)).toEqual({ operation: 'insert', failed: true });
    expect((await byName.execute(connection.db, { name: 'p' })).rows[0]?.created_at).toBe(4);
  });

  it('a store without a direct write path (PostgreSQL) binds nothing', async () => {
    const other = (connection.db as Kysely<DB>).withoutPlugins();
    await other.transaction().execute(async (trx) => {
      const spy = vi.spyOn(trx, 'executeQuery');
      const unbind = bindDirectWrites(other, trx);
      await byName.execute(trx, { name: 'p' });
      expect(spy).toHaveBeenCalledOnce();
      unbind();
    });
  });
});
