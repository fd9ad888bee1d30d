import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHUNK_STOP_MS, type ChunkEvent, observeChunks } from '../db/chunks.js';
import { ManualClock } from '../shared/clock.js';
import { openStore } from '../store.js';
import {
  adminPrincipal,
  contextOf,
  EVERY_MESSAGE,
  openTestStore,
  silentLogger,
  TEST_DIALECTS,
  type TestStore,
  tokensOf,
} from '../testing/index.js';
import { DELETION_PURGE_WORK } from './deletion.engine.js';
import {
  BRANCH_ABANDONED_AFTER_MS,
  BRANCH_COPY_WORK,
  BRANCH_IN_CHUNKS_ABOVE,
  HIDDEN_FOR_BRANCH,
} from './lineage.service.js';

const admin = contextOf(adminPrincipal);
const all = { limit: 1000, ...EVERY_MESSAGE } as const;
const listAll = {
  profile: 'big',
  status: 'all',
  archived: 'include',
  includeChildren: true,
  includeHidden: true,
  limit: 200,
  order: 'started',
} as const;

/**
 * Branching a huge session (docs/decisions/0019-hidden-rows-for-huge-sessions.md): the copy of 10⁵
 * messages held SQLite's write lock for seconds in one transaction. A huge branch now copies first, in time-boxed chunks into a hidden child, and
 * checks and reveals last; a small one stays one transaction.
 */
for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`branching a huge session on ${dialect}`, () => {
    const clock = new ManualClock(Date.UTC(2026, 7, 1));
    const TOTAL = BRANCH_IN_CHUNKS_ABOVE * 2 + 345;
    let t: TestStore;
    const defaultPause = () => new Promise<void>((resolve) => setImmediate(resolve));

    /** Every 7th message hidden (not counted), every 5th with a tool call, one unique word at 4321. */
    async function seedHuge(id: string, total: number) {
      await t.store.sessions.create(admin, { id, profile: 'big', source: 'cli', title: `Title ${id}` });
      for (let from = 0; from < total; from += 1000) {
        await t.store.messages.append(
          admin,
          id,
          {
            messages: Array.from({ length: Math.min(1000, total - from) }, (_, k) => {
              const i = from + k;
              return {
                role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
                content: i === 4321 ? `needle${id} ${i}` : `words of ${id} number ${i}`,
                ...(i % 7 === 0 ? { displayKind: 'hidden' as const } : {}),
                ...(i % 5 === 0 ? { toolCalls: [{ id: `call-${i}` }] } : {}),
              };
            }),
          },
          {},
        );
      }
    }
    const transcript = async (id: string) => {
      const out: unknown[] = [];
      let cursor: string | undefined;
      do {
        const page = await t.store.messages.list(admin, id, { ...all, ...(cursor ? { cursor } : {}) });
        out.push(...page.items.map(({ id: _id, sessionId: _sessionId, ...rest }) => rest as Record<string, unknown>));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return out;
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
      return { session, messages: Number(rows[0].n) };
    };
    const work = () => t.store.db.selectFrom('deferred_work').select(['kind', 'subject']).orderBy('kind').execute();
    const usageOf = (id: string) =>
      t.store.db
        .selectFrom('session_usage')
        .select(['hour_start', 'source', 'model', 'profile', 'conversations', 'sessions', 'messages'])
        .where('session_id', '=', id)
        .execute();

    beforeAll(async () => {
      t = await openTestStore(dialect, { clock });
      await seedHuge('giant', TOTAL);
    });
    afterAll(async () => {
      t?.store.lineage.tuneBranchCopy({ between: defaultPause });
      await t?.close();
    });

    it('copies in time-boxed chunks and ends with the same child as the one-transaction path', async () => {
      const chunks: ChunkEvent[] = [];
      const stop = observeChunks((event) => {
        if (event.operation === 'branch') chunks.push(event);
      });
      let chunked: Awaited<ReturnType<typeof t.store.lineage.branch>>;
      try {
        chunked = await t.store.lineage.branch(
          admin,
          'giant',
          { childId: 'giant-chunked' },
          await tokensOf(t.store, 'giant'),
        );
      } finally {
        stop();
      }
      // Every copied message went in a chunk of its own transaction after the first one, each
      // time-boxed (no step started once its box was spent); how many chunks depends on the machine.
      expect(chunks.length).toBeGreaterThan(0);
      expect(chunks.reduce((sum, chunk) => sum + chunk.rows, 0)).toBe(TOTAL);
      for (const chunk of chunks) expect(chunk.lastStepStartMs).toBeLessThan(CHUNK_STOP_MS + 5);
      await t.store.deferred.idle();
      expect(await work()).toEqual([]);

      // The one-transaction path, for comparison (same parent, same clock).
      t.store.lineage.tuneBranchCopy({ inChunksAbove: 1_000_000_000 });
      const whole = await t.store.lineage
        .branch(admin, 'giant', { childId: 'giant-whole', title: 'whole' }, await tokensOf(t.store, 'giant'))
        .finally(() => t.store.lineage.tuneBranchCopy({ inChunksAbove: BRANCH_IN_CHUNKS_ABOVE }));

      const counted = Array.from({ length: TOTAL }, (_, i) => i).filter((i) => i % 7 !== 0).length;
      expect(chunked.child).toMatchObject({
        id: 'giant-chunked',
        parentSessionId: 'giant',
        lineageKind: 'branch',
        title: 'Title giant (branch)',
        titleSource: 'derived',
        messageCount: counted,
        toolCallCount: Math.ceil(TOTAL / 5),
      });
      const { id: _a, title: _ta, titleSource: _sa, ...chunkedRest } = chunked.child;
      const { id: _b, title: _tb, titleSource: _sb, ...wholeRest } = whole.child;
      expect(chunkedRest).toEqual(wholeRest);
      expect(chunked.parent).toEqual(whole.parent);
      expect(await t.store.sessions.get(admin, 'giant-chunked')).toMatchObject({ ...chunkedRest });
      const [copied, reference] = [await transcript('giant-chunked'), await transcript('giant-whole')];
      expect(copied).toHaveLength(TOTAL);
      expect(copied).toEqual(reference);
      expect(await usageOf('giant-chunked')).toEqual(await usageOf('giant-whole'));
      // Search finds the copies; lineage has the edge.
      const hits = await t.store.search.search(admin, { q: 'needlegiant', mode: 'word', limit: 10 });
      expect(hits.items.map((hit) => hit.sessionId).sort()).toEqual(['giant', 'giant-chunked', 'giant-whole']);
      const lineage = await t.store.lineage.lineageOf(admin, 'giant');
      expect(lineage.edges).toContainEqual({ from: 'giant', to: 'giant-chunked', kind: 'branch' });
    });

    it('a user title already taken fails before anything is copied', async () => {
      const chunks: ChunkEvent[] = [];
      const stop = observeChunks((event) => {
        if (event.operation === 'branch') chunks.push(event);
      });
      try {
        await expect(
          t.store.lineage.branch(
            admin,
            'giant',
            { childId: 'giant-titled', title: 'whole' },
            await tokensOf(t.store, 'giant'),
          ),
        ).rejects.toMatchObject({ code: 'title_conflict' });
      } finally {
        stop();
      }
      expect(chunks).toEqual([]);
      expect(await rowsOf('giant-titled')).toEqual({ session: undefined, messages: 0 });
      expect(await work()).toEqual([]);
    });

    it('the child is invisible until revealed', async () => {
      const seen: Array<Record<string, unknown>> = [];
      t.store.lineage.tuneBranchCopy({
        between: async () => {
          if (seen.length > 0) return;
          const get = await t.store.sessions.get(admin, 'giant-hidden').then(
            () => 'found',
            (error) => error.code,
          );
          const listed = (await t.store.sessions.list(admin, listAll)).items.map((item) => item.id);
          const hits = await t.store.search.search(admin, { q: 'needlegiant', mode: 'word', limit: 10 });
          seen.push({
            get,
            listed: listed.includes('giant-hidden'),
            searched: hits.items.some((hit) => hit.sessionId === 'giant-hidden'),
            row: (await rowsOf('giant-hidden')).session,
            stats: (await usageOf('giant-hidden')).length,
          });
        },
      });
      try {
        await t.store.lineage.branch(admin, 'giant', { childId: 'giant-hidden' }, await tokensOf(t.store, 'giant'));
      } finally {
        t.store.lineage.tuneBranchCopy({ between: defaultPause });
      }
      expect(seen).toEqual([
        {
          get: 'not_found',
          listed: false,
          searched: false,
          row: { hidden_for: HIDDEN_FOR_BRANCH, title: null },
          stats: 0,
        },
      ]);
      expect(await t.store.sessions.get(admin, 'giant-hidden')).toMatchObject({ title: 'Title giant (branch) (2)' });
    });

    it('an append to the parent during the copy came first: revision_conflict, and no child is left', async () => {
      const before = await tokensOf(t.store, 'giant');
      let appended = false;
      t.store.lineage.tuneBranchCopy({
        between: async () => {
          if (appended) return;
          appended = true;
          await t.store.messages.append(admin, 'giant', { messages: [{ role: 'user', content: 'meanwhile' }] }, {});
        },
      });
      try {
        await expect(t.store.lineage.branch(admin, 'giant', { childId: 'giant-raced' }, before)).rejects.toMatchObject({
          code: 'revision_conflict',
          extra: { currentRevision: before.ifMatch + 1 },
        });
      } finally {
        t.store.lineage.tuneBranchCopy({ between: defaultPause });
      }
      expect(appended).toBe(true);
      await t.store.deferred.idle();
      expect(await rowsOf('giant-raced')).toEqual({ session: undefined, messages: 0 });
      expect(await usageOf('giant-raced')).toEqual([]);
      expect(await work()).toEqual([]);
      // The same request with the current tokens succeeds (the id is free again).
      const { child } = await t.store.lineage.branch(
        admin,
        'giant',
        { childId: 'giant-raced' },
        await tokensOf(t.store, 'giant'),
      );
      expect(child.messageCount).toBe(Array.from({ length: TOTAL }, (_, i) => i).filter((i) => i % 7 !== 0).length + 1);
    });

    it('a crash mid-copy: a fresh hidden child is left alone, a stale one is removed by a later deferred-work pass', async () => {
      // The copying process stands still after its first chunk (a crash, from the store's point of view).
      let stalled!: () => void;
      let resume!: () => void;
      const reached = new Promise<void>((resolve) => (stalled = resolve));
      t.store.lineage.tuneBranchCopy({
        between: () => {
          stalled();
          return new Promise<void>((resolve) => (resume = resolve));
        },
      });
      const branching = t.store.lineage
        .branch(admin, 'giant', { childId: 'giant-crashed' }, await tokensOf(t.store, 'giant'))
        .then(
          () => 'revealed',
          (error) => error.code as string,
        );
      try {
        await reached;
        await t.store.deferred.idle();
        const partial = await rowsOf('giant-crashed');
        expect(partial.session).toEqual({ hidden_for: HIDDEN_FOR_BRANCH, title: null });
        expect(partial.messages).toBeGreaterThan(0);
        expect(partial.messages).toBeLessThan(TOTAL);
        expect(await work()).toEqual([{ kind: BRANCH_COPY_WORK, subject: 'giant-crashed' }]);

        // A pass while the copy is fresh leaves it (and its work row) for a later pass.
        clock.advance(BRANCH_ABANDONED_AFTER_MS / 6);
        expect(await t.store.deferred.drain()).toBe(0);
        expect((await rowsOf('giant-crashed')).session).toEqual({ hidden_for: HIDDEN_FOR_BRANCH, title: null });
        expect(await work()).toEqual([{ kind: BRANCH_COPY_WORK, subject: 'giant-crashed' }]);

        // Another process serves the deferred-work job well after the copy stopped: it goes, in the purge's chunks.
        clock.advance(BRANCH_ABANDONED_AFTER_MS * 2);
        const purged: ChunkEvent[] = [];
        const stop = observeChunks((event) => {
          if (event.operation === 'deletion') purged.push(event);
        });
        const recovering = await openStore({ url: t.url, clock, logger: silentLogger, migrate: false });
        try {
          recovering.jobs.configure('deferred-work', 60_000);
          const report = await recovering.jobs.runNow('deferred-work', 'recovering-process');
          expect(report).toMatchObject({ outcome: 'ran', summary: { finished: 2 } });
        } finally {
          stop();
          await recovering.close();
        }
        expect(purged.reduce((sum, chunk) => sum + chunk.rows, 0)).toBe(partial.messages);
        expect(await rowsOf('giant-crashed')).toEqual({ session: undefined, messages: 0 });
        expect(await work()).toEqual([]);
      } finally {
        // The stalled copier resumes: its next chunk finds its child gone and fails cleanly.
        t.store.lineage.tuneBranchCopy({ between: defaultPause });
        resume?.();
      }
      expect(await branching).toBe('store_unavailable');
      await t.store.deferred.idle();
      expect(await rowsOf('giant-crashed')).toEqual({ session: undefined, messages: 0 });
      expect(await work()).toEqual([]);
      await expect(t.store.sessions.get(admin, 'giant-crashed')).rejects.toMatchObject({ code: 'not_found' });
    });

    it('a small branch is still one transaction: no chunks, no deferred work', async () => {
      const chunks: ChunkEvent[] = [];
      const stop = observeChunks((event) => {
        if (event.operation === 'branch') chunks.push(event);
      });
      try {
        const firstPage = await t.store.messages.list(admin, 'giant', { ...all, limit: 50 });
        const upto = firstPage.items[49].id;
        const { child } = await t.store.lineage.branch(
          admin,
          'giant',
          { childId: 'giant-small', uptoMessageId: upto },
          await tokensOf(t.store, 'giant'),
        );
        expect(child.messageCount).toBe(firstPage.items.filter((m) => m.displayKind !== 'hidden').length);
        expect(await work()).toEqual([]);
      } finally {
        stop();
      }
      expect(chunks).toEqual([]);
      expect(await work()).not.toContainEqual(expect.objectContaining({ kind: DELETION_PURGE_WORK }));
    });
  });
}
