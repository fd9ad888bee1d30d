import { ListMessagesQuerySchema, StatsSummaryQuerySchema } from '@statehouse/contracts';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { observeChunks } from '../../db/chunks.js';
import { NotFoundError } from '../../shared/errors.js';
import {
  adminPrincipal,
  buildHermesBulk,
  contextOf,
  dumpImportedState,
  importHermes,
  SCENARIO_T0,
  TEST_DIALECTS,
  type TestStore,
  UNSPLIT,
} from '../../testing/index.js';
import { type Scratch, useScratch } from '../../testing/suites.js';
import type { HermesSplitTuning } from '../import.service.js';

const admin = contextOf(adminPrincipal);
/** 1 conversation = 4 sessions (root, its compression tip, a branch, a sub-agent helper). */
const PER_SESSION = 450;
const SPLIT: HermesSplitTuning = { splitSessionsAbove: 200, maxSessionChunk: 100 };
const DAY = 86_400_000;
const T0_MS = SCENARIO_T0 * 1000;
const summaryQuery = () =>
  StatsSummaryQuerySchema.parse({
    from: new Date(T0_MS - (T0_MS % DAY)).toISOString(),
    to: new Date(T0_MS - (T0_MS % DAY) + 2 * DAY).toISOString(),
  });

function bulkFile(scratch: Scratch, messagesPerSession: number): { path: string } {
  const path = scratch.path('hermes-chunked-');
  buildHermesBulk(path, { conversations: 1, messagesPerSession });
  return { path };
}

const run = (t: TestStore, path: string, split: HermesSplitTuning) => importHermes(t, { path, profile: 'bulk', split });

/** Everything the overview and search read, besides the rows dumpImportedState compares. */
async function figures(t: TestStore) {
  const { rows: usage } = await sql<Record<string, unknown>>`
    select session_id, hour_start, source, model, profile, conversations, sessions, messages, input_tokens,
      output_tokens, cost_usd
    from session_usage order by session_id, hour_start, source, model`.execute(t.store.db);
  const { rows: daily } = await sql<Record<string, unknown>>`
    select day_start, profile, source, model, conversations, sessions, messages, input_tokens, output_tokens
    from usage_daily where sessions <> 0 or messages <> 0 or conversations <> 0 or input_tokens <> 0
    order by day_start, profile, source, model`.execute(t.store.db);
  const hits = (await t.store.search.search(admin, { q: 'deploy', mode: 'word', limit: 50 })).items.map((hit) => [
    hit.sessionId,
    hit.tipSessionId,
    hit.role,
  ]);
  const summary = await t.store.stats.summary(admin, summaryQuery());
  const normalize = (rows: Record<string, unknown>[]) =>
    rows.map((row) =>
      Object.fromEntries(
        Object.entries(row).map(([key, value]) => [
          key,
          value === null ? null : Number.isNaN(Number(value)) ? value : Number(value),
        ]),
      ),
    );
  return { usage: normalize(usage), daily: normalize(daily), hits, summary: { ...summary, activeNow: undefined } };
}

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`Hermes import of sessions in chunks on ${dialect}`, { timeout: 120_000 }, () => {
    let file: { path: string };
    let reference: TestStore;
    let referenceDump: Record<string, unknown[]>;
    let referenceFigures: Awaited<ReturnType<typeof figures>>;
    let referenceLongest: { ms: number; messages: number };
    const scratch = useScratch(dialect);

    beforeAll(async () => {
      file = bulkFile(scratch, PER_SESSION);
      reference = await scratch.open();
      const result = await run(reference, file.path, UNSPLIT);
      expect(result.report.messages.created).toBe(4 * PER_SESSION);
      referenceLongest = { ms: result.longestUnitMs, messages: result.longestUnitMessages };
      referenceDump = await dumpImportedState(reference.store);
      referenceFigures = await figures(reference);
    }, 120_000);

    it('writes a session above the threshold in several transactions and ends identical to an unsplit import', async () => {
      const t = await scratch.open();
      const units: number[] = [];
      const stop = observeChunks((event) => {
        if (event.operation === 'import') units.push(event.rows);
      });
      let result: Awaited<ReturnType<typeof run>>;
      try {
        result = await run(t, file.path, SPLIT);
      } finally {
        stop();
      }
      // 4 sessions of 450 messages in chunks of at most 100: at least 5 units each.
      expect(units.filter((rows) => rows > 0).length).toBeGreaterThanOrEqual(20);
      expect(Math.max(...units)).toBeLessThanOrEqual(100);
      expect(result.report.sessions).toEqual({ created: 4, updated: 0, skipped: 0, conflicts: 0 });
      expect(result.report.messages).toEqual({ created: 4 * PER_SESSION, skipped: 0 });
      expect(await dumpImportedState(t.store)).toEqual(referenceDump);
      expect(await figures(t)).toEqual(referenceFigures);
      // The longest write transaction, by the import result's own figures: in messages, bounded by
      // the chunk size (a whole session's 450 without splitting); in time, logged only — a wall-time
      // bound would fail on a loaded machine.
      expect(referenceLongest.messages).toBeGreaterThanOrEqual(PER_SESSION);
      expect(result.longestUnitMessages).toBeLessThanOrEqual(100);
      console.info(
        `${dialect}: longest write transaction ${result.longestUnitMs.toFixed(1)} ms in chunks, ${referenceLongest.ms.toFixed(1)} ms whole`,
      );
    });

    it('leaves a session out of every read while it is hidden between its chunks; writes to it answer 404', async () => {
      const t = await scratch.open();
      const seen: string[] = [];
      await run(t, file.path, {
        ...SPLIT,
        betweenSessionChunks: async ({ sessionId, messagesWritten }) => {
          // Only the first session's first pause: nothing else is visible yet, so every figure is 0.
          if (seen.length > 0) return;
          seen.push(sessionId);
          expect(messagesWritten).toBeGreaterThan(0);
          expect(messagesWritten).toBeLessThanOrEqual(100);
          // The rows are there (the filter is real)...
          const { rows } = await sql<{ n: number; hidden: string | null }>`
            select (select count(*) from messages where session_id = ${sessionId}) as n,
              (select hidden_for from sessions where id = ${sessionId}) as hidden`.execute(t.store.db);
          expect(Number(rows[0].n)).toBe(messagesWritten);
          expect(rows[0].hidden).toBe('import');
          // ...and no read shows them.
          await expect(t.store.sessions.get(admin, sessionId)).rejects.toBeInstanceOf(NotFoundError);
          await expect(
            t.store.messages.list(admin, sessionId, ListMessagesQuerySchema.parse({})),
          ).rejects.toBeInstanceOf(NotFoundError);
          const list = await t.store.sessions.list(admin, {
            status: 'all',
            archived: 'include',
            includeChildren: true,
            includeHidden: true,
            limit: 200,
            order: 'started',
          });
          expect(list.items.map((s) => s.id)).toEqual([]);
          expect((await t.store.search.search(admin, { q: 'deploy', mode: 'word', limit: 50 })).items).toEqual([]);
          expect((await t.store.search.search(admin, { q: 'deplo', mode: 'substring', limit: 50 })).items).toEqual([]);
          const summary = await t.store.stats.summary(admin, summaryQuery());
          expect(summary.usage).toMatchObject({ sessions: 0, conversations: 0, messages: 0, inputTokens: 0 });
          const { rows: usage } = await sql<{ n: number }>`select count(*) as n from session_usage`.execute(t.store.db);
          expect(Number(usage[0].n)).toBe(0);
          const profiles = await t.store.profiles.list(admin);
          expect(profiles.find((p) => p.name === 'bulk')).toMatchObject({ sessionCount: 0, messageCount: 0 });
          // Writes by id answer as for an unknown session, and write nothing.
          await expect(
            t.store.messages.append(admin, sessionId, { messages: [{ role: 'user', content: 'sneaking in' }] }),
          ).rejects.toBeInstanceOf(NotFoundError);
          await expect(
            t.store.lineage.compress(
              admin,
              sessionId,
              { summary: 'S', keepLastMessages: 0 },
              { ifMatch: 0, expectedGeneration: 0 },
            ),
          ).rejects.toBeInstanceOf(NotFoundError);
          await expect(
            t.store.deletion.deleteOne(
              admin,
              sessionId,
              { includeCompressionChain: false, ifEmpty: false },
              { ifMatch: 0, expectedGeneration: 0 },
            ),
          ).rejects.toBeInstanceOf(NotFoundError);
          const { rows: after } = await sql<{ n: number }>`
            select count(*) as n from messages where session_id = ${sessionId}`.execute(t.store.db);
          expect(Number(after[0].n)).toBe(messagesWritten);
        },
      });
      expect(seen).toHaveLength(1);
      // Once its last chunk committed, it is there like any other.
      const session = await t.store.sessions.get(admin, seen[0]);
      expect(session.messageCount).toBe(
        (referenceDump.sessions as { id: string; message_count: number }[]).find((s) => s.id === seen[0])!
          .message_count,
      );
      expect(await dumpImportedState(t.store)).toEqual(referenceDump);
      expect(await figures(t)).toEqual(referenceFigures);
    });

    for (const rerun of [
      { name: 'split again', split: SPLIT },
      { name: 'whole (a higher threshold)', split: UNSPLIT },
    ]) {
      it(`resumes a session an interrupted import left half-written (re-run ${rerun.name}): one copy of every message`, async () => {
        const t = await scratch.open();
        const bySession = new Map<string, number>();
        let crashed: { sessionId: string; messagesWritten: number } | undefined;
        await expect(
          run(t, file.path, {
            ...SPLIT,
            betweenSessionChunks: async ({ sessionId, messagesWritten }) => {
              bySession.set(sessionId, (bySession.get(sessionId) ?? 0) + 1);
              // The second session, two chunks committed: the run dies as a crash would.
              if (bySession.size === 2 && bySession.get(sessionId) === 2) {
                crashed = { sessionId, messagesWritten };
                throw new Error('simulated crash');
              }
            },
          }),
        ).rejects.toThrow('simulated crash');
        const { rows: half } = await sql<{ id: string; n: number }>`
          select s.id, (select count(*) from messages m where m.session_id = s.id) as n
          from sessions s where s.hidden_for = 'import'`.execute(t.store.db);
        expect(half.map((row) => [row.id, Number(row.n)])).toEqual([[crashed!.sessionId, crashed!.messagesWritten]]);
        const ledger = await t.store.db
          .selectFrom('import_sessions')
          .select(['session_id', 'state'])
          .where('state', '=', 'importing')
          .execute();
        expect(ledger.map((row) => row.session_id)).toEqual([half[0].id]);

        const resumed = await run(t, file.path, rerun.split);
        expect(resumed.report.sessions.conflicts).toBe(0);
        expect(resumed.report.sessions.created).toBe(3);
        expect(await dumpImportedState(t.store)).toEqual(referenceDump);
        expect(await figures(t)).toEqual(referenceFigures);

        // And again: nothing left to do.
        const again = await run(t, file.path, SPLIT);
        expect(again.report.sessions).toEqual({ created: 0, updated: 0, skipped: 4, conflicts: 0 });
        expect(await dumpImportedState(t.store)).toEqual(referenceDump);
      });
    }
  });
}
