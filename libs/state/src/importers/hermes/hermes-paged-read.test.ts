import { copyFileSync } from 'node:fs';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import {
  dumpImportedState,
  HermesFixture,
  hermesJson,
  importHermes,
  SCENARIO_T0,
  TEST_DIALECTS,
  type TestStore,
} from '../../testing/index.js';
import { useScratch } from '../../testing/suites.js';
import type { HermesSplitTuning } from '../import.service.js';

/**
 * The importer reads and maps a session's transcript a page at a time, letting the event loop run
 * between pages (issue "no process frozen by its own work": a 10⁵-message session was one
 * synchronous slice of seconds). Pages of a few messages must give what whole transcripts give,
 * and a timer must get its turn while one session is read.
 */
const LONG = 120;
const MARKER = 'paged-read-marker';
const PAGED: HermesSplitTuning = { readPageMessages: 7 };
const WHOLE: HermesSplitTuning = { readPageMessages: 1_000_000 };

/**
 * Sessions whose mapping carries state from message to message across page boundaries: unreadable
 * timestamps (dated from the message before), repeated platform ids (kept once), unknown roles,
 * invalid JSON, rewound and compacted messages; a short session and an empty one in the same batch.
 */
function build(path: string, grown: boolean): void {
  const f = new HermesFixture(path, 30);
  f.transaction(() => {
    f.session({ id: 'paged-long', source: 'cli', profile_name: 'paged', title: 'Long', started_at: SCENARIO_T0 });
    f.session({ id: 'paged-short', source: 'cli', profile_name: 'paged', started_at: SCENARIO_T0 + 1 });
    f.session({ id: 'paged-empty', source: 'cli', profile_name: 'paged', started_at: SCENARIO_T0 + 2 });
    const long = grown ? LONG + 15 : LONG;
    for (let i = 0; i < long; i++) {
      f.message('paged-long', {
        role: i % 11 === 5 ? 'narrator' : i % 13 === 0 ? 'developer' : i % 2 ? 'assistant' : 'user',
        content:
          i % 2 === 0 ? hermesJson([{ type: 'text', text: `${MARKER} ${i} about deploys` }]) : `answer ${i} on deploys`,
        tool_calls: i % 17 === 3 ? '{not json' : i % 9 === 1 ? JSON.stringify([{ id: `c${i}`, name: 'shell' }]) : null,
        timestamp: i % 5 === 4 ? 'not a time' : SCENARIO_T0 + 10 + i,
        platform_message_id: `p${i % 9}`,
        // The grown copy rewound a stretch of what was imported before (an update moves them).
        active: grown && i >= 40 && i < 70 ? 0 : 1,
        compacted: grown && i >= 40 && i < 50 ? 1 : 0,
      });
    }
    for (let i = 0; i < 10; i++) {
      f.message('paged-short', {
        role: i % 2 ? 'assistant' : 'user',
        content: `short ${i}`,
        timestamp: SCENARIO_T0 + i,
      });
    }
  });
  f.close();
}

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`Hermes import read in pages on ${dialect}`, { timeout: 120_000 }, () => {
    let first: string;
    let grown: string;
    const scratch = useScratch(dialect);
    const run = (t: TestStore, path: string, split: HermesSplitTuning, dryRun = false) =>
      importHermes(t, { path, profile: 'paged', dryRun, split });

    beforeAll(() => {
      first = scratch.path('hermes-paged-', 'first.db');
      grown = scratch.path('hermes-paged-', 'grown.db');
      build(first, false);
      build(grown, true);
    });

    it('pages of 7 messages import, update and dry-run exactly as whole transcripts do', async () => {
      const paged = await scratch.open();
      const whole = await scratch.open();
      // A new import (one batch of three sessions; pages cross from one session to the next).
      const [pagedDry, wholeDry] = [await run(paged, first, PAGED, true), await run(whole, first, WHOLE, true)];
      expect(pagedDry.report).toEqual(wholeDry.report);
      const [pagedRun, wholeRun] = [await run(paged, first, PAGED), await run(whole, first, WHOLE)];
      expect(pagedRun.report).toEqual(wholeRun.report);
      expect(pagedRun.report).toEqual(pagedDry.report);
      expect(pagedRun.report.messages.created).toBe(LONG + 10);
      expect(pagedRun.report.warnings.length).toBeGreaterThan(0);
      expect(await dumpImportedState(paged.store)).toEqual(await dumpImportedState(whole.store));
      // An update: new messages, rewinds and compactions of imported ones (the ledger compared).
      const [pagedUpdateDry, wholeUpdateDry] = [
        await run(paged, grown, PAGED, true),
        await run(whole, grown, WHOLE, true),
      ];
      expect(pagedUpdateDry.report).toEqual(wholeUpdateDry.report);
      const [pagedUpdate, wholeUpdate] = [await run(paged, grown, PAGED), await run(whole, grown, WHOLE)];
      expect(pagedUpdate.report).toEqual(wholeUpdate.report);
      expect(pagedUpdate.report).toEqual(pagedUpdateDry.report);
      expect(pagedUpdate.report.sessions.updated).toBeGreaterThanOrEqual(1);
      expect(await dumpImportedState(paged.store)).toEqual(await dumpImportedState(whole.store));
      // Unchanged since: skipped the same way.
      expect((await run(paged, grown, PAGED)).report).toEqual((await run(whole, grown, WHOLE)).report);
    });

    it('pages of a session written in chunks give the same store as whole transcripts', async () => {
      const paged = await scratch.open();
      const whole = await scratch.open();
      const chunked = { splitSessionsAbove: 50, maxSessionChunk: 40 };
      await run(paged, first, { ...chunked, ...PAGED });
      await run(whole, first, { ...chunked, ...WHOLE });
      await run(paged, grown, { ...chunked, ...PAGED });
      await run(whole, grown, { ...chunked, ...WHOLE });
      expect(await dumpImportedState(paged.store)).toEqual(await dumpImportedState(whole.store));
    });

    for (const dryRun of [true, false]) {
      it(`lets the event loop run between the pages of one session (${dryRun ? 'dry run' : 'import'})`, async () => {
        const t = await scratch.open();
        // A private copy per test: the same file would be skipped as unchanged the second time.
        const path = scratch.path('hermes-paged-', `turns-${dryRun}.db`);
        copyFileSync(first, path);
        // Each JSON content of the long session is parsed as its message is mapped: note the turn of
        // the event loop it is mapped in (a chain of setImmediate counts the turns).
        let turn = 0;
        let counting = true;
        const tick = () => {
          turn++;
          if (counting) setImmediate(tick);
        };
        setImmediate(tick);
        const turns = new Set<number>();
        const parse = JSON.parse;
        const spy = vi.spyOn(JSON, 'parse').mockImplementation((text, reviver) => {
          if (typeof text === 'string' && text.includes(MARKER)) turns.add(turn);
          return parse(text, reviver);
        });
        try {
          await run(t, path, PAGED, dryRun);
        } finally {
          spy.mockRestore();
          counting = false;
        }
        // 60 marked messages over pages of 7 rows: every page in a turn of its own. Read whole
        // (before), all 60 were mapped in one synchronous slice: one turn.
        expect(turns.size).toBeGreaterThanOrEqual(Math.floor(LONG / 7) - 1);
      });
    }
  });
}
