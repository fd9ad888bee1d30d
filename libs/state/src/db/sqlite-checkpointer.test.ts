import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { Logger } from '../shared/logger.js';
import { SqliteCheckpointer } from './sqlite-checkpointer.js';

function recordingLogger() {
  const lines: { level: string; message: string; context?: Record<string, unknown> }[] = [];
  const logger: Logger = {
    info: (message, context) => lines.push({ level: 'info', message, context }),
    warn: (message, context) => lines.push({ level: 'warn', message, context }),
    error: (message, context) => lines.push({ level: 'error', message, context }),
  };
  return { logger, lines };
}

async function until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('the WAL checkpointer reports its failures (they were swallowed)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'statehouse-checkpointer-'));
  const opened: SqliteCheckpointer[] = [];
  afterAll(async () => {
    await Promise.all(opened.map((checkpointer) => checkpointer.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('a checkpoint that fails is logged once (not every round) and counted', async () => {
    // A file that is not a database: every checkpoint round fails with SQLITE_NOTADB.
    const path = join(dir, 'garbage.db');
    writeFileSync(path, Buffer.alloc(8192, 7));
    const { logger, lines } = recordingLogger();
    const checkpointer = new SqliteCheckpointer(path, 10, logger);
    opened.push(checkpointer);
    await until(() => checkpointer.status().failures >= 3);
    const status = checkpointer.status();
    expect(status).toMatchObject({ failing: true });
    expect(status.failures).toBeGreaterThanOrEqual(3);
    expect(status.lastError).toMatch(/not a database/i);
    const errors = lines.filter((line) => line.level === 'error');
    // The same error repeating is logged once, with the path and what failed.
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ message: 'SQLite WAL checkpoint failed', context: { path } });
    expect(String(errors[0].context?.error)).toMatch(/not a database/i);
  });

  it('a worker that cannot open the file says so', async () => {
    const { logger, lines } = recordingLogger();
    const checkpointer = new SqliteCheckpointer(join(dir, 'missing', 'store.db'), 10, logger);
    opened.push(checkpointer);
    await until(() => checkpointer.status().failing);
    // Node reports the worker's end as 'error' and then 'exit' (code 1); whichever arrives first names it.
    expect(checkpointer.status().lastError).toMatch(/checkpoint worker (stopped|exited with code 1)/);
    expect(lines.filter((line) => line.level === 'error').map((line) => line.message)).toEqual([
      'SQLite WAL checkpoints stopped in this process; the WAL grows until the store is closed',
    ]);
  });
});

describe('the WAL checkpointer empties a WAL grown past its limit (the writers never truncate it)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'statehouse-walcut-'));
  const opened: SqliteCheckpointer[] = [];
  afterAll(async () => {
    await Promise.all(opened.map((checkpointer) => checkpointer.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('a WAL grown past the limit is cut back on the checkpointer’s thread, with no write after it', async () => {
    // A writer set up as the store's (connect.ts): no checkpoints in its commits, no truncation.
    const path = join(dir, 'store.db');
    const writer = new Database(path);
    writer.pragma('journal_mode = WAL');
    writer.pragma('wal_autocheckpoint = 0');
    writer.pragma('journal_size_limit = -1');
    writer.exec('create table blobs (id integer primary key, body blob)');
    const insert = writer.prepare('insert into blobs (body) values (?)');
    writer.transaction(() => {
      for (let i = 0; i < 48; i++) insert.run(Buffer.alloc(64 * 1024, i));
    })();
    const wal = () => statSync(`${path}-wal`).size;
    const limit = 1024 * 1024;
    expect(wal()).toBeGreaterThan(2 * limit);
    const checkpointer = new SqliteCheckpointer(path, 10, undefined, limit);
    opened.push(checkpointer);
    try {
      // Nothing writes from here on: before, the WAL kept its size until the next writer's COMMIT
      // cut it back (on that writer's event loop).
      // The file shrinks on the worker's thread before its 'truncated' message reaches this one
      // (CI once read the count in between), so wait for both.
      await until(() => wal() <= limit && checkpointer.status().truncations >= 1);
      expect(wal()).toBeLessThanOrEqual(limit);
      expect(checkpointer.status().truncations).toBeGreaterThanOrEqual(1);
      // Every row is in the database file, and writing goes on as before.
      insert.run(Buffer.alloc(16, 1));
      expect(writer.prepare('select count(*) as n from blobs').get()).toEqual({ n: 49 });
    } finally {
      writer.close();
    }
  });

  it('without a limit the WAL is only checkpointed, never truncated', async () => {
    const path = join(dir, 'unlimited.db');
    const writer = new Database(path);
    writer.pragma('journal_mode = WAL');
    writer.pragma('wal_autocheckpoint = 0');
    writer.exec('create table blobs (id integer primary key, body blob)');
    const insert = writer.prepare('insert into blobs (body) values (?)');
    writer.transaction(() => {
      for (let i = 0; i < 16; i++) insert.run(Buffer.alloc(64 * 1024, i));
    })();
    const before = statSync(`${path}-wal`).size;
    const checkpointer = new SqliteCheckpointer(path, 10);
    opened.push(checkpointer);
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(statSync(`${path}-wal`).size).toBe(before);
      expect(checkpointer.status()).toMatchObject({ truncations: 0, failing: false });
    } finally {
      writer.close();
    }
  });
});
