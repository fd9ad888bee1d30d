import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeadlineExceededError, StoreUnavailableError } from '../shared/errors.js';
import { silentLogger } from '../shared/logger.js';
import { toDomainError } from '../shared/store-errors.js';
import { openStore, type StateStore } from '../store.js';
import { adminPrincipal, contextOf, createTestDatabase, TEST_DIALECTS, type TestDatabase } from '../testing/index.js';
import { sqlitePath } from './connect.js';

/**
 * The store fails closed, and never waits without bound (docs/domain.md §8.3, §8.4), on both
 * dialects: what cannot be opened stops start-up with its reason; a store that stops answering
 * answers `store_unavailable`; a lock wait ends at the lock timeout, a read at its deadline.
 */
const admin = contextOf(adminPrincipal);

/** Busy for seconds without producing a row (SQLite), or asleep as long (PostgreSQL). */
const SLOW_READ = {
  sqlite:
    'with recursive c(x) as (select 1 union all select x + 1 from c where x < 30000000) select count(*) as n from c',
  postgres: 'select pg_sleep(10) as n',
};

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`a store that fails on ${dialect}`, () => {
    let database: TestDatabase;
    let store: StateStore;

    beforeAll(async () => {
      database = await createTestDatabase(dialect);
      store = await openStore({ url: database.url, logger: silentLogger });
      await store.sessions.create(admin, { id: 'held', profile: 'sf', source: 'cli' });
    });
    afterAll(async () => {
      await store?.close();
      await database?.drop();
    });

    it('[storage.fail-closed] a database that cannot be opened stops start-up with store_unavailable and the reason', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'statehouse-unopenable-'));
      try {
        const notADatabase = join(dir, 'store.db');
        writeFileSync(notADatabase, 'plain text, not a database '.repeat(200));
        const url = dialect === 'sqlite' ? `file:${notADatabase}` : 'postgres://nobody@127.0.0.1:1/none';
        const attempt = openStore({ url, logger: silentLogger });
        await expect(attempt).rejects.toBeInstanceOf(StoreUnavailableError);
        await expect(attempt).rejects.toThrow(dialect === 'sqlite' ? /cannot open the SQLite store/ : /cannot reach/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('[storage.fail-closed] a store that stops answering answers store_unavailable, never a driver error', async () => {
      const stopping = await openStore({ url: database.url, logger: silentLogger, migrate: false });
      try {
        // Read on SQLite's direct path only: its close once left both connections open, answering.
        expect((await stopping.sessions.get(admin, 'held')).id).toBe('held');
        // Every connection goes away under the services.
        await stopping.close();
        await expect(stopping.sessions.get(admin, 'held')).rejects.toBeInstanceOf(StoreUnavailableError);
        await expect(
          stopping.sessions.list(admin, {
            status: 'all',
            archived: 'include',
            includeChildren: true,
            limit: 10,
            order: 'recent',
          }),
        ).rejects.toBeInstanceOf(StoreUnavailableError);
        await expect(
          stopping.messages.append(admin, 'held', { messages: [{ role: 'user', content: 'lost?' }] }),
        ).rejects.toBeInstanceOf(StoreUnavailableError);
      } finally {
        await stopping.close().catch(() => undefined);
      }
    });

    it('[storage.bounded-waits] a write waiting for a lock held elsewhere gives up at the lock timeout with store_unavailable', async () => {
      const impatient = await openStore({
        url: database.url,
        logger: silentLogger,
        migrate: false,
        lockTimeoutMs: 200,
      });
      // Another process holding what the append must write: SQLite's write lock, PostgreSQL's row lock.
      let release: () => Promise<void>;
      if (dialect === 'sqlite') {
        const other = new Database(sqlitePath(database.url));
        other.prepare('begin immediate').run();
        release = async () => {
          other.prepare('rollback').run();
          other.close();
        };
      } else {
        const other = new pg.Client({ connectionString: database.url });
        await other.connect();
        await other.query('begin');
        await other.query(`select id from sessions where id = 'held' for update`);
        release = async () => {
          await other.query('rollback');
          await other.end();
        };
      }
      try {
        await expect(
          impatient.messages.append(admin, 'held', { messages: [{ role: 'user', content: 'too late' }] }),
        ).rejects.toBeInstanceOf(StoreUnavailableError);
      } finally {
        await release();
        await impatient.close();
      }
      expect((await store.sessions.get(admin, 'held')).messageCount).toBe(0);
    });

    it('[storage.bounded-waits] a read past its deadline answers deadline_exceeded (SQLite read deadline, PostgreSQL statement_timeout)', async () => {
      const hurried = await openStore({
        url: database.url,
        logger: silentLogger,
        migrate: false,
        readDeadlineMs: 300,
        statementTimeoutMs: 300,
      });
      try {
        const outcome = await sql
          .raw(SLOW_READ[dialect])
          .execute(hurried.reads)
          .then(
            () => 'finished',
            // What every unit of work does with a store error (db/unit-of-work.ts).
            (error) => toDomainError(error),
          );
        expect(outcome).toBeInstanceOf(DeadlineExceededError);
        // The store answers again at once.
        expect((await hurried.sessions.get(admin, 'held')).id).toBe('held');
      } finally {
        await hurried.close();
      }
    });
  });
}
