import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../shared/errors.js';
import { silentLogger } from '../shared/logger.js';
import { openStore } from '../store.js';
import { buildHermesScenario, openTestStore, TEST_DIALECTS, type TestStore } from '../testing/index.js';
import { migrateDown, migrateToLatest } from './migrator.js';

describe('embedded SQLite store', () => {
  it('[storage.engines] creates the database file with mode 0600, in WAL mode with foreign keys on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'statehouse-mode-'));
    const path = join(dir, 'nested', 'store.db');
    const store = await openStore({ url: `file:${path}`, logger: silentLogger });
    try {
      expect(store.created).toBe(true);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      const { rows: journal } = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(store.db);
      expect(journal[0].journal_mode).toBe('wal');
      const { rows: fk } = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(store.db);
      expect(fk[0].foreign_keys).toBe(1);
      // The writer never truncates the WAL inside a COMMIT (the checkpointer cuts it back instead).
      const { rows: limit } = await sql<{ journal_size_limit: number }>`pragma journal_size_limit`.execute(store.db);
      expect(limit[0].journal_size_limit).toBe(-1);
    } finally {
      await store.close();
    }
    const reopened = await openStore({ url: `file:${path}`, logger: silentLogger });
    expect(reopened.created).toBe(false);
    await reopened.close();
  });

  it('refuses to run on a Hermes Agent state.db, says how to import it, and leaves it as it was', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'statehouse-hermes-'));
    const path = join(dir, 'state.db');
    buildHermesScenario(path, 30).close();
    const hash = () => createHash('sha256').update(readFileSync(path)).digest('hex');
    const before = { hash: hash(), files: readdirSync(dir), mode: statSync(path).mode };
    const attempt = openStore({ url: `file:${path}`, logger: silentLogger });
    await expect(attempt).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(attempt).rejects.toThrow(/looks like a Hermes Agent state\.db.*npm run import -- hermes --db/);
    expect({ hash: hash(), files: readdirSync(dir), mode: statSync(path).mode }).toEqual(before);
  });

  it('[storage.fail-closed] refuses a file that is not a database with a clear store_unavailable error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'statehouse-corrupt-'));
    const path = join(dir, 'store.db');
    writeFileSync(path, 'this is not a sqlite database, just text '.repeat(200));
    const attempt = openStore({ url: `file:${path}`, logger: silentLogger });
    await expect(attempt).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(attempt).rejects.toThrow(/cannot open the SQLite store/);
  });
});

describe('PostgreSQL connection', () => {
  it('[storage.fail-closed] fails closed with store_unavailable when the server cannot be reached', async () => {
    await expect(openStore({ url: 'postgres://nobody@127.0.0.1:1/none', logger: silentLogger })).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
  });
});

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`migrations on ${dialect}`, () => {
    let t: TestStore;
    beforeAll(async () => {
      t = await openTestStore(dialect);
    });
    afterAll(async () => t?.close());

    it('[storage.migrations] run down to nothing and up again', async () => {
      await migrateDown(t.store.db, dialect);
      const tablesAfterDown = await t.store.db.introspection.getTables();
      expect(tablesAfterDown.map((table) => table.name).filter((name) => name === 'sessions')).toEqual([]);
      await migrateToLatest(t.store.db, dialect);
      const tables = (await t.store.db.introspection.getTables()).map((table) => table.name);
      expect(tables).toEqual(expect.arrayContaining(['sessions', 'messages', 'profiles', 'idempotency_keys']));
    });
  });
}
