import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHUNK_STOP_MS, type ChunkEvent, observeChunks } from '../jobs/chunks.js';
import { adminPrincipal, contextOf, openTestStore, TEST_DIALECTS, type TestStore } from '../testing/index.js';
import { INDEX_MAINTENANCE_JOB } from './index-maintenance.service.js';

const admin = contextOf(adminPrincipal);

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`index maintenance on ${dialect}`, () => {
    let t: TestStore;
    beforeAll(async () => {
      t = await openTestStore(dialect);
      t.store.jobs.configure(INDEX_MAINTENANCE_JOB, 60 * 60 * 1000);
    });
    afterAll(async () => t?.close());

    it('runs as a scheduled job in bounded steps and leaves the search indexes intact', async () => {
      for (let s = 0; s < 4; s++) {
        const session = await t.store.sessions.create(admin, {
          id: `mt-${s}`,
          profile: 'mt',
          source: 'cli',
          messages: Array.from({ length: 400 }, (_, i) => ({
            role: 'user' as const,
            content: `maintenance ${s} line ${i} ${'padding '.repeat(20)}`,
          })),
        });
        if (s < 3) {
          await t.store.deletion.deleteOne(
            admin,
            session.id,
            { includeCompressionChain: false, ifEmpty: false },
            { ifMatch: session.revision, expectedGeneration: session.generation },
          );
        }
      }
      const chunks: ChunkEvent[] = [];
      const stop = observeChunks((event) => chunks.push(event));
      const report = await t.store.jobs.runNow(INDEX_MAINTENANCE_JOB, 'maint').finally(stop);
      expect(report.outcome).toBe('ran');
      if (dialect === 'sqlite') {
        // Vacuum steps run in time boxes: none starts once its transaction's box is spent.
        const vacuum = chunks.filter((event) => event.operation === 'vacuum');
        expect(vacuum.length).toBeGreaterThan(0);
        for (const event of vacuum) expect(event.lastStepStartMs).toBeLessThan(CHUNK_STOP_MS);
        // New files reclaim free pages step by step instead of by a full VACUUM.
        expect(
          Number((await sql<{ auto_vacuum: number }>`pragma auto_vacuum`.execute(t.store.db)).rows[0].auto_vacuum),
        ).toBe(2);
        expect(report.summary).toMatchObject({ vacuum: 'incremental', resumedRebuild: false });
        expect(Number(report.summary?.pagesFreed)).toBeGreaterThan(0);
        const free = await sql<{ freelist_count: number }>`pragma freelist_count`.execute(t.store.db);
        expect(Number(free.rows[0].freelist_count)).toBe(0);
      } else {
        expect(report.summary).toMatchObject({ ginPendingListsFlushed: 2, analyzed: true });
      }
      expect((await t.store.searchIndex.status(admin, true)).integrity?.ok).toBe(true);
      expect((await t.store.search.search(admin, { q: 'maintenance', mode: 'word', limit: 5 })).items).toHaveLength(5);
    });
  });
}

/** On a file, the merge and vacuum steps run on a worker's connection, never on the store's writer. */
describe('index maintenance steps on a worker thread (sqlite file)', () => {
  let t: TestStore;
  let writeLocks = 0;
  beforeAll(async () => {
    t = await openTestStore('sqlite', { onWriteLock: () => writeLocks++ });
  });
  afterAll(async () => t?.close());

  it("frees pages and merges segments without taking the store's writer", async () => {
    for (let s = 0; s < 3; s++) {
      const session = await t.store.sessions.create(admin, {
        id: `mw-${s}`,
        profile: 'mw',
        source: 'cli',
        messages: Array.from({ length: 400 }, (_, i) => ({
          role: 'user' as const,
          content: `worker maintenance ${s} line ${i} ${'padding '.repeat(20)}`,
        })),
      });
      if (s < 2) {
        await t.store.deletion.deleteOne(
          admin,
          session.id,
          { includeCompressionChain: false, ifEmpty: false },
          { ifMatch: session.revision, expectedGeneration: session.generation },
        );
      }
    }
    const chunks: ChunkEvent[] = [];
    const stop = observeChunks((event) => chunks.push(event));
    writeLocks = 0;
    try {
      await t.store.maintenance.mergeFts(async () => undefined);
      const vacuum = await t.store.maintenance.incrementalVacuum(async () => undefined);
      expect(vacuum.pagesFreed).toBeGreaterThan(0);
    } finally {
      stop();
    }
    expect(chunks.filter((event) => event.operation === 'vacuum').length).toBeGreaterThan(0);
    expect(writeLocks).toBe(0);
    const free = await sql<{ freelist_count: number }>`pragma freelist_count`.execute(t.store.db);
    expect(Number(free.rows[0].freelist_count)).toBe(0);
    expect((await t.store.searchIndex.status(admin, true)).integrity?.ok).toBe(true);
  });
});

/** Planner statistics are refreshed on the maintenance writer's connection, bounded, never on the store's own. */
describe('PRAGMA optimize off the event loop (sqlite file)', () => {
  let t: TestStore;
  const mainThreadQueries: string[] = [];
  beforeAll(async () => {
    t = await openTestStore('sqlite', { onQuery: (kind) => mainThreadQueries.push(kind) });
  });
  afterAll(async () => t?.close());

  it('analyzes every table on the worker, with no statement on the store connections', async () => {
    await t.store.sessions.create(admin, {
      id: 'opt-1',
      profile: 'opt',
      source: 'cli',
      messages: Array.from({ length: 50 }, (_, i) => ({ role: 'user' as const, content: `optimize ${i}` })),
    });
    mainThreadQueries.length = 0;
    await t.store.maintenance.optimizePlanner();
    expect(mainThreadQueries).toEqual([]);
    const { rows } = await sql<{ tbl: string }>`select distinct tbl from sqlite_stat1`.execute(t.store.db);
    expect(rows.map((row) => row.tbl)).toEqual(expect.arrayContaining(['messages', 'sessions']));
  });
});
