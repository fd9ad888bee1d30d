import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aSession, openTestStore, TEST_PG_URL, type TestStore } from '../testing/index.js';
import { changeStamp } from './change-stamp.js';
import { sqlitePath } from './connect.js';

describe('the SQLite writer’s change stamp (what lets a revival skip its second decision)', () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore('sqlite');
  });
  afterAll(async () => t?.close());

  it('stays the same while nothing is written', async () => {
    const first = changeStamp(t.store.db, 'idle');
    expect(first).toMatch(/^\d+:\d+$/);
    await t.store.db.selectFrom('sessions').select('id').execute();
    expect(changeStamp(t.store.db, 'idle')).toBe(first);
  });

  it('changes when this process commits a write', async () => {
    const before = changeStamp(t.store.db, 'idle');
    await aSession(t.store, { id: 'cs-1' });
    expect(changeStamp(t.store.db, 'idle')).not.toBe(before);
  });

  it('changes when another connection (another process) commits', () => {
    const before = changeStamp(t.store.db, 'idle');
    const other = new Database(sqlitePath(t.url));
    try {
      other.prepare("update sessions set title = 'elsewhere' where id = 'cs-1'").run();
    } finally {
      other.close();
    }
    expect(changeStamp(t.store.db, 'idle')).not.toBe(before);
  });

  it('is not given while a transaction is open (its rows are not what a read outside it sees), and is inside it', async () => {
    const idle = changeStamp(t.store.db, 'idle');
    const seen = await t.store.db.transaction().execute(async () => ({
      idle: changeStamp(t.store.db, 'idle'),
      inside: changeStamp(t.store.db, 'in-transaction'),
    }));
    expect(seen.idle).toBeUndefined();
    expect(seen.inside).toBe(idle);
    expect(changeStamp(t.store.db, 'in-transaction')).toBeUndefined();
  });
});

describe.skipIf(!TEST_PG_URL)('PostgreSQL keeps no change stamp (a revival is always decided again)', () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore('postgres');
  });
  afterAll(async () => t?.close());

  it('gives none, idle or in a transaction', async () => {
    expect(changeStamp(t.store.db, 'idle')).toBeUndefined();
    expect(
      await t.store.db.transaction().execute(async () => changeStamp(t.store.db, 'in-transaction')),
    ).toBeUndefined();
  });
});
