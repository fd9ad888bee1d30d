import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChunkEvent, observeChunks } from '../db/chunks.js';
import { sqlitePath } from '../db/connect.js';
import { adminPrincipal, contextOf, openTestStore, type TestStore } from '../testing/index.js';
import { SqliteSearchIndex } from './sqlite-search-index.js';

const admin = contextOf(adminPrincipal);
const SESSIONS = 6;
const PER_SESSION = 2500;

/** A chunked rebuild on SQLite: writes between its chunks land right, searches say degraded meanwhile. */
describe('search index rebuild in chunks on sqlite', () => {
  let t: TestStore;

  beforeAll(async () => {
    t = await openTestStore('sqlite');
    for (let s = 0; s < SESSIONS; s++) {
      await t.store.sessions.create(admin, { id: `rb-${s}`, profile: 'rb', source: 'cli' });
      for (let from = 0; from < PER_SESSION; from += 500) {
        await t.store.messages.append(
          admin,
          `rb-${s}`,
          {
            messages: Array.from({ length: 500 }, (_, i) => ({
              role: 'user' as const,
              content: `message ${from + i} of session ${s} about walrus${s} migration`,
            })),
          },
          {},
        );
      }
    }
  }, 60_000);
  afterAll(async () => t?.close());

  async function integrityOk(): Promise<boolean> {
    return Boolean((await t.store.searchIndex.status(admin, true)).integrity?.ok);
  }

  it('indexes in bounded chunks while writes of every kind go on between them', async () => {
    const port = new SqliteSearchIndex();
    let chunks = 0;
    const degraded: boolean[] = [];
    await port.rebuild(t.store.db, {
      stopMs: 0,
      between: async () => {
        chunks++;
        degraded.push((await t.store.search.search(admin, { q: 'walrus0', mode: 'word', limit: 5 })).degraded);
        if (chunks === 1) {
          // Below the watermark (already indexed): an edit, a rewind and a deletion must reach the new index.
          const first = (await t.store.messages.list(admin, 'rb-0', { limit: 3, order: 'oldest' })).items;
          await t.store.messages.append(
            admin,
            'rb-0',
            { messages: [{ role: 'assistant', content: 'appended during the rebuild: narwhal' }] },
            {},
          );
          await t.store.sessions.update(
            admin,
            'rb-1',
            { hidden: true },
            { ifMatch: (await t.store.sessions.get(admin, 'rb-1')).revision },
          );
          await t.store.sessions.update(
            admin,
            'rb-1',
            { hidden: false },
            { ifMatch: (await t.store.sessions.get(admin, 'rb-1')).revision },
          );
          expect(first).toHaveLength(3);
          const session = await t.store.sessions.get(admin, 'rb-0');
          await t.store.deletion.deleteOne(
            admin,
            'rb-0',
            { includeCompressionChain: false, ifEmpty: false },
            { ifMatch: session.revision, expectedGeneration: session.generation },
          );
        }
        if (chunks === 2) {
          // Above the watermark (not indexed yet): removing those rows must not corrupt anything.
          const last = await t.store.sessions.get(admin, `rb-${SESSIONS - 1}`);
          await t.store.deletion.deleteOne(
            admin,
            last.id,
            { includeCompressionChain: false, ifEmpty: false },
            { ifMatch: last.revision, expectedGeneration: last.generation },
          );
        }
      },
    });
    expect(chunks).toBeGreaterThanOrEqual(3);
    expect(degraded.every(Boolean)).toBe(true);
    expect(await integrityOk()).toBe(true);
    const after = await t.store.search.search(admin, { q: 'walrus2', mode: 'word', limit: 5 });
    expect(after.degraded).toBe(false);
    expect(after.items).toHaveLength(5);
    expect((await t.store.search.search(admin, { q: 'walrus0', mode: 'word', limit: 5 })).items).toEqual([]);
    const triggers = await sql<{ sql: string }>`select sql from sqlite_master where type = 'trigger'`.execute(
      t.store.db,
    );
    expect(triggers.rows.some((row) => row.sql.includes('search_rebuild_watermark'))).toBe(false);
  });

  it('a rebuild interrupted by a crash is resumed from its watermark and completes', async () => {
    const port = new SqliteSearchIndex();
    let chunks = 0;
    await expect(
      port.rebuild(t.store.db, {
        stopMs: 0,
        between: async () => {
          if (++chunks === 2) throw new Error('the process died here');
        },
      }),
    ).rejects.toThrow('died');
    expect(await port.inProgress(t.store.db)).toBe(true);
    expect((await t.store.search.search(admin, { q: 'walrus3', mode: 'word', limit: 5 })).degraded).toBe(true);
    expect((await t.store.searchIndex.status(admin, false)).degraded).toBe(true);
    // Writes keep working against the half-built index.
    await t.store.messages.append(
      admin,
      'rb-3',
      { messages: [{ role: 'user', content: 'written while half-built: walrus3 again' }] },
      {},
    );
    expect(await t.store.searchIndex.resumeAbandoned('another-process')).toBe(true);
    await t.store.searchIndex.idle();
    expect(await port.inProgress(t.store.db)).toBe(false);
    expect(await integrityOk()).toBe(true);
    const found = await t.store.search.search(admin, { q: 'walrus3 again', mode: 'word', limit: 5 });
    expect(found).toMatchObject({ degraded: false });
    expect(found.items).toHaveLength(1);
  });
});

/**
 * On a file, every transaction of the rebuild runs on a worker's connection: the store's own writer
 * (on this process's event loop) takes the write lock only for this process's own writes. With
 * the chunks on the event loop it took it once per chunk, and WAL writes slowed by the kernel's
 * writeback held `/healthz` for up to a second (docs/decisions/0010-write-worker-for-long-background-writes.md).
 */
describe('search index rebuild on a worker thread (sqlite file)', () => {
  let t: TestStore;
  let writeLocks = 0;

  beforeAll(async () => {
    t = await openTestStore('sqlite', { onWriteLock: () => writeLocks++ });
    for (let s = 0; s < 4; s++) {
      await t.store.sessions.create(admin, { id: `wk-${s}`, profile: 'wk', source: 'cli' });
      for (let from = 0; from < PER_SESSION; from += 500) {
        await t.store.messages.append(
          admin,
          `wk-${s}`,
          {
            messages: Array.from({ length: 500 }, (_, i) => ({
              role: 'user' as const,
              content: `message ${from + i} of session ${s} about orca${s} ${'padding words '.repeat(i % 7)}`,
            })),
          },
          {},
        );
      }
    }
  }, 60_000);
  afterAll(async () => t?.close());

  it("runs no statement of its chunks on the store's writer, and writes between chunks still land", async () => {
    const port = new SqliteSearchIndex(sqlitePath(t.url));
    const events: ChunkEvent[] = [];
    const stop = observeChunks((event) => events.push(event));
    let betweens = 0;
    writeLocks = 0;
    try {
      await port.rebuild(t.store.db, {
        // One step a chunk: several chunks however fast the machine indexes.
        stopMs: 0,
        between: async () => {
          if (++betweens === 1) {
            await t.store.messages.append(
              admin,
              'wk-0',
              { messages: [{ role: 'assistant', content: 'appended while the worker rebuilds: beluga' }] },
              {},
            );
          }
        },
      });
    } finally {
      stop();
    }
    const chunks = events.filter((event) => event.operation === 'search-rebuild');
    expect(chunks.reduce((sum, event) => sum + event.rows, 0)).toBeGreaterThanOrEqual(4 * PER_SESSION);
    expect(chunks.length).toBeGreaterThan(3);
    // The one append between chunks, and nothing else: no chunk, merge step, drop or finish.
    expect(writeLocks).toBe(1);
    expect(await port.inProgress(t.store.db)).toBe(false);
    expect((await t.store.searchIndex.status(admin, true)).integrity?.ok).toBe(true);
    expect((await t.store.search.search(admin, { q: 'beluga', mode: 'word', limit: 5 })).items).toHaveLength(1);
    expect((await t.store.search.search(admin, { q: 'orca2', mode: 'word', limit: 5 })).items).toHaveLength(5);
  });

  it('a stopped worker rebuild rolls its chunk back, and the next one resumes from the watermark', async () => {
    const port = new SqliteSearchIndex(sqlitePath(t.url));
    let betweens = 0;
    await expect(
      port.rebuild(t.store.db, {
        stopMs: 0,
        between: async () => {
          if (++betweens === 3) throw new Error('stopped by shutdown');
        },
      }),
    ).rejects.toThrow('shutdown');
    expect(await port.inProgress(t.store.db)).toBe(true);
    const watermark = await sql<{
      value: string;
    }>`select value from store_meta where key = 'search_rebuild_watermark'`.execute(t.store.db);
    expect(Number(watermark.rows[0].value)).toBeGreaterThan(0);
    const events: ChunkEvent[] = [];
    const stopObserving = observeChunks((event) => events.push(event));
    try {
      await port.rebuild(t.store.db, { between: async () => undefined });
    } finally {
      stopObserving();
    }
    // Resumed above the watermark: fewer rows than the whole store.
    const rows = events.filter((event) => event.operation === 'search-rebuild').reduce((sum, e) => sum + e.rows, 0);
    expect(rows).toBeLessThan(4 * PER_SESSION);
    expect((await t.store.searchIndex.status(admin, true)).integrity?.ok).toBe(true);
  });
});
