import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHUNK_STOP_MS, type ChunkEvent, observeChunks } from '../db/chunks.js';
import { ftsShadowStatsMigration } from '../db/migrations/2026-12-01T12.00-fts-shadow-stats.js';
import { adminPrincipal, aSession, contextOf, TEST_DIALECTS, type TestStore } from '../testing/index.js';
import { useTestStore } from '../testing/suites.js';
import { INDEX_MAINTENANCE_JOB } from './index-maintenance.service.js';

const admin = contextOf(adminPrincipal);

/** `count` sessions of 400 padded `text` messages, the first `deleted` deleted again: pages to free, segments to merge. */
async function churn(t: TestStore, prefix: string, text: string, count: number, deleted: number): Promise<void> {
  for (let s = 0; s < count; s++) {
    const session = await aSession(t.store, {
      id: `${prefix}-${s}`,
      profile: prefix,
      messages: Array.from({ length: 400 }, (_, i) => ({
        role: 'user' as const,
        content: `${text} ${s} line ${i} ${'padding '.repeat(20)}`,
      })),
    });
    if (s < deleted) {
      await t.store.deletion.deleteOne(
        admin,
        session.id,
        { includeCompressionChain: false, ifEmpty: false },
        { ifMatch: session.revision, expectedGeneration: session.generation },
      );
    }
  }
}

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`index maintenance on ${dialect}`, () => {
    const t = useTestStore(dialect);
    beforeAll(() => t.store.jobs.configure(INDEX_MAINTENANCE_JOB, 60 * 60 * 1000));

    it('[storage.chunked-maintenance] runs as a scheduled job in bounded steps and leaves the search indexes intact', async () => {
      await churn(t, 'mt', 'maintenance', 4, 3);
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
  let writeLocks = 0;
  const t = useTestStore('sqlite', { onWriteLock: () => writeLocks++ });

  it("frees pages and merges segments without taking the store's writer", async () => {
    await churn(t, 'mw', 'worker maintenance', 3, 2);
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
  const mainThreadQueries: string[] = [];
  const t = useTestStore('sqlite', { onQuery: (kind) => mainThreadQueries.push(kind) });

  it('analyzes every table on the worker, with no statement on the store connections', async () => {
    await aSession(t.store, {
      id: 'opt-1',
      profile: 'opt',
      messages: Array.from({ length: 50 }, (_, i) => ({ role: 'user' as const, content: `optimize ${i}` })),
    });
    mainThreadQueries.length = 0;
    await t.store.maintenance.optimizePlanner();
    expect(mainThreadQueries).toEqual([]);
    const { rows } = await sql<{ tbl: string }>`select distinct tbl from sqlite_stat1`.execute(t.store.db);
    expect(rows.map((row) => row.tbl)).toEqual(expect.arrayContaining(['messages', 'sessions']));
  });

  // A count of the FTS5 shadow tables taken while an index is small made FTS5's per-segment
  // `DELETE … WHERE id >= ? AND id <= ?` a full scan: a crisis merge read the table once per segment.
  it('keeps no statistics of the search indexes’ shadow tables, so FTS5 deletes a segment by rowid range', async () => {
    await t.store.maintenance.optimizePlanner();
    const { rows } = await sql<{
      tbl: string;
    }>`select tbl from sqlite_stat1 where tbl like 'messages!_fts!_%' escape '!'
      or tbl like 'messages!_trgm!_%' escape '!'`.execute(t.store.db);
    expect(rows).toEqual([]);
    // A connection opened now loads the statistics the maintenance pass left.
    const fresh = new Database(t.url.replace(/^file:/, ''), { readonly: true });
    try {
      for (const table of ['messages_fts_data', 'messages_trgm_data']) {
        const plan = fresh.prepare(`explain query plan select id from ${table} where id >= ? and id <= ?`).all(1, 2);
        expect(plan.map((step) => (step as { detail: string }).detail).join(' ')).toMatch(/^SEARCH .*rowid/);
      }
    } finally {
      fresh.close();
    }
  });
});

describe('migration 2026-12-01T12.00: statistics of the FTS5 shadow tables removed (sqlite)', () => {
  const t = useTestStore('sqlite');

  // `from`: a statement text of its own per look — the connections cache prepared statements, and a
  // cached EXPLAIN shows the plan of when it was prepared.
  const plans = async (from: number) => {
    const query = sql.raw<{ detail: string }>(
      `explain query plan select id from messages_trgm_data where id >= ${from} and id <= ${from + 1}`,
    );
    // A statement first: a connection notices a schema change when it runs one (EXPLAIN does not).
    await sql`select count(*) from sessions`.execute(t.store.db);
    const reader = (await query.execute(t.store.db)).rows.map((row) => row.detail).join(' ');
    const writer = await t.store.db.transaction().execute(async (tx) => {
      await sql`select count(*) from sessions`.execute(tx);
      return (await query.execute(tx)).rows.map((row) => row.detail).join(' ');
    });
    return { reader, writer };
  };

  it('deletes the shadow tables’ rows of sqlite_stat1, and every connection plans by rowid range again', async () => {
    await sql`analyze`.execute(t.store.db);
    await sql`delete from sqlite_stat1 where tbl in ('messages_trgm_data', 'messages_fts_data', 'messages')`.execute(
      t.store.db,
    );
    await sql`insert into sqlite_stat1(tbl, idx, stat) values ('messages_trgm_data', null, '2'), ('messages_fts_data', null, '2'), ('messages', null, '1000')`.execute(
      t.store.db,
    );
    // What a store upgraded to this migration had: every connection planning with the small count.
    await sql`create table stale_stats_loaded (x)`.execute(t.store.db);
    await sql`drop table stale_stats_loaded`.execute(t.store.db);
    await sql`pragma writable_schema = reset`.execute(t.store.db);
    expect(await plans(1)).toEqual({ reader: expect.stringMatching(/^SCAN/), writer: expect.stringMatching(/^SCAN/) });

    await ftsShadowStatsMigration('sqlite').up(t.store.db);
    const { rows } = await sql<{ tbl: string }>`select tbl from sqlite_stat1 where idx is null order by tbl`.execute(
      t.store.db,
    );
    expect(rows.map((row) => row.tbl)).toContain('messages');
    expect(rows.map((row) => row.tbl)).not.toContain('messages_trgm_data');
    expect(rows.map((row) => row.tbl)).not.toContain('messages_fts_data');
    expect(await plans(3)).toEqual({
      reader: expect.stringMatching(/^SEARCH .*rowid/),
      writer: expect.stringMatching(/^SEARCH .*rowid/),
    });
  });
});
