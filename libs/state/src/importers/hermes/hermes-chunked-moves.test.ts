import { sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MessageRepository } from '../../repositories/message.repository.js';
import {
  adminPrincipal,
  contextOf,
  dumpImportedState,
  HermesFixture,
  importHermes,
  SCENARIO_T0,
  TEST_DIALECTS,
  type TestStore,
  UNSPLIT,
} from '../../testing/index.js';
import { type Scratch, useScratch } from '../../testing/suites.js';
import type { HermesSplitTuning } from '../import.service.js';

/**
 * An update whose source rewound or compacted many imported messages applies that visibility in
 * chunks, like its new messages, and ends where the one-transaction update ends.
 */
const admin = contextOf(adminPrincipal);
const t0 = SCENARIO_T0;
const SPLIT: HermesSplitTuning = { splitSessionsAbove: 300, maxSessionChunk: 200 };
const FIRST = 1200;
const REWOUND = 800;

/** `rewound` of the first messages inactive (every other one compacted), then `added` new ones. */
function sourceFile(scratch: Scratch, rewound: number, added: number): string {
  return HermesFixture.write(scratch.path('hermes-moves-'), 30, (f) => {
    f.session({ id: 'long', source: 'cli', profile_name: 'moves', title: 'Long', started_at: t0 });
    for (let i = 0; i < FIRST + added; i++) {
      f.message('long', {
        role: i % 2 ? 'assistant' : 'user',
        content: `line ${i}`,
        timestamp: t0 + i * 60,
        active: i < rewound ? 0 : 1,
        compacted: i < rewound && i % 2 === 0 ? 1 : 0,
      });
    }
  });
}

/** The dump without `revision` (one bump per chunk), with the usage rollups. */
async function state(t: TestStore) {
  const dump = await dumpImportedState(t.store);
  const { rows: usage } = await sql<Record<string, unknown>>`
    select session_id, hour_start, messages, sessions, input_tokens from session_usage
    where messages <> 0 or sessions <> 0 or input_tokens <> 0
    order by session_id, hour_start`.execute(t.store.db);
  return {
    ...dump,
    sessions: (dump.sessions as Record<string, unknown>[]).map(({ revision, ...row }) => row),
    usage: usage.map((row) =>
      Object.fromEntries(Object.entries(row).map(([k, v]) => [k, k === 'session_id' ? v : Number(v)])),
    ),
  };
}

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`Hermes update applying rewinds in chunks on ${dialect}`, { timeout: 180_000 }, () => {
    const scratch = useScratch(dialect);
    const run = (t: TestStore, path: string, split: HermesSplitTuning) =>
      importHermes(t, { path, profile: 'moves', split });
    afterEach(() => {
      vi.restoreAllMocks();
    });

    for (const added of [10, 0]) {
      it(`${REWOUND} rewound messages ${added ? `and ${added} new ones` : 'and nothing new'}: chunks of at most a chunk's worth`, async () => {
        const before = sourceFile(scratch, 0, 0);
        const after = sourceFile(scratch, REWOUND, added);
        const reference = await scratch.open();
        await run(reference, before, UNSPLIT);
        const whole = await run(reference, after, UNSPLIT);

        const t = await scratch.open();
        await run(t, before, SPLIT);
        const batches: number[] = [];
        const original = MessageRepository.prototype.setVisibility;
        vi.spyOn(MessageRepository.prototype, 'setVisibility').mockImplementation(function (
          this: MessageRepository,
          ...args: Parameters<MessageRepository['setVisibility']>
        ) {
          batches.push(args[2].length);
          return original.apply(this, args);
        });
        const chunked = await run(t, after, SPLIT);
        expect(chunked.report).toEqual(whole.report);
        expect(chunked.report.sessions).toEqual({ created: 0, updated: 1, skipped: 0, conflicts: 0 });
        expect(batches.reduce((sum, n) => sum + n, 0)).toBe(REWOUND);
        expect(Math.max(...batches)).toBeLessThanOrEqual(200);
        expect(await state(t)).toEqual(await state(reference));
        const session = await t.store.sessions.get(admin, 'long');
        expect(session.messageCount).toBe((await reference.store.sessions.get(admin, 'long')).messageCount);
      });
    }
  });
}
