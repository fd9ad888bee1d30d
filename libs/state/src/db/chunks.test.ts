import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteSearchIndex } from '../search/sqlite-search-index.js';
import { adminPrincipal, contextOf, openTestStore, type TestStore } from '../testing/index.js';
import { CHUNK_STOP_MS, type ChunkEvent, ChunkSizer, observeChunks, timeBoxed } from './chunks.js';

const admin = contextOf(adminPrincipal);

/** A clock the steps move: deterministic time, whatever the machine's load. */
function fakeClock() {
  let at = 0;
  return { now: () => at, advance: (ms: number) => (at += ms) };
}

describe('time-boxed chunks', () => {
  it('starts no step once the box is spent, whatever the step sizes predicted', async () => {
    const clock = fakeClock();
    const sizer = new ChunkSizer(100, 10, 1000, 4);
    const starts: number[] = [];
    // Each step takes 4 ms of (fake) time, then one step suddenly takes 40 ms (a merge inside FTS5).
    let call = 0;
    const box = await timeBoxed(
      sizer,
      async (limit) => {
        starts.push(clock.now());
        clock.advance(++call === 2 ? 40 : 4);
        return limit;
      },
      { stopMs: 15, now: clock.now },
    );
    // The slow second step ends the box at once: no third step starts after it.
    expect(box).toMatchObject({ steps: 2, done: false, lastStepStartMs: 4 });
    expect(starts).toEqual([0, 4]);
    // The slow step shrank the next steps (sized by the slowest per-row cost).
    expect(sizer.size).toBeLessThan(100);
  });

  it('ends when a step finds less work than it asked for', async () => {
    const clock = fakeClock();
    let left = 250;
    const box = await timeBoxed(
      new ChunkSizer(100, 10, 1000, 4),
      async (limit) => {
        clock.advance(1);
        const did = Math.min(limit, left);
        left -= did;
        return did;
      },
      { stopMs: 15, now: clock.now },
    );
    expect(box).toMatchObject({ rows: 250, done: true });
  });

  it('keeps every step of a box within the stop threshold', async () => {
    const clock = fakeClock();
    for (let round = 0; round < 20; round++) {
      const box = await timeBoxed(
        new ChunkSizer(50, 1, 1000, 4),
        async (limit) => {
          clock.advance(1 + ((round * 7 + limit) % 9));
          return limit;
        },
        { stopMs: 15, now: clock.now },
      );
      expect(box.lastStepStartMs).toBeLessThan(15);
      expect(box.steps).toBeGreaterThanOrEqual(1);
    }
  });
});

/** A search index rebuild commits many short transactions, each a time box of steps. */
describe('a search index rebuild on sqlite is split into time-boxed transactions', () => {
  const SESSIONS = 4;
  const PER_SESSION = 2000;
  let t: TestStore;
  let writeLocks: number[] = [];

  beforeAll(async () => {
    t = await openTestStore('sqlite', { onWriteLock: (ms) => writeLocks.push(ms) });
    for (let s = 0; s < SESSIONS; s++) {
      await t.store.sessions.create(admin, { id: `tb-${s}`, profile: 'tb', source: 'cli' });
      for (let from = 0; from < PER_SESSION; from += 500) {
        await t.store.messages.append(
          admin,
          `tb-${s}`,
          {
            messages: Array.from({ length: 500 }, (_, i) => ({
              role: 'user' as const,
              content: `message ${from + i} of session ${s} about narwhal${s} tides`,
            })),
          },
          {},
        );
      }
    }
  }, 60_000);
  afterAll(async () => t?.close());

  it('indexes every message over several transactions, none starting a step after its box is spent', async () => {
    const events: ChunkEvent[] = [];
    const stop = observeChunks((event) => events.push(event));
    writeLocks = [];
    let betweens = 0;
    try {
      await new SqliteSearchIndex().rebuild(t.store.db, {
        between: async () => {
          betweens++;
        },
      });
    } finally {
      stop();
    }
    const rebuild = events.filter((event) => event.operation === 'search-rebuild');
    // Every message indexed exactly once across the chunks, and never in one transaction.
    expect(rebuild.reduce((sum, event) => sum + event.rows, 0)).toBe(SESSIONS * PER_SESSION);
    expect(rebuild.length).toBeGreaterThan(1);
    expect(betweens).toBeGreaterThanOrEqual(rebuild.length - 1);
    for (const event of rebuild) {
      expect(event.steps).toBeGreaterThanOrEqual(1);
      expect(event.lastStepStartMs).toBeLessThan(CHUNK_STOP_MS);
    }
    // Each chunk is its own write transaction (the driver's write-lock hook saw at least as many).
    expect(writeLocks.length).toBeGreaterThanOrEqual(rebuild.length);
    const found = await t.store.search.search(admin, { q: 'narwhal2', mode: 'word', limit: 3 });
    expect(found).toMatchObject({ degraded: false });
    expect(found.items).toHaveLength(3);
  });
});
