import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../shared/logger.js';
import { openStore, type StateStore } from '../store.js';
import { adminPrincipal, contextOf, createTestDatabase, type TestDatabase } from '../testing/index.js';
import { sqlitePath } from './connect.js';
import { StatementCache } from './sqlite-statement-cache.js';

const admin = contextOf(adminPrincipal);

/** The rows better-sqlite3 builds itself (object mode), from a statement of its own. */
const driverRows = (db: Database.Database, sql: string, parameters: unknown[] = []) =>
  db.prepare(sql).all(parameters) as unknown[];

describe('StatementCache: rows built from raw values are the driver’s rows', () => {
  let db: Database.Database;
  let cache: StatementCache;

  beforeAll(() => {
    db = new Database(':memory:');
    db.exec(`
      create table a (id integer primary key, name text, score real, note text, data blob);
      create table b (id integer primary key, a_id integer, name text);
      insert into a values (1, 'one', 1.5, null, x'00ff'), (2, 'two', -3, 'n', null), (9007199254740993, 'big', 0, '', x'');
      insert into b values (10, 1, 'b-one'), (11, 2, 'b-two');
    `);
    cache = new StatementCache(db);
  });
  afterAll(() => db.close());

  const cases: [string, string, unknown[]][] = [
    ['every column type, nulls, an empty blob, a large integer', 'select * from a order by id', []],
    ['a parameter, one row', 'select name, score from a where id = ?', [2]],
    ['no rows', 'select * from a where id = ?', [404]],
    ['equal column names from a join: the last one wins', 'select a.*, b.* from a join b on b.a_id = a.id', []],
    ['aliases and expressions', 'select id as "the id", name || \'!\' as shout, count(*) over () as n from a', []],
    ['a __proto__ alias (object mode builds it)', 'select id as "__proto__", name from a', []],
  ];

  for (const [what, sql, parameters] of cases) {
    it(what, () => {
      const statement = cache.prepare(sql);
      const rows = cache.all(statement, parameters);
      expect(rows).toEqual(driverRows(db, sql, parameters));
      // Same own keys in the same order as the driver's objects, and plain prototypes.
      for (const [i, row] of rows.entries()) {
        expect(Object.getPrototypeOf(row)).toBe(Object.getPrototypeOf(driverRows(db, sql, parameters)[i]));
        expect(Object.keys(row as object).sort()).toEqual(
          Object.keys(driverRows(db, sql, parameters)[i] as object).sort(),
        );
      }
    });
  }

  it('leaves the statement in object mode for the other callers of prepare()', () => {
    const sql = 'select id, name from a where id = ?';
    cache.all(cache.prepare(sql), [1]);
    expect(cache.prepare(sql).get(1)).toEqual({ id: 1, name: 'one' });
  });

  it('a statement that fails leaves object mode too, and the error reaches the caller', () => {
    const sql = 'select id, abs(?) as v from a where id = 1';
    expect(() => cache.all(cache.prepare(sql), [-9223372036854775808n])).toThrow(/integer overflow/);
    expect(cache.prepare(sql).get(5)).toEqual({ id: 1, v: 5 });
  });

  it('a select * follows a schema change by another connection: same column count, other columns at the positions', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'statement-cache-')), 'schema.db');
    const ours = new Database(path);
    const theirs = new Database(path);
    try {
      ours.exec(
        `create table t (id integer primary key, a text, b text, c text); insert into t values (1, 'a1', 'b1', 'c1');`,
      );
      const cached = new StatementCache(ours);
      const sql = 'select * from t where id = ?';
      for (let i = 0; i < 3; i++)
        expect(cached.all(cached.prepare(sql), [1])).toEqual([{ id: 1, a: 'a1', b: 'b1', c: 'c1' }]);
      // Another process migrates: b goes, d arrives at the end — four columns still, c moved.
      theirs.exec(`alter table t drop column b; alter table t add column d text; update t set d = 'd1';`);
      const expected = [{ id: 1, a: 'a1', c: 'c1', d: 'd1' }];
      expect(driverRows(ours, sql, [1])).toEqual(expected);
      for (let i = 0; i < 3; i++) expect(cached.all(cached.prepare(sql), [1])).toEqual(expected);
      // A rename: same count and positions, another name.
      theirs.exec('alter table t rename column a to first');
      for (let i = 0; i < 3; i++)
        expect(cached.all(cached.prepare(sql), [1])).toEqual([{ id: 1, first: 'a1', c: 'c1', d: 'd1' }]);
    } finally {
      ours.close();
      theirs.close();
    }
  });

  it('run(): writes report changes and ids; RETURNING rows are built like the others', () => {
    const insert = cache.run(cache.prepare('insert into b (a_id, name) values (?, ?)'), [2, 'b-new']);
    expect(insert).toEqual({ numAffectedRows: 1n, insertId: 12n, rows: [] });
    const returning = cache.run(cache.prepare('update b set name = ? where id = ? returning *'), ['b-renamed', 12]);
    expect(returning).toEqual({ rows: [{ id: 12, a_id: 2, name: 'b-renamed' }] });
  });
});

describe('StatementCache on the store: a session read returns what the driver returns', () => {
  let database: TestDatabase;
  let store: StateStore;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    store = await openStore({ url: database.url, logger: silentLogger });
    await store.sessions.create(admin, { id: 'wide', profile: 'p', source: 'cli', title: 'Wide row' });
    await store.messages.append(admin, 'wide', { messages: [{ role: 'user', content: 'hello' }] }, {});
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it('every column of a sessions row and of a messages row, on a migrated file', async () => {
    const raw = new Database(sqlitePath(database.url), { readonly: true });
    try {
      const cache = new StatementCache(raw);
      for (const sql of ['select * from sessions', 'select * from messages']) {
        const rows = cache.all(cache.prepare(sql), []);
        expect(rows.length).toBeGreaterThan(0);
        expect(rows).toEqual(driverRows(raw, sql));
      }
    } finally {
      raw.close();
    }
    const session = await store.sessions.get(admin, 'wide');
    expect(session).toMatchObject({ id: 'wide', title: 'Wide row', messageCount: 1, archived: false });
  });
});
