import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../shared/errors.js';
import { toDomainError } from '../shared/store-errors.js';
import { adminPrincipal, contextOf, openTestStore, TEST_PG_URL, type TestStore } from '../testing/index.js';
import { PreparedStatementNames } from './pg-prepared-pool.js';

const admin = contextOf(adminPrincipal);

describe('which statements are named (PreparedStatementNames)', () => {
  const insert = 'insert into "messages" ("session_id") values ($1)';

  it('names a write on its second use, and keeps that name', () => {
    const names = new PreparedStatementNames();
    expect(names.nameFor(insert)).toBeUndefined();
    const name = names.nameFor(insert);
    expect(name).toMatch(/^statehouse_\d+$/);
    expect(names.nameFor(insert)).toBe(name);
    expect(names.nameFor('update "sessions" set "title" = $1 where "id" = $2')).toBeUndefined();
    expect(names.nameFor('  delete from "routes" where "id" = $1')).toBeUndefined();
    expect(names.nameFor('  delete from "routes" where "id" = $1')).not.toBe(name);
  });

  it('never names a read: a generic plan can be worse for a skewed parameter', () => {
    const names = new PreparedStatementNames();
    for (const text of ['select * from "sessions" where "profile" = $1', 'with x as (select 1) select $1']) {
      for (let use = 0; use < 5; use++) expect(names.nameFor(text)).toBeUndefined();
    }
  });

  it('names at most its cap of distinct texts', () => {
    const names = new PreparedStatementNames(3);
    for (let i = 0; i < 10; i++) {
      const text = `update "sessions" set "n" = $1 where "id" = ${i}`;
      names.nameFor(text);
      names.nameFor(text);
    }
    expect(names.size).toBe(3);
    expect(names.nameFor('update "sessions" set "n" = $1 where "id" = 9')).toBeUndefined();
  });

  it('never names again a text a connection refused (a plan made stale by a schema change)', () => {
    const names = new PreparedStatementNames();
    names.nameFor(insert);
    expect(names.nameFor(insert)).toBeDefined();
    names.refuse(insert);
    for (let use = 0; use < 3; use++) expect(names.nameFor(insert)).toBeUndefined();
  });
});

describe.skipIf(!TEST_PG_URL)('named prepared statements on postgres', () => {
  let t: TestStore | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  /** The connection's prepared statements (one pooled connection, so it is the one that ran the appends). */
  const prepared = async (store: TestStore['store']) =>
    (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(store.db)).rows.map(
      (row) => row.statement,
    );

  const appendThree = async (store: TestStore['store']) => {
    const session = await store.sessions.create(admin, { profile: 'p', source: 'cli' });
    for (let i = 0; i < 3; i++) {
      await store.messages.append(admin, session.id, { messages: [{ role: 'user', content: `walrus ${i}` }] });
    }
    return session.id;
  };

  it("an append's insert and update are prepared once per connection and give the same results", async () => {
    t = await openTestStore('postgres', { poolSize: 1 });
    const id = await appendThree(t.store);
    const statements = await prepared(t.store);
    expect(statements.some((text) => /^insert into "messages"/.test(text))).toBe(true);
    expect(statements.some((text) => /^update "sessions"/.test(text))).toBe(true);
    expect(statements.some((text) => /^select/.test(text))).toBe(false);
    const page = await t.store.messages.list(admin, id, { limit: 10, order: 'oldest' });
    expect(page.items.map((message) => message.content)).toEqual(['walrus 0', 'walrus 1', 'walrus 2']);
    expect((await t.store.sessions.get(admin, id)).messageCount).toBe(3);
  });

  it('with preparedStatements: false nothing is prepared (a transaction-mode pooler)', async () => {
    t = await openTestStore('postgres', { poolSize: 1, preparedStatements: false });
    await appendThree(t.store);
    expect(await prepared(t.store)).toEqual([]);
  });

  it('a statement whose table changed shape fails once, then runs unnamed', async () => {
    t = await openTestStore('postgres', { poolSize: 1 });
    const db = t.store.db;
    await sql`create table prepared_probe (a integer)`.execute(db);
    const insert = () => sql<{ a: number }>`insert into prepared_probe (a) values (${1}) returning *`.execute(db);
    await insert();
    await insert();
    await insert();
    expect((await prepared(t.store)).some((text) => text.includes('prepared_probe'))).toBe(true);
    // Another replica's migration, as far as this connection's cached plan is concerned.
    await sql`alter table prepared_probe add column b integer`.execute(db);
    const stale = await insert().catch((error: unknown) => error);
    expect(String(stale)).toMatch(/cached plan must not change result type/);
    // Answered 503 store_unavailable (a retry succeeds), not a 500.
    expect(toDomainError(stale)).toBeInstanceOf(StoreUnavailableError);
    const again = await insert();
    expect(again.rows[0]).toEqual({ a: 1, b: null });
  });
});
