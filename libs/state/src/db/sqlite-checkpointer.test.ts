import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
