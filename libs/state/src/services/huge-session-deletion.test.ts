import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { CHUNK_STOP_MS, type ChunkEvent, observeChunks } from '../db/chunks.js';
import { ManualClock } from '../shared/clock.js';
import { openStore } from '../store.js';
import { adminPrincipal, aSession, contextOf, silentLogger, TEST_DIALECTS } from '../testing/index.js';
import { useTestStore } from '../testing/suites.js';
import { DELETION_PURGE_WORK, HIDDEN_FOR_DELETION, PURGE_LATER_ABOVE_MESSAGES } from './deletion.engine.js';

const admin = contextOf(adminPrincipal);

/**
 * Deleting one huge session: the deletion's transaction writes the receipt and takes the session
 * away from every reader; its rows go afterwards in bounded chunks (they held SQLite's write lock
 * ≈ 1.5 s per 10⁵ messages in one transaction).
 */
for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`deleting a huge session on ${dialect}`, () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1));
    const t = useTestStore(dialect, { clock });

    async function seedHuge(id: string, total: number, word: string) {
      await aSession(t.store, { id, profile: 'huge', title: `title of ${id}` });
      for (let from = 0; from < total; from += 1000) {
        await t.store.messages.append(
          admin,
          id,
          {
            messages: Array.from({ length: Math.min(1000, total - from) }, (_, i) => ({
              role: 'user' as const,
              content: `${word} ${from + i}`,
              tokenCount: 3,
            })),
          },
          {},
        );
      }
    }

    const preconditions = async (id: string) => {
      const s = await t.store.sessions.get(admin, id);
      return { ifMatch: s.revision, expectedGeneration: s.generation };
    };
    const rowsOf = async (id: string) => {
      const session = await t.store.db
        .selectFrom('sessions')
        .select(['hidden_for', 'title'])
        .where('id', '=', id)
        .executeTakeFirst();
      const { rows } = await sql<{ n: number }>`select count(*) as n from messages where session_id = ${id}`.execute(
        t.store.db,
      );
      const usage = await sql<{ n: number }>`select count(*) as n from session_usage where session_id = ${id}`.execute(
        t.store.db,
      );
      return { session, messages: Number(rows[0].n), usageRows: Number(usage.rows[0].n) };
    };

    it('its rows go in several bounded transactions after the one that wrote the receipt', async () => {
      const total = PURGE_LATER_ABOVE_MESSAGES * 3 + 123;
      await seedHuge('giant', total, 'gigantic');
      const chunks: ChunkEvent[] = [];
      const stop = observeChunks((event) => {
        if (event.operation === 'deletion') chunks.push(event);
      });
      try {
        const result = await t.store.deletion.deleteOne(
          admin,
          'giant',
          { includeCompressionChain: false, ifEmpty: false },
          await preconditions('giant'),
        );
        expect(result.deletedIds).toEqual(['giant']);
        const receipt = await t.store.receipts.get(admin, result.receipt!.operationId);
        expect(receipt.counts).toMatchObject({ sessions: 1, messages: total });
        await t.store.deferred.idle();
      } finally {
        stop();
      }
      expect(await rowsOf('giant')).toEqual({ session: undefined, messages: 0, usageRows: 0 });
      // Every message went in the purge's chunks after the deleting transaction (none in it), each
      // chunk time-boxed: no step started once its box was spent. How many chunks depends on the
      // machine (a fast PostgreSQL removes thousands of rows inside one box).
      expect(chunks.length).toBeGreaterThan(0);
      expect(chunks.reduce((sum, chunk) => sum + chunk.rows, 0)).toBe(total);
      for (const chunk of chunks) expect(chunk.lastStepStartMs).toBeLessThan(CHUNK_STOP_MS + 5);
      expect(await t.store.db.selectFrom('deferred_work').selectAll().execute()).toEqual([]);
    });

    it('a small session still goes with its receipt in one transaction', async () => {
      await aSession(t.store, {
        id: 'tiny',
        profile: 'huge',
        messages: [{ role: 'user', content: 'a few words' }],
      });
      await t.store.deletion.deleteOne(
        admin,
        'tiny',
        { includeCompressionChain: false, ifEmpty: false },
        await preconditions('tiny'),
      );
      // Nothing deferred: the row is gone when the call returns.
      expect(await rowsOf('tiny')).toEqual({ session: undefined, messages: 0, usageRows: 0 });
      expect(await t.store.db.selectFrom('deferred_work').selectAll().execute()).toEqual([]);
    });

    it('interrupted before its rows are gone: deleted for every reader, finished by the deferred-work job of another process', async () => {
      await seedHuge('colossus', PURGE_LATER_ABOVE_MESSAGES + 500, 'colossal');
      expect((await t.store.search.search(admin, { q: 'colossal', mode: 'word', limit: 5 })).items).toHaveLength(5);
      // This process "crashes" before it removes any row: its purge fails, the recorded work stays.
      t.store.deferred.handle(DELETION_PURGE_WORK, async () => {
        throw new Error('killed before the purge');
      });
      const result = await t.store.deletion.deleteOne(
        admin,
        'colossus',
        { includeCompressionChain: false, ifEmpty: false },
        await preconditions('colossus'),
      );
      await t.store.deferred.idle();
      expect(result.deletedIds).toEqual(['colossus']);
      // The rows are still there, hidden; for every reader the session is gone with its receipt.
      expect(await rowsOf('colossus')).toEqual({
        session: { hidden_for: HIDDEN_FOR_DELETION, title: null },
        messages: PURGE_LATER_ABOVE_MESSAGES + 500,
        usageRows: 0,
      });
      await expect(t.store.sessions.get(admin, 'colossus')).rejects.toMatchObject({ code: 'not_found' });
      const listed = await t.store.sessions.list(admin, {
        profile: 'huge',
        status: 'all',
        archived: 'include',
        includeChildren: true,
        includeHidden: true,
        limit: 50,
        order: 'started',
      });
      expect(listed.items.map((item) => item.id)).not.toContain('colossus');
      expect((await t.store.search.search(admin, { q: 'colossal', mode: 'word', limit: 5 })).items).toEqual([]);
      await expect(
        t.store.messages.append(admin, 'colossus', { messages: [{ role: 'user', content: 'late' }] }, {}),
      ).rejects.toMatchObject({ code: 'not_found' });
      // Its title is free again at once (titles are unique per profile).
      await aSession(t.store, { id: 'heir', profile: 'huge', title: 'title of colossus' });
      expect(await t.store.db.selectFrom('deferred_work').select(['kind', 'subject']).execute()).toEqual([
        { kind: DELETION_PURGE_WORK, subject: 'colossus' },
      ]);

      // Another process on the same store serves the deferred-work job and finishes the removal.
      const recovering = await openStore({ url: t.url, clock, logger: silentLogger, migrate: false });
      try {
        recovering.jobs.configure('deferred-work', 60_000);
        const report = await recovering.jobs.runNow('deferred-work', 'recovering-process');
        expect(report).toMatchObject({ outcome: 'ran', summary: { finished: 1 } });
      } finally {
        await recovering.close();
      }
      expect(await rowsOf('colossus')).toEqual({ session: undefined, messages: 0, usageRows: 0 });
      expect(await t.store.db.selectFrom('deferred_work').selectAll().execute()).toEqual([]);
      expect(await t.store.receipts.verify(admin)).toMatchObject({ ok: true });
    });

    it('a profile deleted with its sessions goes whole: one receipt per session, the huge one purged before the profile row', async () => {
      // Only the profile delete itself removes the rows: this process's deferred purge is "crashed".
      t.store.deferred.handle(DELETION_PURGE_WORK, async () => {
        throw new Error('killed before the purge');
      });
      await aSession(t.store, {
        id: 'departing-huge',
        profile: 'departing',
        messages: Array.from({ length: PURGE_LATER_ABOVE_MESSAGES + 300 }, (_, i) => ({
          role: 'user' as const,
          content: `departing ${i}`,
        })),
      });
      for (let s = 0; s < 3; s++) {
        await aSession(t.store, {
          id: `departing-${s}`,
          profile: 'departing',
          messages: [{ role: 'user', content: 'small' }],
        });
      }
      const result = await t.store.profileAdmin.delete(admin, 'departing', { deleteSessions: true, dryRun: false });
      expect(result.profileRemoved).toBe(true);
      const named: string[] = [];
      for (const ref of result.receipts) {
        named.push(...(await t.store.receipts.get(admin, ref.operationId)).identities.map((identity) => identity.id));
      }
      expect(named.sort()).toEqual(['departing-0', 'departing-1', 'departing-2', 'departing-huge']);
      expect(await t.store.db.selectFrom('sessions').select('id').where('profile', '=', 'departing').execute()).toEqual(
        [],
      );
      expect((await t.store.profiles.list(admin)).map((profile) => profile.name)).not.toContain('departing');
    });
  });
}
