import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminPrincipal,
  contextOf,
  HermesFixture,
  openTestStore,
  SCENARIO_T0,
  type TestStore,
} from '../../testing/index.js';
import { type OtherWriterOutcome, startOtherProcessWriter } from '../../testing/other-process-writer.js';

const admin = contextOf(adminPrincipal);

/**
 * An import writes batches of whole sessions, a transaction each, and pauses between them as every
 * long operation does (db/chunks.ts): a writer of another process sharing the file — retrying on
 * timers — must get the lock between any two of them, never wait for batch after batch. (Before
 * the pause, the reading and mapping of the next batch left it room too; this pins the behaviour,
 * it does not replay a failure.)
 */
describe('a Hermes import leaves the write lock free between its batches (sqlite)', { timeout: 120_000 }, () => {
  let t: TestStore;
  let dir: string;
  const locks: number[] = [];
  beforeAll(async () => {
    t = await openTestStore('sqlite', { onWriteLock: (ms) => locks.push(ms) });
    dir = mkdtempSync(join(tmpdir(), 'import-pause-'));
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a writer of another process gets the lock between any two batches', async () => {
    const path = join(dir, 'hermes.db');
    const f = new HermesFixture(path, 30);
    f.transaction(() => {
      for (let s = 0; s < 400; s++) {
        const id = `batch-${s}`;
        f.session({ id, source: 'cli', profile_name: 'pause', started_at: SCENARIO_T0 + s });
        for (let i = 0; i < 40; i++) {
          f.message(id, {
            role: i % 2 ? 'assistant' : 'user',
            content: `${id} line ${i}: the quick brown fox ${i % 97} jumps over the lazy dog ${(s * i) % 89}`,
            timestamp: SCENARIO_T0 + s * 100 + i,
          });
        }
      }
    });
    f.close();

    const other = await startOtherProcessWriter(t.url);
    let outcome: OtherWriterOutcome;
    locks.length = 0;
    try {
      const { report } = await t.store.imports.runHermes(admin, {
        path,
        profile: 'pause',
        onConflict: 'skip',
        dryRun: false,
      });
      expect(report.sessions.created).toBe(400);
      expect(report.messages.created).toBe(16_000);
    } finally {
      outcome = await other.stop();
    }
    console.log(
      `import of 400 sessions (16 000 messages): another process's writer got the lock ${outcome.wants} times, waited ${outcome.longestWait.toFixed(1)} ms at most; this process held the lock ${locks.length} times, at most ${Math.max(...locks).toFixed(1)} ms`,
    );
    const batches = locks.length;
    expect(batches).toBeGreaterThan(10);
    // Between any two of this process's transactions the other writer gets in at least once.
    expect(outcome.wants).toBeGreaterThanOrEqual(batches);
  });
});
