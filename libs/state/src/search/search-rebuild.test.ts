import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
