import { sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Executor } from '../db/database.js';
import { adminPrincipal, aSession, contextOf, openTestStore, type TestStore } from '../testing/index.js';

const admin = contextOf(adminPrincipal);
const TABLES = ['messages_fts', 'messages_trgm'] as const;
/**
 * Every COMMIT indexes its own rows (no search-index lag, docs/search.md): these tests count the
 * segments a chat gateway's appends write when they are spread out in time, one per append.
 */
const EACH_COMMIT = { searchIndexLagMs: 0 };

/** An FTS5 table's persistent settings (its `_config` rows). */
async function settings(db: Executor, table: string): Promise<Record<string, number>> {
  const { rows } = await sql<{ k: string; v: number }>`select k, v from ${sql.table(`${table}_config`)}`.execute(db);
  return Object.fromEntries(rows.map((row) => [row.k, Number(row.v)]));
}

/** Segments of an FTS5 index: the distinct segment ids of its `_idx` table. */
async function segments(db: Executor, table: string): Promise<number> {
  const { rows } = await sql<{
    n: number;
  }>`select count(distinct segid) as n from ${sql.table(`${table}_idx`)}`.execute(db);
  return Number(rows[0].n);
}

/** One single-message append per call: one new segment per index, as a chat gateway writes. */
async function appendSingles(t: TestStore, sessionId: string, count: number, word: string): Promise<void> {
  for (let i = 0; i < count; i++) {
    await t.store.messages.append(admin, sessionId, {
      messages: [{ role: i % 2 ? 'assistant' : 'user', content: `${word} message ${i} about segment merging` }],
    });
  }
}

describe('FTS5 segment merging off the request path (SQLite)', () => {
  let t: TestStore | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('the migration leaves merging to the merger: automerge off, usermerge 4, crisismerge 64 on both indexes', async () => {
    t = await openTestStore('sqlite', { ftsMerger: false, groupCommit: EACH_COMMIT });
    for (const table of TABLES) {
      expect(await settings(t.store.db, table)).toMatchObject({ automerge: 0, usermerge: 4, crisismerge: 64 });
    }
  });

  it('appends add segments without merging them; the optimize steps merge them and the index stays consistent', async () => {
    t = await openTestStore('sqlite', { ftsMerger: false, groupCommit: EACH_COMMIT });
    await aSession(t.store, { id: 'merge-a' });
    await appendSingles(t, 'merge-a', 40, 'zephyrine');
    // No merge inside the appends (40 < crisismerge): a segment per append and index.
    for (const table of TABLES) expect(await segments(t.store.db, table)).toBeGreaterThanOrEqual(40);
    const steps = await t.store.maintenance.mergeFts(async () => undefined);
    expect(steps).toBeGreaterThan(0);
    for (const table of TABLES) expect(await segments(t.store.db, table)).toBe(1);
    expect((await t.store.searchIndex.status(admin, true)).integrity?.ok).toBe(true);
    const found = await t.store.search.search(admin, { q: 'zephyrine', mode: 'word', limit: 50 });
    expect(found.items).toHaveLength(40);
    const substring = await t.store.search.search(admin, { q: 'ephyri', mode: 'substring', limit: 50 });
    expect(substring.items).toHaveLength(40);
  });

  it('the optimize steps keep up with appends between them: the segments never pile up toward FTS5’s limit', async () => {
    // Replays a store that stopped writing: index maintenance optimized the trigram index while a
    // retention pass and a gateway wrote; every optimize step (negative budget) pulled every new
    // segment into its merge, which grew faster than it finished, to 2 000 segments — FTS5's limit,
    // where every write to the index fails with SQLITE_FULL.
    t = await openTestStore('sqlite', { ftsMerger: false, groupCommit: EACH_COMMIT });
    const store = t.store;
    await aSession(store, {
      id: 'optimize-big',
      messages: Array.from({ length: 3000 }, (_, i) => ({
        role: 'user' as const,
        content: `bulk ${i}: ${'an ordinary sentence of a long conversation with varied words '.repeat(3)}${i * 7919}`,
      })),
    });
    await aSession(store, { id: 'optimize-live' });
    await appendSingles(t, 'optimize-live', 30, 'before');
    let most = 0;
    let chunksBetween = 0;
    const steps = await store.maintenance.mergeFts(
      async () => {
        chunksBetween++;
        // A gateway's appends between two transactions: a segment per append and index.
        await appendSingles(t!, 'optimize-live', 10, `during${chunksBetween}`);
        for (const table of TABLES) most = Math.max(most, await segments(store.db, table));
      },
      undefined,
      { maxStepPages: 8, stopMs: 0 },
    );
    console.log(
      `optimize in ${steps} steps, ${chunksBetween} pauses with 10 appends each: at most ${most} segments in one index`,
    );
    expect(steps).toBeGreaterThan(3);
    expect(chunksBetween).toBeGreaterThan(3);
    // Appends without a merger merge a level themselves at 64 segments (crisismerge): a few levels
    // of fewer than 64. Before, the segments grew by the 10 appends of every pause.
    expect(most).toBeLessThan(130);
    expect((await store.searchIndex.status(admin, true)).integrity?.ok).toBe(true);
    const found = await store.search.search(admin, { q: 'during1', mode: 'word', limit: 50 });
    expect(found.items).toHaveLength(10);
  }, 60_000);

  it('a write that finds crisismerge segments on a level merges them itself (the merger is only a helper)', async () => {
    t = await openTestStore('sqlite', { ftsMerger: false, groupCommit: EACH_COMMIT });
    await aSession(t.store, { id: 'merge-c' });
    await appendSingles(t, 'merge-c', 70, 'crisis');
    for (const table of TABLES) expect(await segments(t.store.db, table)).toBeLessThan(64);
    expect((await t.store.searchIndex.status(admin, true)).integrity?.ok).toBe(true);
  });

  it('the merger worker merges the segments between writes, and search stays correct', async () => {
    t = await openTestStore('sqlite', { groupCommit: EACH_COMMIT });
    await aSession(t.store, { id: 'merge-w' });
    await appendSingles(t, 'merge-w', 30, 'quillwort');
    const store = t.store;
    // usermerge = 4: once idle, no level keeps 4 segments or more.
    await vi.waitFor(
      async () => {
        for (const table of TABLES) expect(await segments(store.db, table)).toBeLessThan(8);
      },
      { timeout: 20_000, interval: 100 },
    );
    expect((await store.searchIndex.status(admin, true)).integrity?.ok).toBe(true);
    expect((await store.search.search(admin, { q: 'quillwort', mode: 'word', limit: 50 })).items).toHaveLength(30);
  });

  it('a search-index rebuild puts the merge settings back, also on a table that was lost', async () => {
    t = await openTestStore('sqlite', { ftsMerger: false, groupCommit: EACH_COMMIT });
    await aSession(t.store, { id: 'merge-r' });
    await appendSingles(t, 'merge-r', 5, 'rebuilt');
    // A missing table has no settings to keep: the rebuild must not fall back to FTS5's defaults.
    await sql`drop table messages_trgm`.execute(t.store.db);
    await t.store.searchIndex.rebuild(admin, 'test-holder');
    await t.store.searchIndex.idle();
    for (const table of TABLES) {
      expect(await settings(t.store.db, table)).toMatchObject({ automerge: 0, usermerge: 4, crisismerge: 64 });
    }
    expect((await t.store.searchIndex.status(admin, true)).integrity?.ok).toBe(true);
  });
  it('a long chunked write merges index segments in its pauses: no level piles up to a crisis merge inside one of its chunks', async () => {
    // A retention pass over 4 000 sessions paid ≈ 100–200 ms chunks (event loop and write lock)
    // every ~60 chunks: its pauses never left the file quiet for the merger, so the first level of
    // the trigram index filled to crisismerge (64) and one chunk merged it whole.
    t = await openTestStore('sqlite', { groupCommit: EACH_COMMIT });
    const store = t.store;
    await aSession(store, { id: 'long-write' });
    const most: Record<string, number> = {};
    const chunks = 90;
    store.jobs.register({
      name: 'test-long-write',
      intervalMs: 0,
      run: async (context) => {
        for (let i = 0; i < chunks; i++) {
          // One chunk: one transaction, one new segment per index.
          await store.messages.append(admin, 'long-write', {
            messages: [{ role: 'user', content: `tessellation chunk ${i} rewrites the index` }],
          });
          for (const table of TABLES) most[table] = Math.max(most[table] ?? 0, await segments(store.db, table));
          await context.checkpoint(5);
        }
        return {};
      },
    });
    store.jobs.configure('test-long-write', 3_600_000);
    expect((await store.jobs.runNow('test-long-write', 'test')).outcome).toBe('ran');
    // Old pauses: 64 segments, then a crisis merge inside a chunk. Merged in the pauses: a handful.
    for (const table of TABLES) expect(most[table], table).toBeLessThan(16);
    const found = await store.search.search(admin, { q: 'tessellation', mode: 'word', limit: 100 });
    expect(found.items).toHaveLength(chunks);
    expect((await store.searchIndex.status(admin, true)).integrity?.ok).toBe(true);
  });
});
