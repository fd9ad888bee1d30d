import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ImportReport } from '@statehouse/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.js';
import {
  adminPrincipal,
  contextOf,
  dumpImportedState,
  HermesFixture,
  type HermesVersion,
  openTestStore,
  SCENARIO_T0,
  TEST_DIALECTS,
  type TestStore,
} from '../../testing/index.js';
import { INTERRUPTED_BY_IMPORT } from './hermes-runtime.writer.js';

const admin = contextOf(adminPrincipal);
const t0 = SCENARIO_T0;
/** The import runs an hour after the file's last write (obligations younger than a day are owed). */
const IMPORTED_AT = (t0 + 5000) * 1000;
const KEY = 'agent:alpha:telegram:dm:42';
const alpha = { profile_name: 'alpha', origin_json: JSON.stringify({ profile: 'alpha' }) };

/**
 * A Hermes file with the runtime state Statehouse maps: tool pins, compression deadlines, async
 * delegations (every outcome and delivery state), delivery obligations (owed, ambiguous, stale,
 * delivered, exhausted, keyless), and rows of tables that do not map (gateway heartbeats).
 */
function runtimeFile(version: HermesVersion): { path: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'hermes-runtime-'));
  const path = join(dir, 'state.db');
  const f = new HermesFixture(path, version);
  f.transaction(() => {
    f.session({
      id: 'orig',
      source: 'telegram',
      session_key: KEY,
      chat_id: '42',
      chat_type: 'dm',
      started_at: t0,
      model: 'claude-x',
      model_config: JSON.stringify({ temperature: 0.2 }),
      // Offered, never called: no message below calls a tool.
      tool_names: JSON.stringify(['web_search', 'shell', 'memory', 'shell', '']),
      compression_failure_cooldown_until: t0 + 3600,
      compression_failure_error: 'summary model timed out',
      ...alpha,
    });
    f.message('orig', { role: 'user', content: 'find me a flight', timestamp: t0 + 1 });
    f.session({
      id: 'kid',
      source: 'subagent',
      parent_session_id: 'orig',
      started_at: t0 + 2,
      ...alpha,
    });
    f.message('kid', { role: 'user', content: 'search flights', timestamp: t0 + 3 });
    f.session({
      id: 'other',
      source: 'cli',
      started_at: t0 + 10,
      compression_recovery_deadline: t0 + 7200,
      compression_fallback_streak: 2,
      ...alpha,
    });
    const delegation = (id: string, row: Record<string, unknown>) =>
      f.delegation({
        delegation_id: id,
        origin_session: KEY,
        parent_session_id: 'orig',
        origin_session_id: 'orig',
        dispatched_at: t0 + 5,
        updated_at: t0 + 50,
        task_json: { goal: `goal of ${id}` },
        ...row,
        state: String(row.state),
      });
    delegation('d-done', {
      state: 'completed',
      completed_at: t0 + 40,
      result_json: { results: [{ status: 'completed', summary: 'three flights found', child_session_id: 'kid' }] },
    });
    delegation('d-delivered', {
      state: 'completed',
      completed_at: t0 + 30,
      result_json: { results: [{ status: 'completed', summary: 'done long ago' }] },
      delivery_state: 'delivered',
      delivery_attempts: 1,
      delivered_at: t0 + 35,
    });
    delegation('d-running', { state: 'running' });
    delegation('d-error', {
      state: 'error',
      completed_at: t0 + 45,
      result_json: { results: [{ status: 'error', error: 'rate limited' }] },
    });
    // v21 rows name the origin by the parent agent's session only.
    delegation('d-parent-only', {
      state: 'completed',
      origin_session_id: '',
      completed_at: t0 + 46,
      result_json: JSON.stringify('plain summary'),
    });
    delegation('d-lost', { state: 'completed', parent_session_id: 'gone', origin_session_id: 'gone' });
    delegation('d-tomb', { state: 'tombstone', delivery_state: 'recovery_committed_ack_failed' });

    f.row('gateway_routing', {
      scope: 'alpha',
      session_key: KEY,
      entry_json: JSON.stringify({ session_id: 'orig', session_key: KEY, origin: { profile: 'alpha' } }),
      updated_at: t0 + 60,
    });
    const recent = t0 + 4000;
    f.obligation({
      obligation_id: 'o-pending',
      session_key: KEY,
      content: 'your flight is booked',
      created_at: recent,
      updated_at: recent,
      transport_profile: 'tg-main',
    });
    f.obligation({
      obligation_id: 'o-attempting',
      session_key: KEY,
      content: 'maybe sent',
      state: 'attempting',
      attempts: 1,
      created_at: recent,
      updated_at: recent,
    });
    f.obligation({
      obligation_id: 'o-old',
      session_key: KEY,
      content: 'two days old',
      created_at: t0 + 5000 - 2 * 86_400,
    });
    f.obligation({
      obligation_id: 'o-delivered',
      session_key: KEY,
      content: 'sent',
      state: 'delivered',
      created_at: recent,
      updated_at: recent + 1,
    });
    f.obligation({
      obligation_id: 'o-exhausted',
      session_key: KEY,
      content: 'never got through',
      state: 'failed',
      attempts: 3,
      last_error: 'chat not found',
      created_at: recent,
    });
    f.obligation({
      obligation_id: 'o-nokey',
      session_key: 'agent:alpha:discord:dm:9',
      content: 'nobody here',
      created_at: recent,
    });
    f.heartbeat({ backend_id: 'serve-1' });
    f.heartbeat({ backend_id: 'serve-2', pid: 4343 });
  });
  f.close();
  return { path, dir };
}

async function importFile(t: TestStore, path: string, dryRun = false): Promise<ImportReport> {
  return (await t.store.imports.runHermes(admin, { path, profile: 'gamma', onConflict: 'skip', dryRun })).report;
}

for (const { dialect, available } of TEST_DIALECTS) {
  for (const version of [21, 30] as const) {
    describe.skipIf(!available)(`Hermes v${version} runtime state import on ${dialect}`, { timeout: 60_000 }, () => {
      let t: TestStore;
      let file: { path: string; dir: string };
      let dry: ImportReport;
      let report: ImportReport;

      beforeAll(async () => {
        file = runtimeFile(version);
        t = await openTestStore(dialect, { clock: new ManualClock(IMPORTED_AT) });
        dry = await importFile(t, file.path, true);
        report = await importFile(t, file.path);
      }, 60_000);
      afterAll(async () => {
        await t?.close();
        rmSync(file.dir, { recursive: true, force: true });
      }, 60_000);

      it('[session.tool-pins] tool_names is imported as the offered set, in order, whether or not a tool was called', async () => {
        const orig = await t.store.sessions.get(admin, 'orig');
        expect(orig.toolCallCount).toBe(0);
        if (version === 21) {
          expect(orig.toolNames).toBeNull();
          return;
        }
        expect(orig.toolNames).toEqual(['web_search', 'shell', 'memory']);
        expect(report.warnings).toContain(
          'session orig: 2 tool name(s) in tool_names left out (empty, repeated, too long or too many)',
        );
        expect((await t.store.sessions.get(admin, 'other')).toolNames).toBeNull();
      });

      it('[session.compression-retry-after] the failure cooldown and the anti-thrash recovery deadline become the compression deadline', async () => {
        expect(await t.store.sessions.get(admin, 'orig')).toMatchObject({
          compressionRetryAfter: new Date((t0 + 3600) * 1000).toISOString(),
          compressionRetryReason: 'summary model timed out',
        });
        // v21 files have no recovery deadline column.
        expect(await t.store.sessions.get(admin, 'other')).toMatchObject(
          version === 30
            ? {
                compressionRetryAfter: new Date((t0 + 7200) * 1000).toISOString(),
                compressionRetryReason: 'anti-thrash recovery (Hermes)',
              }
            : { compressionRetryAfter: null, compressionRetryReason: null },
        );
        // Known and deliberately left out: no "unknown column" note for the compressor's counters.
        expect(report.warnings.filter((w) => w.includes('compression_'))).toEqual([]);
      });

      it('[delegation.imported] async_delegations map onto the ledger: outcome, wake-up state, origin, child, task and summary', async () => {
        const rows = await t.store.delegations.list(admin, { originSessionId: 'orig', limit: 50 });
        const byId = new Map(rows.items.map((d) => [d.id, d]));
        expect([...byId.keys()].sort()).toEqual(['d-delivered', 'd-done', 'd-error', 'd-parent-only', 'd-running']);
        expect(byId.get('d-done')).toMatchObject({
          profile: 'alpha',
          state: 'done',
          due: true,
          childSessionId: 'kid',
          task: { goal: 'goal of d-done' },
          resultSummary: 'three flights found',
          completedAt: new Date((t0 + 40) * 1000).toISOString(),
        });
        expect(byId.get('d-delivered')).toMatchObject({
          state: 'delivered',
          due: false,
          wakeAttempts: 1,
          deliveredAt: new Date((t0 + 35) * 1000).toISOString(),
        });
        // Still running in Hermes: its runner never reports here, so the origin is woken with that.
        expect(byId.get('d-running')).toMatchObject({ state: 'failed', error: INTERRUPTED_BY_IMPORT, due: true });
        expect(byId.get('d-error')).toMatchObject({ state: 'failed', error: 'rate limited', due: true });
        expect(byId.get('d-parent-only')).toMatchObject({ state: 'done', resultSummary: 'plain summary' });
        expect(report.delegations).toEqual({ created: 5, skipped: 2 });
        expect(report.warnings).toEqual(
          expect.arrayContaining([
            'delegation d-lost: its origin session is not here (not in the file, or deleted here); not imported',
            'delegation d-tomb: state "tombstone" is not one Statehouse keeps (a tombstone or unknown); not imported',
            'delegation d-running: still running in Hermes; imported as failed (interrupted) to wake its origin',
          ]),
        );
        // The imported wake-ups are owed like any: claimed and acknowledged once.
        const claimed = await t.store.delegations.claimDue(admin, {
          holder: 'gw',
          leaseSeconds: 30,
          originSessionId: 'orig',
          limit: 10,
        });
        expect(claimed.items.map((d) => d.id).sort()).toEqual(['d-done', 'd-error', 'd-parent-only', 'd-running']);
      });

      it('[delivery.imported] delivery_obligations map onto obligations of the session their chat routes to', async () => {
        const rows = await t.store.deliveries.list(admin, { sessionId: 'orig', limit: 50 });
        const byId = new Map(rows.items.map((d) => [d.id, d]));
        if (version === 21) {
          // v21 files have no delivery ledger.
          expect(byId.size).toBe(0);
          expect(report.deliveries).toEqual({ created: 0, skipped: 0 });
          return;
        }
        expect([...byId.keys()].sort()).toEqual(['o-attempting', 'o-delivered', 'o-exhausted', 'o-old', 'o-pending']);
        expect(byId.get('o-pending')).toMatchObject({
          profile: 'alpha',
          state: 'pending',
          attempts: 0,
          transportProfile: 'tg-main',
          payload: { content: 'your flight is booked', platform: 'telegram', chatId: '42', mayBeDuplicate: false },
        });
        expect(byId.get('o-attempting')).toMatchObject({
          state: 'pending',
          attempts: 1,
          payload: { mayBeDuplicate: true },
        });
        expect(byId.get('o-old')).toMatchObject({ state: 'abandoned', abandonedReason: 'expired' });
        expect(byId.get('o-delivered')).toMatchObject({ state: 'delivered' });
        expect(byId.get('o-exhausted')).toMatchObject({
          state: 'abandoned',
          abandonedReason: 'attempts_exhausted',
          lastError: 'chat not found',
        });
        expect(report.deliveries).toEqual({ created: 5, skipped: 1 });
        expect(report.warnings).toContain(
          'delivery obligation o-nokey: no session here for its chat agent:alpha:discord:dm:9; not imported',
        );
        expect(report.warnings).toContain(
          'delivery obligation o-old: owed but older than a day; imported as abandoned (expired)',
        );
      });

      it('[delegation.imported] gateway heartbeats are not imported, and the report says why', () => {
        const line = report.warnings.find((w) => w.startsWith('gateway_heartbeats:'));
        if (version === 21) expect(line).toBeUndefined();
        else expect(line).toMatch(/^gateway_heartbeats: 2 row\(s\) not imported — liveness of Hermes processes/);
        expect(report.warnings.some((w) => w.startsWith('source: unknown tables'))).toBe(false);
      });

      it('[delegation.imported] a dry run reports what the run did, and importing the file again changes nothing', async () => {
        expect(dry).toEqual(report);
        const before = await dumpImportedState(t.store);
        const again = await importFile(t, file.path);
        expect(again.sessions.created).toBe(0);
        expect(again.delegations).toEqual({ created: 0, skipped: 7 });
        expect(again.deliveries).toEqual(version === 30 ? { created: 0, skipped: 6 } : { created: 0, skipped: 0 });
        expect(await dumpImportedState(t.store)).toEqual(before);
      });
    });
  }
}
