import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as wallClock } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DeadlineExceededError, StoreUnavailableError } from '../shared/errors.js';
import { silentLogger } from '../shared/logger.js';
import { openStore, type StateStore } from '../store.js';
import { adminPrincipal, contextOf, createTestDatabase, type TestDatabase } from '../testing/index.js';
import { sqlitePath } from './connect.js';
import { SqliteReadPool } from './sqlite-read-pool.js';

const admin = contextOf(adminPrincipal);

/** Counts timer ticks while `work` runs: a blocked event loop shows as missing ticks. */
async function ticksDuring<T>(work: Promise<T>, everyMs = 5): Promise<{ value: T; ticks: number; ms: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, everyMs);
  const started = performance.now();
  try {
    const value = await work;
    return { value, ticks, ms: performance.now() - started };
  } finally {
    clearInterval(timer);
  }
}

/** A read that keeps SQLite busy for a while without producing rows (nothing to interrupt it between rows). */
const SLOW_AGGREGATE =
  'with recursive c(x) as (select 1 union all select x + 1 from c where x < 30000000) select count(*) as n from c';

describe('SQLite connections: lock waits and heavy reads stay off the event loop', () => {
  let database: TestDatabase;
  let store: StateStore;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    store = await openStore({ url: database.url, logger: silentLogger, lockTimeoutMs: 3000, readDeadlineMs: 1000 });
    await store.sessions.create(admin, { id: 'conn', profile: 'c', source: 'cli' });
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it('a write waiting for another process’s lock leaves the event loop running, and reads keep answering', async () => {
    // Another "process": a connection holding the write lock until the test lets go.
    const other = new Database(sqlitePath(database.url));
    other.prepare('begin immediate').run();
    let release: NodeJS.Timeout | undefined;
    try {
      let settled = false;
      const append = store.messages
        .append(admin, 'conn', { messages: [{ role: 'user', content: 'waited' }] }, {})
        .finally(() => {
          settled = true;
        });
      // The read answers while the writer still waits for the lock: it did not queue behind it
      // (an order, not a time — a loaded machine slows both).
      await store.sessions.get(admin, 'conn');
      expect(settled).toBe(false);
      release = setTimeout(() => other.prepare('commit').run(), 300);
      const waited = await ticksDuring(append);
      // With a synchronous busy_timeout this process would have been frozen for the whole wait
      // (no tick at all); timers kept firing.
      expect(waited.ticks).toBeGreaterThanOrEqual(3);
      await store.ping();
    } finally {
      clearTimeout(release);
      if (other.inTransaction) other.prepare('commit').run();
      other.close();
    }
    expect((await store.sessions.get(admin, 'conn')).messageCount).toBe(1);
  });

  it('[storage.bounded-waits] gives up on the lock after the lock timeout with store_unavailable', async () => {
    const short = await openStore({ url: database.url, logger: silentLogger, lockTimeoutMs: 100, migrate: false });
    const other = new Database(sqlitePath(database.url));
    other.prepare('begin immediate').run();
    try {
      await expect(
        short.messages.append(admin, 'conn', { messages: [{ role: 'user', content: 'too late' }] }, {}),
      ).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      other.prepare('rollback').run();
      other.close();
      await short.close();
    }
  });

  it('[storage.bounded-waits] a heavy read past its deadline answers deadline_exceeded while the event loop keeps running', async () => {
    const { value, ticks, ms } = await ticksDuring(
      sql<{ n: number }>`${sql.raw(SLOW_AGGREGATE)}`.execute(store.reads).then(
        () => 'finished',
        (error) => error,
      ),
    );
    expect(value).toBeInstanceOf(DeadlineExceededError);
    expect((value as DeadlineExceededError).code).toBe('deadline_exceeded');
    // Answered at its deadline (1 s), not when the aggregate would have finished (≈ 20 s and more);
    // timers kept firing.
    expect(ms).toBeLessThan(10_000);
    expect(ticks).toBeGreaterThanOrEqual(5);
    // The pool replaced the abandoned worker: reads work again. (The replacement thread's start-up
    // counts against a read's 1 s deadline, which a loaded 2-core machine can exceed: a read that
    // timed out while the thread started is retried, a pool left broken would never answer.)
    const read = () =>
      store.sessions.list(admin, {
        status: 'all',
        archived: 'include',
        includeChildren: true,
        limit: 10,
        order: 'recent',
      });
    let list: Awaited<ReturnType<typeof read>> | undefined;
    for (let attempt = 0; attempt < 20 && !list; attempt++) {
      list = await read().catch((error) => {
        if (!(error instanceof DeadlineExceededError)) throw error;
        return undefined;
      });
    }
    expect(list?.items.map((item) => item.id)).toEqual(['conn']);
  });

  it('a long row-producing scan stops itself at the deadline (no thread abandoned)', async () => {
    const pool = new SqliteReadPool({ path: sqlitePath(database.url), size: 1, deadlineMs: 100 });
    try {
      // A started worker (thread start-up counts against a read's deadline; it is not what this tests).
      await pool.run('select 1', [], 5000);
      // The pool's backstop (abandon the thread 25 ms past the deadline, a main-thread timer) is held
      // still: only the worker, on its own clock, can end the scan — what this test is about. (The
      // backstop and the worker's answer both due at once is the next test.)
      const guard = new AbortController();
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      try {
        const scan = pool.run(
          'with recursive c(x) as (select 1 union all select x + 1 from c where x < 100000000) select x from c',
          [],
        );
        const outcome = await Promise.race([
          scan.then(
            () => 'finished',
            (error) => error,
          ),
          wallClock(5_000, 'still scanning', { signal: guard.signal, ref: false }).catch(() => 'aborted'),
        ]);
        expect(outcome).toBeInstanceOf(DeadlineExceededError);
      } finally {
        guard.abort();
        vi.useRealTimers();
      }
      expect(pool.abandonedThreads).toBe(0);
      expect(await pool.run('select 1 as one', [])).toEqual([{ one: 1 }]);
    } finally {
      await pool.close();
    }
  });

  it('a thread that stopped at its deadline is kept even when the main thread wakes with the backstop due', async () => {
    const pool = new SqliteReadPool({ path: sqlitePath(database.url), size: 1, deadlineMs: 100 });
    try {
      await pool.run('select 1', [], 5000);
      const scan = pool.run(
        'with recursive c(x) as (select 1 union all select x + 1 from c where x < 100000000) select x from c',
        [],
      );
      // The main thread is busy well past the deadline and its 25 ms grace, in a check-phase
      // callback: the worker stops the scan by itself meanwhile and posts its answer, so both the
      // backstop timer and the answer are due when the loop turns — and timers run before messages.
      await new Promise<void>((resolve) =>
        setImmediate(() => {
          const busyUntil = performance.now() + 600;
          while (performance.now() < busyUntil) {
            // holding the event loop
          }
          resolve();
        }),
      );
      await expect(scan).rejects.toBeInstanceOf(DeadlineExceededError);
      expect(pool.abandonedThreads).toBe(0);
      expect(await pool.run('select 1 as one', [])).toEqual([{ one: 1 }]);
    } finally {
      await pool.close();
    }
  });

  it('a read in flight keeps a process with nothing else to do alive until it answers (a CLI)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'read-pool-cli-'));
    try {
      const script = join(dir, 'read.mts');
      const pool = new URL('./sqlite-read-pool.ts', import.meta.url).href;
      writeFileSync(
        script,
        `import { SqliteReadPool } from ${JSON.stringify(pool)};
         const pool = new SqliteReadPool({ path: process.env.DB, size: 1, deadlineMs: 5000 });
         console.log(JSON.stringify(await pool.run('select 42 as n', [])));
         await pool.close();`,
      );
      const child = spawnSync(process.execPath, ['--import', 'tsx', script], {
        env: { ...process.env, DB: sqlitePath(database.url) },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(child.stderr).toBe('');
      expect(child.stdout.trim()).toBe('[{"n":42}]');
      expect(child.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('checkpoints the WAL on a worker, not inside a commit', async () => {
    const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(store.db);
    expect(Number(rows[0].wal_autocheckpoint)).toBe(0);
    await store.sessions.create(admin, { id: 'wal', profile: 'c', source: 'cli' });
    for (let i = 0; i < 20; i++) {
      await store.messages.append(
        admin,
        'wal',
        {
          messages: Array.from({ length: 200 }, (_, j) => ({
            role: 'user' as const,
            content: `wal ${i} ${j} ${'x'.repeat(200)}`,
          })),
        },
        {},
      );
    }
    // Within a few of the worker's rounds every frame is back in the database file.
    const raw = new Database(sqlitePath(database.url));
    try {
      let pending = Number.POSITIVE_INFINITY;
      for (let round = 0; round < 50 && pending > 0; round++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const [state] = raw.pragma('wal_checkpoint(NOOP)') as { log: number; checkpointed: number }[];
        pending = state.log - state.checkpointed;
      }
      expect(pending).toBe(0);
    } finally {
      raw.close();
    }
  });

  it('the read pool refuses writes', async () => {
    await expect(sql`delete from sessions`.execute(store.reads)).rejects.toThrow(/read-only|readonly/i);
    expect((await store.sessions.get(admin, 'conn')).id).toBe('conn');
  });
});
