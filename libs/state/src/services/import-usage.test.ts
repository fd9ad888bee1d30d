import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminPrincipal,
  buildHermesScenario,
  contextOf,
  HermesFixture,
  openTestStore,
  SCENARIO_T0,
  TEST_DIALECTS,
  type TestStore,
} from '../testing/index.js';

const admin = contextOf(adminPrincipal);
const HOUR = 3_600_000;
const t0 = SCENARIO_T0 * 1000;
const day = (ms: number) => new Date(Math.floor(ms / 86_400_000) * 86_400_000).toISOString();

/** Imported history counts in the overview at its own times, on first import and on a newer copy. */
for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`usage of imported history on ${dialect}`, () => {
    let t: TestStore;
    let dir: string;
    let path: string;
    const range = { from: day(t0 - 86_400_000), to: day(t0 + 3 * 86_400_000), bucket: 'day' as const };
    const importFile = () =>
      t.store.imports.runHermes(admin, { path, profile: 'gamma', onConflict: 'skip', dryRun: false });
    // Every segment (the list projects chains onto their tips).
    const sessions = () => t.store.db.selectFrom('sessions').selectAll().execute();

    beforeAll(async () => {
      t = await openTestStore(dialect);
      dir = mkdtempSync(join(tmpdir(), 'usage-import-'));
      path = join(dir, 'state.db');
      buildHermesScenario(path, 30).close();
    });
    afterAll(async () => {
      await t?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('counts every imported session, message and token at the times they happened', async () => {
      await importFile();
      const rows = await sessions();
      const usage = await t.store.stats.usageOverTime(admin, { ...range, groupBy: 'source' });
      expect(usage.totals.sessions).toBe(rows.length);
      expect(usage.totals.messages).toBe(rows.reduce((sum, row) => sum + Number(row.message_count), 0));
      expect(usage.totals.inputTokens).toBe(rows.reduce((sum, row) => sum + Number(row.input_tokens), 0));
      expect(usage.totals.outputTokens).toBe(rows.reduce((sum, row) => sum + Number(row.output_tokens), 0));
      expect(usage.totals.inputTokens).toBeGreaterThan(0);
      // Nothing lands on the day of the import itself (today), all of it in the source's days.
      const today = await t.store.stats.summary(admin, {});
      expect(today.usage.messages).toBe(0);
    });

    it('puts what a newer copy adds at its own hour, not at the last activity or the import', async () => {
      const before = await t.store.stats.usageOverTime(admin, { ...range, groupBy: 'source' });
      const f = HermesFixture.open(path, 30);
      f.transaction(() => {
        // Two messages 5 hours after the scenario's start, usage up to 1500 input tokens.
        f.message('cmp-tip', {
          role: 'user',
          content: 'what about the pelican cluster?',
          timestamp: SCENARIO_T0 + 5 * 3600,
        });
        f.message('cmp-tip', { role: 'assistant', content: 'pelican is next', timestamp: SCENARIO_T0 + 5 * 3600 + 1 });
        f.update('sessions', 'cmp-tip', { input_tokens: 1500, last_activity_at: SCENARIO_T0 + 5 * 3600 + 1 });
      });
      f.close();
      const tipBefore = await t.store.sessions.get(admin, 'cmp-tip');
      await importFile();
      const tipAfter = await t.store.sessions.get(admin, 'cmp-tip');
      const after = await t.store.stats.usageOverTime(admin, { ...range, groupBy: 'source' });
      expect(after.totals.messages).toBe(before.totals.messages + 2);
      expect(after.totals.inputTokens - before.totals.inputTokens).toBe(tipAfter.inputTokens - tipBefore.inputTokens);
      const hour = Math.floor((t0 + 5 * HOUR) / HOUR) * HOUR;
      const hours = await t.store.stats.usageOverTime(admin, {
        from: new Date(hour).toISOString(),
        to: new Date(hour + HOUR).toISOString(),
        bucket: 'hour',
        groupBy: 'source',
      });
      expect(hours.totals.messages).toBe(2);
      expect(hours.totals.inputTokens).toBe(tipAfter.inputTokens - tipBefore.inputTokens);
      // Importing the same copy again changes nothing.
      await importFile();
      expect((await t.store.stats.usageOverTime(admin, { ...range, groupBy: 'source' })).totals).toEqual(after.totals);
    });
  });
}
