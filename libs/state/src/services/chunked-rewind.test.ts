import { sql } from 'kysely';
import { beforeEach, describe, expect, it } from 'vitest';
import { CHUNK_STOP_MS, type ChunkEvent, observeChunks } from '../db/chunks.js';
import { ManualClock } from '../shared/clock.js';
import { NotFoundError, RevisionConflictError, SessionClosedError, StaleGenerationError } from '../shared/errors.js';
import { adminPrincipal, contextOf, TEST_DIALECTS, tokensOf } from '../testing/index.js';
import { useTestStore } from '../testing/suites.js';
import { REWIND_ABANDONED_AFTER_MS, REWIND_IN_CHUNKS_ABOVE, REWIND_WORK } from './message-rewind.service.js';

const admin = contextOf(adminPrincipal);
const MESSAGES = 3000;
const immediate = () => new Promise<void>((resolve) => setImmediate(resolve));
/** The one-transaction path whatever the size. */
const WHOLE = { inChunksAbove: Number.MAX_SAFE_INTEGER, between: immediate };
/** Chunks of at most 50 messages, one step each: many chunks, fast. */
const SMALL_CHUNKS = { inChunksAbove: 10, maxStep: 50, stopMs: 0, between: immediate };

/** A rewind of a huge range goes in chunks from the end backwards and ends as the one-transaction rewind does. */
for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`chunked rewind on ${dialect}`, () => {
    const clock = new ManualClock(Date.UTC(2026, 8, 1));
    const writeLocks: number[] = [];
    const t = useTestStore(dialect, { clock, onWriteLock: (ms) => writeLocks.push(ms) });

    beforeEach(() => t.store.rewinds.tuneRewind({ ...WHOLE, maxStep: 25_000, stopMs: CHUNK_STOP_MS }));

    /** A session of MESSAGES messages: users, assistants with tool calls, hidden ones; each with a word of its own. */
    async function seed(id: string): Promise<number[]> {
      clock.advance(1000);
      await t.store.sessions.create(admin, { id, profile: 'rw', source: 'cli' });
      for (let from = 0; from < MESSAGES; from += 500) {
        await t.store.messages.append(
          admin,
          id,
          {
            messages: Array.from({ length: 500 }, (_, k) => {
              const i = from + k;
              return i % 7 === 3
                ? { role: 'system' as const, content: `${id}w${i} scaffold`, displayKind: 'hidden' as const }
                : i % 2 === 0
                  ? { role: 'user' as const, content: `${id}w${i} question ${i}` }
                  : { role: 'assistant' as const, content: `${id}w${i} answer`, toolCalls: [{ id: `c${i}` }] };
            }),
          },
          {},
        );
      }
      return messageIds(id);
    }

    async function messageIds(id: string): Promise<number[]> {
      const { rows } = await sql<{ id: number }>`select id from messages where session_id = ${id} order by id`.execute(
        t.store.db,
      );
      return rows.map((row) => Number(row.id));
    }

    /** What a rewind leaves, by position in the transcript (ids differ between twin sessions). */
    async function state(id: string) {
      const { rows } = await sql<{
        id: number;
        active: number;
      }>`select id, active from messages where session_id = ${id} order by id`.execute(t.store.db);
      const session = await t.store.sessions.get(admin, id);
      return {
        active: rows.map((row) => Number(row.active)),
        messageCount: session.messageCount,
        toolCallCount: session.toolCallCount,
        preview: session.preview?.replace(id, '<id>'),
      };
    }

    /** Which of some positions search finds in the session (words of their own). */
    async function searchable(id: string, positions: number[]) {
      const found: number[] = [];
      for (const i of positions) {
        const result = await t.store.search.search(admin, { q: `${id}w${i}`, mode: 'word', limit: 5 });
        if (result.items.some((hit) => hit.sessionId === id)) found.push(i);
      }
      return found;
    }

    async function recordedRewinds() {
      const { rows } = await sql<{
        n: number;
      }>`select count(*) as n from deferred_work where kind = ${REWIND_WORK}`.execute(t.store.db);
      return Number(rows[0].n);
    }

    /**
     * MESSAGES messages, rewound to position 2900 in one transaction, then 200 more: the range of a
     * rewind to an earlier message holds an inactive run that is not its own.
     */
    async function seedRewound(id: string): Promise<number[]> {
      const ids = await seed(id);
      t.store.rewinds.tuneRewind(WHOLE);
      await t.store.rewinds.rewind(admin, id, { toMessageId: ids[2900] }, await tokensOf(t.store, id));
      const more = Array.from({ length: 200 }, (_, k) => ({
        role: 'user' as const,
        content: `${id}w${MESSAGES + k} again`,
      }));
      await t.store.messages.append(admin, id, { messages: more }, {});
      return messageIds(id);
    }

    /** MESSAGES messages, then 20 regenerations (the last message rewound, two appended): 20 inactive runs of one. */
    async function seedRegenerated(id: string): Promise<number[]> {
      await seed(id);
      t.store.rewinds.tuneRewind(WHOLE);
      for (let k = 0; k < 20; k++) {
        const ids = await messageIds(id);
        await t.store.rewinds.rewind(admin, id, { toMessageId: ids[ids.length - 1] }, await tokensOf(t.store, id));
        const again = [
          { role: 'user' as const, content: `${id}w${k} retry` },
          { role: 'assistant' as const, content: `${id}w${k} answer again` },
        ];
        await t.store.messages.append(admin, id, { messages: again }, {});
      }
      return messageIds(id);
    }

    /** The reference: the same transcript rewound to the same position in one transaction. */
    async function reference(id: string, position: number, prepare: (id: string) => Promise<number[]> = seed) {
      const ids = await prepare(id);
      t.store.rewinds.tuneRewind(WHOLE);
      const response = await t.store.rewinds.rewind(
        admin,
        id,
        { toMessageId: ids[position] },
        await tokensOf(t.store, id),
      );
      return { ids, response, state: await state(id) };
    }

    const probes = [0, 1, 2, 3, 9, 10, 11, 1499, 1500, 2998, 2999];

    it('ends with the same rows, counters, search and answer as the one-transaction rewind, chunk by chunk', async () => {
      const position = 10;
      const whole = await reference('one', position);
      const ids = await seed('many');
      const events: ChunkEvent[] = [];
      const stop = observeChunks((event) => event.operation === 'rewind' && events.push(event));
      t.store.rewinds.tuneRewind(SMALL_CHUNKS);
      const before = await tokensOf(t.store, 'many');
      let response: Awaited<ReturnType<typeof t.store.rewinds.rewind>>;
      try {
        response = await t.store.rewinds.rewind(admin, 'many', { toMessageId: ids[position] }, before);
      } finally {
        stop();
      }
      expect(events.length).toBeGreaterThanOrEqual((MESSAGES - position - 1) / 50);
      expect(events.every((event) => event.rows <= 50)).toBe(true);
      expect(await state('many')).toEqual(whole.state);
      expect(response.rewoundIds.map((id) => ids.indexOf(id))).toEqual(
        whole.response.rewoundIds.map((id) => whole.ids.indexOf(id)),
      );
      const pick = (s: typeof response.session) => ({
        messageCount: s.messageCount,
        toolCallCount: s.toolCallCount,
        generation: s.generation,
        endedAt: s.endedAt,
      });
      expect(pick(response.session)).toEqual(pick(whole.response.session));
      // Every committed chunk changed the transcript, so each moved the revision, and the last one.
      expect(response.session.revision).toBe(before.ifMatch + events.length + 1);
      expect(await searchable('many', probes)).toEqual(await searchable('one', probes));
      expect(await searchable('many', probes)).toEqual([0, 1, 2, 9]); // 3 is hidden: never searchable
      expect(await recordedRewinds()).toBe(0);
    }, 120_000);

    it('a small rewind stays one transaction; each chunk of a big one is its own short transaction', async () => {
      const ids = await seed('locks');
      const events: ChunkEvent[] = [];
      const stop = observeChunks((event) => event.operation === 'rewind' && events.push(event));
      try {
        t.store.rewinds.tuneRewind({ inChunksAbove: REWIND_IN_CHUNKS_ABOVE });
        writeLocks.length = 0;
        await t.store.rewinds.rewind(
          admin,
          'locks',
          { toMessageId: ids[MESSAGES - 5] },
          await tokensOf(t.store, 'locks'),
        );
        expect(events).toHaveLength(0);
        if (dialect === 'sqlite') expect(writeLocks).toHaveLength(1);

        writeLocks.length = 0;
        t.store.rewinds.tuneRewind({ inChunksAbove: 10 });
        await t.store.rewinds.rewind(admin, 'locks', { toMessageId: ids[1] }, await tokensOf(t.store, 'locks'));
      } finally {
        stop();
      }
      expect(events.length).toBeGreaterThan(0);
      for (const event of events) expect(event.lastStepStartMs).toBeLessThan(CHUNK_STOP_MS);
      if (dialect === 'sqlite') {
        // The checking transaction, one per chunk, the last one.
        expect(writeLocks.length).toBeGreaterThanOrEqual(events.length + 2);
      }
      expect((await state('locks')).active.filter((active) => active === 1)).toHaveLength(1);
    }, 120_000);

    it('messages appended between chunks survive', async () => {
      const whole = await reference('app-one', 100);
      const ids = await seed('app');
      let pauses = 0;
      t.store.rewinds.tuneRewind({
        ...SMALL_CHUNKS,
        between: async () => {
          if (++pauses === 2) {
            await t.store.messages.append(admin, 'app', { messages: [{ role: 'user', content: 'appwlate late' }] }, {});
          }
        },
      });
      await t.store.rewinds.rewind(admin, 'app', { toMessageId: ids[100] }, await tokensOf(t.store, 'app'));
      const after = await state('app');
      expect(after.active).toEqual([...whole.state.active, 1]);
      expect(after.messageCount).toBe(whole.state.messageCount + 1);
      expect(after.toolCallCount).toBe(whole.state.toolCallCount);
      const late = await t.store.search.search(admin, { q: 'appwlate', mode: 'word', limit: 5 });
      expect(late.items.map((hit) => hit.sessionId)).toEqual(['app']);
    }, 120_000);

    it('interrupted between chunks: the same request again finishes it; once finished, its tokens are stale', async () => {
      const whole = await reference('crash-one', 20);
      const ids = await seed('crash');
      let pauses = 0;
      t.store.rewinds.tuneRewind({
        ...SMALL_CHUNKS,
        between: async () => {
          if (++pauses === 3) throw new Error('the process died');
        },
      });
      const seen = await tokensOf(t.store, 'crash');
      await expect(t.store.rewinds.rewind(admin, 'crash', { toMessageId: ids[20] }, seen)).rejects.toThrow(
        'the process died',
      );
      const half = await state('crash');
      // What is done is a rewind to a later message: a prefix stays active.
      expect(half.active[ids.length - 1]).toBe(0);
      expect(half.active[20]).toBe(1);
      expect(await recordedRewinds()).toBe(1);

      t.store.rewinds.tuneRewind(SMALL_CHUNKS);
      const resumed = await t.store.rewinds.rewind(admin, 'crash', { toMessageId: ids[20] }, seen);
      expect(resumed.rewoundIds).toContain(ids[20]);
      expect(await state('crash')).toEqual({ ...whole.state, preview: whole.state.preview });
      expect(await recordedRewinds()).toBe(0);
      await expect(t.store.rewinds.rewind(admin, 'crash', { toMessageId: ids[20] }, seen)).rejects.toBeInstanceOf(
        RevisionConflictError,
      );
    }, 120_000);

    // Eight chunks of 50 commit before the interruption, past the inactive messages already in
    // the range (the interrupted attempt went over them): they stop below this position.
    for (const [twin, prepare, stoppedBelow] of [
      ['resumed', seed, MESSAGES - 399],
      // 2900–2999 inactive already.
      ['resumed-earlier', seedRewound, 2900],
      // 2999, 3001, …, 3037 inactive already.
      ['resumed-regenerated', seedRegenerated, 2999],
    ] as const) {
      it(`interrupted after some chunks, then retried: the whole answer of an uninterrupted rewind (${twin})`, async () => {
        const whole = await reference(`${twin}-one`, 20, prepare);
        const ids = await prepare(twin);
        const inactiveBefore = (await state(twin)).active.filter((active) => active === 0).length;
        let pauses = 0;
        t.store.rewinds.tuneRewind({
          ...SMALL_CHUNKS,
          between: async () => {
            if (++pauses === 8) throw new Error('the client gave up');
          },
        });
        const seen = await tokensOf(t.store, twin);
        await expect(t.store.rewinds.rewind(admin, twin, { toMessageId: ids[20] }, seen)).rejects.toThrow(
          'the client gave up',
        );
        const half = await state(twin);
        expect(half.active.indexOf(0)).toBeLessThan(stoppedBelow);
        expect(half.active.indexOf(0)).toBeGreaterThan(MESSAGES - 500);
        expect(half.active[20]).toBe(1);
        expect(await recordedRewinds()).toBe(1);

        t.store.rewinds.tuneRewind(SMALL_CHUNKS);
        const resumed = await t.store.rewinds.rewind(admin, twin, { toMessageId: ids[20] }, seen);
        const positions = (answer: number[], of: number[]) => answer.map((id) => of.indexOf(id));
        expect(positions(resumed.rewoundIds, ids)).toEqual(positions(whole.response.rewoundIds, whole.ids));
        expect(resumed.rewoundIds).toHaveLength(ids.length - 20 - inactiveBefore);
        expect(resumed.session.messageCount).toBe(whole.response.session.messageCount);
        expect(await state(twin)).toEqual(whole.state);
        expect(await recordedRewinds()).toBe(0);
      }, 120_000);
    }

    it('the same request twice at once: one record run by both, one answers the whole rewind, the other 412', async () => {
      const whole = await reference('twice-one', 20);
      const ids = await seed('twice');
      t.store.rewinds.tuneRewind(SMALL_CHUNKS);
      const seen = await tokensOf(t.store, 'twice');
      const answers = await Promise.allSettled([
        t.store.rewinds.rewind(admin, 'twice', { toMessageId: ids[20] }, seen),
        t.store.rewinds.rewind(admin, 'twice', { toMessageId: ids[20] }, seen),
      ]);
      // As for two identical one-transaction rewinds: the second to finish has stale tokens.
      const fulfilled = answers.flatMap((answer) => (answer.status === 'fulfilled' ? [answer.value] : []));
      const rejected = answers.flatMap((answer) => (answer.status === 'rejected' ? [answer.reason] : []));
      expect(fulfilled).toHaveLength(1);
      expect(rejected).toHaveLength(1);
      expect(rejected[0]).toBeInstanceOf(RevisionConflictError);
      expect(fulfilled[0].rewoundIds.map((id) => ids.indexOf(id))).toEqual(
        whole.response.rewoundIds.map((id) => whole.ids.indexOf(id)),
      );
      expect(await state('twice')).toEqual(whole.state);
      expect(await recordedRewinds()).toBe(0);
    }, 120_000);

    it('a resumed rewind whose record of runs overflowed lists too much, never too little', async () => {
      const whole = await reference('frag-one', 20, seedRegenerated);
      const ids = await seedRegenerated('frag');
      const before = (await state('frag')).active;
      let pauses = 0;
      t.store.rewinds.tuneRewind({
        ...SMALL_CHUNKS,
        // A few runs fit: the first chunk, over the 20 regenerations, overflows the record.
        progressChars: 30,
        between: async () => {
          if (++pauses === 3) throw new Error('the process died');
        },
      });
      const seen = await tokensOf(t.store, 'frag');
      await expect(t.store.rewinds.rewind(admin, 'frag', { toMessageId: ids[20] }, seen)).rejects.toThrow(
        'the process died',
      );
      // The record stayed within its bound (its last line: the progress).
      const { rows: recorded } = await sql<{
        subject: string;
      }>`select subject from deferred_work where kind = ${REWIND_WORK}`.execute(t.store.db);
      expect(recorded).toHaveLength(1);
      expect(recorded[0].subject.split('\n').at(-1)!.length).toBeLessThanOrEqual(30);
      t.store.rewinds.tuneRewind({ ...SMALL_CHUNKS, progressChars: 30 });
      const resumed = await t.store.rewinds.rewind(admin, 'frag', { toMessageId: ids[20] }, seen);
      expect(await state('frag')).toEqual(whole.state);
      const exact = whole.response.rewoundIds.map((id) => whole.ids.indexOf(id));
      // Past the overflow, the inactive messages the earlier attempt's chunks went over: its own and
      // the 20 regenerations' (inactive before it began).
      const regenerated = before.flatMap((active, i) => (active === 0 ? [i] : []));
      expect(regenerated).toHaveLength(20);
      expect(resumed.rewoundIds.map((id) => ids.indexOf(id))).toEqual([...exact, ...regenerated].sort((a, b) => a - b));
    }, 120_000);

    it('abandoned between chunks: the deferred-work job finishes it once it is stale', async () => {
      const whole = await reference('gone-one', 5);
      const ids = await seed('gone');
      t.store.rewinds.tuneRewind({
        ...SMALL_CHUNKS,
        between: async () => {
          throw new Error('the client went away');
        },
      });
      await expect(
        t.store.rewinds.rewind(admin, 'gone', { toMessageId: ids[5] }, await tokensOf(t.store, 'gone')),
      ).rejects.toThrow('the client went away');
      t.store.rewinds.tuneRewind(SMALL_CHUNKS);
      // Fresh: another runner may still be at it.
      await t.store.deferred.drain(immediate);
      expect(await recordedRewinds()).toBe(1);
      clock.advance(REWIND_ABANDONED_AFTER_MS + 1);
      await t.store.deferred.drain(immediate);
      expect(await recordedRewinds()).toBe(0);
      expect(await state('gone')).toEqual(whole.state);
    }, 120_000);

    it('a turn begun between chunks fences the rest off; a compression closes it; a deletion ends it', async () => {
      const ids = await seed('fence');
      let pauses = 0;
      t.store.rewinds.tuneRewind({
        ...SMALL_CHUNKS,
        between: async () => {
          if (++pauses === 2) await t.store.turns.begin(admin, 'fence', { holder: 'worker', ttlSeconds: 30 });
        },
      });
      await expect(
        t.store.rewinds.rewind(admin, 'fence', { toMessageId: ids[0] }, await tokensOf(t.store, 'fence')),
      ).rejects.toBeInstanceOf(StaleGenerationError);
      const fenced = await state('fence');
      expect(fenced.active.filter((active) => active === 0)).toHaveLength(100);
      expect(await recordedRewinds()).toBe(0);

      const closing = await seed('closing');
      pauses = 0;
      t.store.rewinds.tuneRewind({
        ...SMALL_CHUNKS,
        between: async () => {
          if (++pauses === 1) {
            await t.store.lineage.compress(
              admin,
              'closing',
              { summary: 's', keepLastMessages: 0 },
              await tokensOf(t.store, 'closing'),
            );
          }
        },
      });
      await expect(
        t.store.rewinds.rewind(admin, 'closing', { toMessageId: closing[0] }, await tokensOf(t.store, 'closing')),
      ).rejects.toBeInstanceOf(SessionClosedError);
      expect(await recordedRewinds()).toBe(0);

      const deleting = await seed('deleting');
      pauses = 0;
      t.store.rewinds.tuneRewind({
        ...SMALL_CHUNKS,
        between: async () => {
          if (++pauses === 1) {
            await t.store.deletion.deleteOne(
              admin,
              'deleting',
              { includeCompressionChain: false, ifEmpty: false },
              await tokensOf(t.store, 'deleting'),
            );
          }
        },
      });
      await expect(
        t.store.rewinds.rewind(admin, 'deleting', { toMessageId: deleting[0] }, await tokensOf(t.store, 'deleting')),
      ).rejects.toBeInstanceOf(NotFoundError);
      expect(await recordedRewinds()).toBe(0);
    }, 120_000);
  });
}
