import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { CHUNK_STOP_MS, type ChunkEvent, observeChunks } from '../../db/chunks.js';
import {
  adminPrincipal,
  buildHermesBulk,
  contextOf,
  dumpImportedState,
  importHermes,
  TEST_DIALECTS,
  type TestStore,
  UNSPLIT,
} from '../../testing/index.js';
import { type Scratch, useScratch } from '../../testing/suites.js';
import type { HermesSplitTuning } from '../import.service.js';

/**
 * The parts of a Hermes import that rewrite what is already here — an update with many new
 * messages, a replaced conflict, the stale rows of a half-imported session whose source changed —
 * go in bounded chunks like a new session does, and end where the one-transaction path ends.
 */
const admin = contextOf(adminPrincipal);
const PER_SESSION = 450;
/** What the source held at the first import, per session (the update appends the rest). */
const BEFORE = 50;
const SPLIT: HermesSplitTuning = { splitSessionsAbove: 200, maxSessionChunk: 100 };

const run = (t: TestStore, path: string, split: HermesSplitTuning, onConflict: 'skip' | 'replace' = 'skip') =>
  importHermes(t, { path, profile: 'bulk', onConflict, split });

/** The source file: 1 conversation of 4 sessions; `edit` changes it after it is built. */
function sourceFile(scratch: Scratch, edit?: (db: Database.Database) => void): string {
  const path = scratch.path('hermes-rewrite-');
  buildHermesBulk(path, { conversations: 1, messagesPerSession: PER_SESSION });
  if (edit) {
    const db = new Database(path);
    edit(db);
    db.close();
  }
  return path;
}

/** The first BEFORE messages of each session, and less usage: what an earlier copy of the store held. */
const earlierCopy = (db: Database.Database) => {
  db.prepare(
    `delete from messages where id not in (
       select id from messages m where m.session_id = messages.session_id order by id limit ${BEFORE})`,
  ).run();
  db.prepare(`update sessions set input_tokens = 400, output_tokens = 100 where id = 'c0-tip'`).run();
};

/** The dump without `revision`: an update in chunks bumps it once per chunk (each is a visible change). */
async function state(t: TestStore) {
  const dump = await dumpImportedState(t.store);
  return {
    ...dump,
    sessions: (dump.sessions as Record<string, unknown>[]).map(({ revision, ...row }) => row),
  };
}

/** Everything the overview and search read besides the rows. */
async function figures(t: TestStore) {
  const { rows: usage } = await sql<Record<string, unknown>>`
    select session_id, hour_start, source, model, profile, conversations, sessions, messages, input_tokens,
      output_tokens, cost_usd
    from session_usage order by session_id, hour_start, source, model`.execute(t.store.db);
  const { rows: daily } = await sql<Record<string, unknown>>`
    select day_start, profile, source, model, conversations, sessions, messages, input_tokens, output_tokens
    from usage_daily where sessions <> 0 or messages <> 0 or conversations <> 0 or input_tokens <> 0
    order by day_start, profile, source, model`.execute(t.store.db);
  const hits = (await t.store.search.search(admin, { q: 'deploy', mode: 'word', limit: 200 })).items.map((hit) => [
    hit.sessionId,
    hit.role,
  ]);
  const normalize = (rows: Record<string, unknown>[]) =>
    rows
      .map((row) =>
        Object.fromEntries(
          Object.entries(row).map(([key, value]) => [
            key,
            value === null ? null : Number.isNaN(Number(value)) ? value : Number(value),
          ]),
        ),
      )
      // A rollup row all of whose counters are 0 says nothing.
      .filter((row) => Object.entries(row).some(([key, value]) => !NON_COUNTERS.has(key) && value !== 0));
  return { usage: normalize(usage), daily: normalize(daily), hits: hits.sort() };
}
const NON_COUNTERS = new Set(['session_id', 'hour_start', 'day_start', 'source', 'model', 'profile']);

async function count(t: TestStore, query: ReturnType<typeof sql<{ n: number }>>) {
  const { rows } = await query.execute(t.store.db);
  return Number(rows[0].n);
}

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`Hermes import rewriting sessions in chunks on ${dialect}`, { timeout: 180_000 }, () => {
    const scratch = useScratch(dialect);
    /** The same conflicts made in two stores importing `path`: `markOther` marks them imported from another store. */
    const conflicted = async (path: string, markOther: (t: TestStore) => Promise<unknown>) => {
      const t = await scratch.open();
      await run(t, path, UNSPLIT);
      await markOther(t);
      return t;
    };
    /**
     * `path` replaced over its conflicts at once in a reference store and with `tuning` in another,
     * the purge's chunks observed.
     */
    const replacedBothWays = async (
      path: string,
      markOther: (t: TestStore) => Promise<unknown>,
      tuning: HermesSplitTuning,
    ) => {
      const reference = await conflicted(path, markOther);
      const whole = await run(reference, path, UNSPLIT, 'replace');
      const t = await conflicted(path, markOther);
      const purges: ChunkEvent[] = [];
      const stop = observeChunks((event) => {
        if (event.operation === 'deletion') purges.push(event);
      });
      try {
        const chunked = await run(t, path, tuning, 'replace');
        await t.store.deferred.idle();
        return { reference, whole, t, chunked, purges };
      } finally {
        stop();
      }
    };

    describe('a session imported before that gained many messages in the source', () => {
      it('appends them in chunks, each leaving the session consistent, and ends where one transaction ends', async () => {
        const before = sourceFile(scratch, earlierCopy);
        const after = sourceFile(scratch);
        const reference = await scratch.open();
        await run(reference, before, UNSPLIT);
        const whole = await run(reference, after, UNSPLIT);
        expect(whole.report.sessions).toEqual({ created: 0, updated: 4, skipped: 0, conflicts: 0 });
        expect(whole.longestUnitMessages).toBeGreaterThanOrEqual(PER_SESSION - BEFORE);

        const t = await scratch.open();
        await run(t, before, UNSPLIT);
        const revisions: number[] = [];
        const pauses: string[] = [];
        const chunked = await run(t, after, {
          ...SPLIT,
          betweenSessionChunks: async ({ sessionId }) => {
            pauses.push(sessionId);
            // Between two chunks the session is visible and consistent with what is committed:
            // its counter holds exactly its counted messages (rewound or hidden ones aside), the
            // rollups count the same messages, every new message is searchable, and its revision moved.
            const session = await t.store.sessions.get(admin, sessionId);
            const counted = await count(
              t,
              sql<{ n: number }>`select count(*) as n from messages
                where session_id = ${sessionId} and display_kind <> 'hidden' and (active = 1 or compacted = 1)`,
            );
            expect(session.messageCount).toBe(counted);
            const rolled = await count(
              t,
              sql<{
                n: number;
              }>`select coalesce(sum(messages), 0) as n from session_usage where session_id = ${sessionId}`,
            );
            expect(rolled).toBe(counted);
            const stored = await count(
              t,
              sql<{ n: number }>`select count(*) as n from messages where session_id = ${sessionId}`,
            );
            const ledger = await count(
              t,
              sql<{ n: number }>`select count(*) as n from import_messages where session_id = ${sessionId}`,
            );
            expect(ledger).toBe(stored);
            if (sessionId === 'c0-root') revisions.push(session.revision);
          },
        });
        expect(chunked.report.sessions).toEqual({ created: 0, updated: 4, skipped: 0, conflicts: 0 });
        expect(chunked.report.messages).toEqual(whole.report.messages);
        // Every session's 400 new messages went in chunks of at most 100 (3 pauses each at least).
        expect(chunked.longestUnitMessages).toBeLessThanOrEqual(100);
        for (const id of ['c0-root', 'c0-tip', 'c0-branch', 'c0-helper']) {
          expect(pauses.filter((p) => p === id).length).toBeGreaterThanOrEqual(3);
        }
        expect(revisions).toEqual([...revisions].sort((a, b) => a - b));
        expect(new Set(revisions).size).toBe(revisions.length);
        expect(await state(t)).toEqual(await state(reference));
        expect(await figures(t)).toEqual(await figures(reference));
        expect((await run(t, after, SPLIT)).report.sessions).toEqual({
          created: 0,
          updated: 0,
          skipped: 4,
          conflicts: 0,
        });
      });

      it('an interrupted update resumes after the messages it committed: one copy of each', async () => {
        const before = sourceFile(scratch, earlierCopy);
        const after = sourceFile(scratch);
        const reference = await scratch.open();
        await run(reference, before, UNSPLIT);
        await run(reference, after, UNSPLIT);

        const t = await scratch.open();
        await run(t, before, UNSPLIT);
        let crashedIn: string | undefined;
        await expect(
          run(t, after, {
            ...SPLIT,
            betweenSessionChunks: async ({ sessionId, messagesWritten }) => {
              // The second session, its second pause: the run dies as a crash would.
              if (sessionId !== 'c0-root' && messagesWritten > BEFORE + 100) {
                crashedIn = sessionId;
                throw new Error('simulated crash');
              }
            },
          }),
        ).rejects.toThrow('simulated crash');
        // Half-updated: visible, with the chunks it committed counted, the ledger snapshot still the old one.
        const half = await t.store.sessions.get(admin, crashedIn!);
        expect(half.messageCount).toBeGreaterThan(BEFORE);
        expect(half.messageCount).toBeLessThan(PER_SESSION - 10);

        const resumed = await run(t, after, SPLIT);
        expect(resumed.report.sessions).toMatchObject({ created: 0, conflicts: 0 });
        expect(await state(t)).toEqual(await state(reference));
        expect(await figures(t)).toEqual(await figures(reference));
      });
    });

    describe('a conflict replaced with --on-conflict=replace', () => {
      /** Imported from "another store": the ledger's identity of the helper no longer matches the file. */
      const otherStore = (t: TestStore) =>
        t.store.db
          .updateTable('import_sessions')
          .set({ identity: 'another-store' })
          .where('session_id', '=', 'c0-helper')
          .execute();

      it('removes the old rows in time-boxed chunks and writes the new session in chunks', async () => {
        const path = sourceFile(scratch);
        const { reference, whole, t, chunked, purges } = await replacedBothWays(path, otherStore, SPLIT);
        expect(whole.report.sessions).toEqual({ created: 0, updated: 1, skipped: 3, conflicts: 1 });
        expect(chunked.report.sessions).toEqual(whole.report.sessions);
        expect(chunked.report.messages).toEqual(whole.report.messages);
        // The old session's messages and their ledger entries went in the purge's time-boxed
        // chunks, none in the transaction that wrote the receipt; the new one in chunks of ≤ 100.
        expect(purges.length).toBeGreaterThan(0);
        expect(purges.reduce((sum, chunk) => sum + chunk.rows, 0)).toBe(2 * PER_SESSION);
        for (const chunk of purges) expect(chunk.lastStepStartMs).toBeLessThan(CHUNK_STOP_MS + 5);
        expect(chunked.longestUnitMessages).toBeLessThanOrEqual(100);
        expect(await state(t)).toEqual(await state(reference));
        expect(await figures(t)).toEqual(await figures(reference));
        for (const store of [t, reference]) {
          const receipts = await store.store.receipts.list(admin, { after: 0, limit: 10, origin: 'import_replace' });
          expect(receipts.items.map((r) => r.counts)).toEqual([
            { sessions: 1, messages: PER_SESSION, routes: 0, deliveries: 0, delegations: 0 },
          ]);
        }
        expect(await t.store.db.selectFrom('deferred_work').selectAll().execute()).toEqual([]);
      });

      it('interrupted while writing the new session: the re-run resumes it, the old one stays replaced', async () => {
        const path = sourceFile(scratch);
        const reference = await conflicted(path, otherStore);
        await run(reference, path, UNSPLIT, 'replace');

        const t = await conflicted(path, otherStore);
        await expect(
          run(
            t,
            path,
            {
              ...SPLIT,
              betweenSessionChunks: async ({ messagesWritten }) => {
                if (messagesWritten >= 200) throw new Error('simulated crash');
              },
            },
            'replace',
          ),
        ).rejects.toThrow('simulated crash');
        const resumed = await run(t, path, SPLIT, 'replace');
        expect(resumed.report.sessions.conflicts).toBe(0);
        await t.store.deferred.idle();
        expect(await state(t)).toEqual(await state(reference));
        expect(await figures(t)).toEqual(await figures(reference));
        const receipts = await t.store.receipts.list(admin, { after: 0, limit: 10, origin: 'import_replace' });
        expect(receipts.items).toHaveLength(1);
      });
    });

    describe('several replaced conflicts in one batch', () => {
      it('remove inline at most a chunk of old messages together; the rest is purged in chunks', async () => {
        // 4 sessions of 70 messages: all in the import's first batch (300 messages), whatever the machine.
        const SMALL = 70;
        const tuning: HermesSplitTuning = { splitSessionsAbove: 100 };
        const path = scratch.path('hermes-rewrite-');
        buildHermesBulk(path, { conversations: 1, messagesPerSession: SMALL });
        // Two leaves (no delegate children) imported from "another store": both conflicts, one batch.
        const otherStore = (t: TestStore) =>
          t.store.db
            .updateTable('import_sessions')
            .set({ identity: 'another-store' })
            .where('session_id', 'in', ['c0-branch', 'c0-helper'])
            .execute();
        // Each session (70 messages) is under the threshold (100), the two together are not.
        const { reference, whole, t, chunked, purges } = await replacedBothWays(path, otherStore, tuning);
        expect(whole.report.sessions).toEqual({ created: 0, updated: 2, skipped: 2, conflicts: 2 });
        expect(chunked.report.sessions).toEqual(whole.report.sessions);
        expect(purges.reduce((sum, chunk) => sum + chunk.rows, 0)).toBe(2 * SMALL);
        for (const chunk of purges) expect(chunk.lastStepStartMs).toBeLessThan(CHUNK_STOP_MS + 5);
        expect(await state(t)).toEqual(await state(reference));
        expect(await figures(t)).toEqual(await figures(reference));
      });
    });

    describe('a dry run', () => {
      it('meets a session still being purged as the store will be after, and purges nothing', async () => {
        const path = sourceFile(scratch);
        const t = await scratch.open();
        await run(t, path, UNSPLIT);
        // Deleted here, its purge still pending (the deferred work has not run yet).
        await t.store.db
          .updateTable('sessions')
          .set({ hidden_for: 'deletion', title: null })
          .where('id', '=', 'c0-helper')
          .execute();
        await t.store.db
          .updateTable('import_sessions')
          .set({ state: 'deleted', snapshot: null, messages_hash: null })
          .where('session_id', '=', 'c0-helper')
          .execute();
        const before = await dumpImportedState(t.store);
        const dry = await t.store.imports.runHermes(admin, {
          path,
          profile: 'bulk',
          onConflict: 'replace',
          dryRun: true,
          split: SPLIT,
        });
        expect(dry.report.sessions).toEqual({ created: 1, updated: 0, skipped: 3, conflicts: 0 });
        expect(await dumpImportedState(t.store)).toEqual(before);
        expect(
          await count(t, sql<{ n: number }>`select count(*) as n from messages where session_id = 'c0-helper'`),
        ).toBe(PER_SESSION);
      });
    });

    describe('a half-imported session whose source changed since', () => {
      it('its stale hidden rows are purged in time-boxed chunks, then it is written anew', async () => {
        const path = sourceFile(scratch);
        const t = await scratch.open();
        let crashed: { sessionId: string; messagesWritten: number } | undefined;
        await expect(
          run(t, path, {
            ...SPLIT,
            betweenSessionChunks: async ({ sessionId, messagesWritten }) => {
              if (messagesWritten >= 300) {
                crashed = { sessionId, messagesWritten };
                throw new Error('simulated crash');
              }
            },
          }),
        ).rejects.toThrow('simulated crash');
        // The source rewrote a message the half-imported session already holds.
        const db = new Database(path);
        db.prepare(
          `update messages set content = content || ' (edited)'
           where id = (select min(id) from messages where session_id = ?)`,
        ).run(crashed!.sessionId);
        db.close();
        const reference = await scratch.open();
        await run(reference, path, UNSPLIT);

        const purges: ChunkEvent[] = [];
        const stop = observeChunks((event) => {
          if (event.operation === 'deletion') purges.push(event);
        });
        let resumed: Awaited<ReturnType<typeof run>>;
        try {
          resumed = await run(t, path, SPLIT);
          await t.store.deferred.idle();
        } finally {
          stop();
        }
        // Every stale message and its ledger entry went in the purge's chunks (none with the writes).
        expect(purges.length).toBeGreaterThan(0);
        expect(purges.reduce((sum, chunk) => sum + chunk.rows, 0)).toBe(2 * crashed!.messagesWritten);
        for (const chunk of purges) expect(chunk.lastStepStartMs).toBeLessThan(CHUNK_STOP_MS + 5);
        expect(resumed.longestUnitMessages).toBeLessThanOrEqual(100);
        expect(resumed.report.sessions.conflicts).toBe(0);
        expect(await dumpImportedState(t.store)).toEqual(await dumpImportedState(reference.store));
        expect(await figures(t)).toEqual(await figures(reference));
        expect(await t.store.db.selectFrom('deferred_work').selectAll().execute()).toEqual([]);
        // No receipt: nobody ever saw those rows.
        expect((await t.store.receipts.list(admin, { after: 0, limit: 10 })).items).toEqual([]);
      });
    });
  });
}
