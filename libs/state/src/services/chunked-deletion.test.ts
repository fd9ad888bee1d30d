import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ChunkEvent, observeChunks } from '../db/chunks.js';
import { MessageRepository } from '../repositories/message.repository.js';
import { ManualClock } from '../shared/clock.js';
import { adminPrincipal, aSession, contextOf, openTestStore, TEST_DIALECTS, type TestStore } from '../testing/index.js';
import { FIRST_CHUNK_MESSAGES } from './deletion-chunks.js';
import { COMPACTION_CHUNK } from './lineage.service.js';

const admin = contextOf(adminPrincipal);
const DAY = 24 * 60 * 60 * 1000;

/** Long operations over many rows run as several bounded transactions, each with its own receipts. */
for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`chunked deletions and compaction on ${dialect}`, () => {
    const clock = new ManualClock(Date.UTC(2026, 3, 1));
    let t: TestStore;
    const writeLocks: number[] = [];

    beforeAll(async () => {
      t = await openTestStore(dialect, { clock, onWriteLock: (ms) => writeLocks.push(ms) });
    });
    afterAll(async () => t?.close());

    async function seed(prefix: string, sessions: number, messages: number, profile = 'chunk') {
      const ids: string[] = [];
      for (let s = 0; s < sessions; s++) {
        const id = `${prefix}-${s}`;
        await aSession(t.store, {
          id,
          profile,
          messages: Array.from({ length: messages }, (_, i) => ({ role: 'user' as const, content: `${id} line ${i}` })),
        });
        ids.push(id);
      }
      return ids;
    }

    /** Every removed session is named by exactly one receipt, and every receipt's sessions are gone. */
    async function expectReceiptsMatch(deletedIds: string[], operationIds: string[], on: TestStore = t) {
      const named: string[] = [];
      for (const operationId of operationIds) {
        const receipt = await on.store.receipts.get(admin, operationId);
        named.push(...receipt.identities.map((identity) => identity.id));
      }
      expect(named.sort()).toEqual([...deletedIds].sort());
      const { rows } = await sql<{ n: number }>`select count(*) as n from sessions where id in (${sql.join(
        deletedIds,
      )})`.execute(on.store.db);
      expect(Number(rows[0].n)).toBe(0);
    }

    it('[storage.chunked-maintenance] a bulk delete larger than one chunk goes in several transactions, each with its receipt', async () => {
      const ids = await seed('bulk', 12, 400);
      const items = await Promise.all(
        ids.map(async (id) => {
          const session = await t.store.sessions.get(admin, id);
          return { id, revision: session.revision, generation: session.generation };
        }),
      );
      items.push({ id: 'missing-one', revision: 1, generation: 0 });
      const result = await t.store.deletion.bulkDelete(admin, { items, includeCompressionChain: false });
      expect(result.deletedIds.sort()).toEqual([...ids].sort());
      expect(result.skipped).toEqual([{ id: 'missing-one', reason: 'not_found' }]);
      expect(result.receipts.length).toBeGreaterThan(1);
      await expectReceiptsMatch(
        result.deletedIds,
        result.receipts.map((receipt) => receipt.operationId),
      );
    });

    it('a small bulk delete stays one transaction with one receipt', async () => {
      const ids = await seed('small', 3, 5);
      const items = await Promise.all(
        ids.map(async (id) => {
          const session = await t.store.sessions.get(admin, id);
          return { id, revision: session.revision, generation: session.generation };
        }),
      );
      const result = await t.store.deletion.bulkDelete(admin, { items, includeCompressionChain: false });
      expect(result.receipts).toHaveLength(1);
      expect(result.deletedIds).toHaveLength(3);
    });

    it('[storage.chunked-maintenance] retention over many sessions removes them in chunks, re-checking each chunk', async () => {
      const ids = await seed('old', 10, 500, 'aging');
      for (const id of ids) {
        await t.store.sessions.end(
          admin,
          id,
          { reason: 'cli_close' },
          { ifMatch: (await t.store.sessions.get(admin, id)).revision },
        );
      }
      // One of them is pinned after the selection would have seen it: its chunk re-checks and keeps it.
      clock.advance(40 * DAY);
      let chunks = 0;
      let pinned: string | undefined;
      const result = await t.store.deletion.retentionPrune(
        admin,
        { olderThanDays: 30, profile: 'aging', dryRun: false },
        async () => {
          chunks++;
          if (chunks > 1) return;
          const remaining = await t.store.db
            .selectFrom('sessions')
            .select('id')
            .where('profile', '=', 'aging')
            .execute();
          pinned = remaining[remaining.length - 1].id;
          const session = await t.store.sessions.get(admin, pinned);
          await t.store.sessions.update(admin, pinned, { pinned: true }, { ifMatch: session.revision });
        },
      );
      expect(chunks).toBeGreaterThan(0);
      expect(result.receipts.length).toBeGreaterThan(1);
      expect(result.candidates).toHaveLength(10);
      expect(result.deletedIds).toHaveLength(9);
      expect(result.deletedIds).not.toContain(pinned);
      await expectReceiptsMatch(
        result.deletedIds,
        result.receipts.map((receipt) => receipt.operationId),
      );
      expect((await t.store.sessions.get(admin, pinned!)).pinned).toBe(true);
    });

    it('a retention pass starts with a small chunk, not with 2 000 messages in one transaction', async () => {
      // Its own store: the deletion service sizes chunks from the ones before (this file's other tests).
      const fresh = await openTestStore(dialect, { clock });
      try {
        for (let s = 0; s < 30; s++) {
          const id = `step-${s}`;
          await aSession(fresh.store, {
            id,
            profile: 'stepping',
            messages: Array.from({ length: 100 }, (_, i) => ({ role: 'user' as const, content: `${id} line ${i}` })),
          });
          await fresh.store.sessions.end(
            admin,
            id,
            { reason: 'cli_close' },
            { ifMatch: (await fresh.store.sessions.get(admin, id)).revision },
          );
        }
        clock.advance(40 * DAY);
        const chunks: ChunkEvent[] = [];
        const stop = observeChunks((event) => {
          if (event.operation === 'deletion') chunks.push(event);
        });
        const result = await fresh.store.deletion
          .retentionPrune(admin, { olderThanDays: 30, profile: 'stepping', dryRun: false })
          .finally(stop);
        expect(result.deletedIds).toHaveLength(30);
        await expectReceiptsMatch(
          result.deletedIds,
          result.receipts.map((receipt) => receipt.operationId),
          fresh,
        );
        // 3 000 messages: chunked, starting at FIRST_CHUNK_MESSAGES rather than at 2 000 (≈ 50 ms of
        // SQLite on the event loop in one slice before).
        expect(chunks.length).toBeGreaterThan(1);
        expect(chunks[0].rows).toBeLessThanOrEqual(FIRST_CHUNK_MESSAGES);
      } finally {
        await fresh.close();
      }
    });

    it('[profiles.delete] deleting a large profile with its sessions goes in chunks, each with a profile_delete receipt', async () => {
      const ids = await seed('prof', 8, 500, 'departing');
      const result = await t.store.profileAdmin.delete(admin, 'departing', { deleteSessions: true, dryRun: false });
      expect(result).toMatchObject({ profileRemoved: true, counts: { sessions: 8, messages: 4000 } });
      expect(result.receipts.length).toBeGreaterThan(1);
      expect(result.receipt).toEqual(result.receipts[0]);
      for (const ref of result.receipts) {
        expect((await t.store.receipts.get(admin, ref.operationId)).origin).toBe('profile_delete');
      }
      await expectReceiptsMatch(
        ids,
        result.receipts.map((receipt) => receipt.operationId),
      );
      expect((await t.store.profiles.list(admin)).map((profile) => profile.name)).not.toContain('departing');
    });

    it('compressing a huge session archives its transcript in chunks after commit, resumable after a crash', async () => {
      const total = COMPACTION_CHUNK * 2 + 321;
      await aSession(t.store, { id: 'huge', profile: 'chunk' });
      for (let from = 0; from < total; from += 1000) {
        await t.store.messages.append(
          admin,
          'huge',
          {
            messages: Array.from({ length: Math.min(1000, total - from) }, (_, i) => ({
              role: 'user' as const,
              content: `huge ${from + i}`,
            })),
          },
          {},
        );
      }
      const parent = await t.store.sessions.get(admin, 'huge');
      writeLocks.length = 0;
      await t.store.lineage.compress(
        admin,
        'huge',
        { summary: 'summary of a huge session', keepLastMessages: 2 },
        { ifMatch: parent.revision, expectedGeneration: parent.generation },
      );
      await t.store.deferred.idle();
      const counts = async () =>
        (
          await sql<{
            open: number;
          }>`select count(*) as open from messages where session_id = 'huge' and active = 1 and compacted = 0`.execute(
            t.store.db,
          )
        ).rows[0];
      expect(Number((await counts()).open)).toBe(0);
      // The compression itself and at least two continuation chunks, each a transaction of its own.
      expect(writeLocks.length).toBeGreaterThanOrEqual(dialect === 'sqlite' ? 3 : 0);
      expect(await t.store.db.selectFrom('deferred_work').selectAll().execute()).toEqual([]);

      // A crash between chunks leaves the work recorded; the deferred-work job finishes it.
      await sql`update messages set compacted = 0 where session_id = 'huge' and id % 3 = 0`.execute(t.store.db);
      await t.store.db
        .insertInto('deferred_work')
        .values({ kind: 'compaction', subject: 'huge', created_at: clock.now() })
        .execute();
      t.store.jobs.configure('deferred-work', 60_000);
      const report = await t.store.jobs.runNow('deferred-work', 'recovering-process');
      t.store.jobs.configure('deferred-work', 0);
      expect(report).toMatchObject({ outcome: 'ran', summary: { finished: 1 } });
      expect(Number((await counts()).open)).toBe(0);
    });

    /**
     * A session of `total` messages (appended 1 000 at a time) compressed with nothing kept, its
     * deferred archiving awaited: what `markCompacted` was asked for that session, and answered.
     */
    async function compressWatchingSteps(id: string, total: number) {
      await aSession(t.store, { id, profile: 'chunk' });
      for (let from = 0; from < total; from += 1000) {
        await t.store.messages.append(
          admin,
          id,
          {
            messages: Array.from({ length: 1000 }, (_, i) => ({ role: 'user' as const, content: `${id} ${from + i}` })),
          },
          {},
        );
      }
      const parent = await t.store.sessions.get(admin, id);
      const steps = vi.spyOn(MessageRepository.prototype, 'markCompacted');
      try {
        await t.store.lineage.compress(
          admin,
          id,
          { summary: 'summary', keepLastMessages: 0 },
          { ifMatch: parent.revision, expectedGeneration: parent.generation },
        );
        await t.store.deferred.idle();
        const mine = steps.mock.calls.flatMap((call, i) => (call[1] === id ? [i] : []));
        return {
          calls: mine.map((i) => steps.mock.calls[i]),
          marked: await Promise.all(
            mine.map(async (i) => (await (steps.mock.results[i].value as Promise<number[]>)).length),
          ),
        };
      } finally {
        steps.mockRestore();
      }
    }

    it('a compression of a few thousand messages answers after archiving one bounded chunk; the rest follows', async () => {
      // 3 000 messages: one transaction archived them all before (5 000 per compression's own
      // transaction: 30–61 ms of write lock and event loop in one slice for a large transcript).
      const total = 3000;
      const { marked } = await compressWatchingSteps('mid', total);
      expect(marked[0]).toBe(1000);
      expect(marked.length).toBeGreaterThanOrEqual(2);
      expect(marked.reduce((sum, n) => sum + n, 0)).toBe(total);
      const open = await t.store.db
        .selectFrom('messages')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('session_id', '=', 'mid')
        .where('compacted', '=', 0)
        .executeTakeFirstOrThrow();
      expect(Number(open.n)).toBe(0);
    });

    it('a compaction continues after the last message it archived: no step walks the archived prefix again', async () => {
      const { calls } = await compressWatchingSteps('seek', COMPACTION_CHUNK + 3000);
      // The compression's own step, then the continuation's from the start (it may resume a crashed
      // pass) and each later one after the highest id marked so far.
      const afters = calls.slice(1).map((call) => Number(call[3] ?? 0));
      expect(afters.length).toBeGreaterThanOrEqual(2);
      expect(afters[0]).toBe(0);
      const ids = (
        await t.store.db.selectFrom('messages').select('id').where('session_id', '=', 'seek').orderBy('id').execute()
      ).map((row) => Number(row.id));
      for (let i = 1; i < afters.length; i++) {
        expect(afters[i]).toBeGreaterThan(afters[i - 1]);
        expect(ids).toContain(afters[i]);
      }
      // The first continuation step ran after the compression's chunk: it started past it.
      expect(afters[1]).toBeGreaterThanOrEqual(ids[COMPACTION_CHUNK - 1]);
      const open = await t.store.db
        .selectFrom('messages')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('session_id', '=', 'seek')
        .where('compacted', '=', 0)
        .executeTakeFirstOrThrow();
      expect(Number(open.n)).toBe(0);
    });
  });
}
