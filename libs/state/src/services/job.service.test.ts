import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobRunRepository } from '../repositories/job-run.repository.js';
import { ManualClock } from '../shared/clock.js';
import { silentLogger } from '../shared/logger.js';
import { openStore, type StateStore } from '../store.js';
import { adminPrincipal, contextOf, openTestStore, TEST_DIALECTS, type TestStore } from '../testing/index.js';
import { RETENTION_JOB } from './retention.service.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const admin = contextOf(adminPrincipal);

/**
 * Until `started()` holds: the first pass runs, so its claim (taken at the clock it read when
 * called) has committed. A fixed sleep stood here; on a loaded machine the claim's queries took
 * longer, the test moved the clock first and the second replica claimed before it.
 */
async function untilStarted(started: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!started()) {
    if (Date.now() > deadline) throw new Error('the first pass never started');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

for (const { dialect, available } of TEST_DIALECTS) {
  // Three replicas on one PostgreSQL database, two processes' worth of stores on one SQLite file.
  const replicaCount = dialect === 'postgres' ? 3 : 2;

  describe.skipIf(!available)(`scheduled jobs across ${replicaCount} replicas on ${dialect}`, () => {
    const clock = new ManualClock(Date.UTC(2026, 2, 1, 0, 0, 7));
    let t: TestStore;
    let replicas: StateStore[];

    beforeAll(async () => {
      t = await openTestStore(dialect, { clock });
      replicas = [t.store];
      for (let i = 1; i < replicaCount; i++) {
        replicas.push(await openStore({ url: t.url, clock, logger: silentLogger }));
      }
    });
    afterAll(async () => {
      for (const replica of replicas?.slice(1) ?? []) await replica.close();
      await t?.close();
    });

    /** Every replica wakes `wakes` times per interval (all at once: their claims race). */
    async function runIntervals(intervals: number, intervalMs: number, wakes: number) {
      for (let interval = 0; interval < intervals; interval++) {
        for (let wake = 0; wake < wakes; wake++) {
          await Promise.all(replicas.map((replica, index) => replica.jobs.tick(`replica-${index}`)));
          clock.advance(intervalMs / wakes);
        }
      }
    }

    it('every periodic job of the store runs through this one scheduler', () => {
      expect(
        t.store.jobs
          .definitions()
          .map((job) => job.name)
          .sort(),
      ).toEqual(['deferred-work', 'idempotency-purge', 'index-maintenance', 'liveness-sweep', 'retention']);
    });

    it('serves each interval exactly once, whichever replicas wake in it and how often', async () => {
      const passes: { replica: number; interval: number }[] = [];
      for (const [index, replica] of replicas.entries()) {
        replica.jobs.register({
          name: 'counted',
          intervalMs: 10 * MINUTE,
          run: async (context) => {
            passes.push({ replica: index, interval: context.interval.start });
            await context.checkpoint();
            return { replica: index };
          },
        });
      }
      const first = Math.floor(clock.now() / (10 * MINUTE)) * 10 * MINUTE;
      await runIntervals(8, 10 * MINUTE, 4);
      for (const replica of replicas) replica.jobs.configure('counted', 0);

      const perInterval = new Map<number, number>();
      for (const pass of passes) perInterval.set(pass.interval, (perInterval.get(pass.interval) ?? 0) + 1);
      expect([...perInterval.keys()]).toEqual(Array.from({ length: 8 }, (_, i) => first + i * 10 * MINUTE));
      expect([...perInterval.values()]).toEqual(Array(8).fill(1));
      const runs = await t.store.jobs.recent(admin, 100, 'counted');
      expect(runs).toHaveLength(8);
      expect(runs.every((run) => run.status === 'done' && run.attempts === 1)).toBe(true);
      expect(new Set(runs.map((run) => run.summary?.replica)).size).toBeGreaterThanOrEqual(1);
    });

    it('runs the retention job once per interval and removes expired sessions once', async () => {
      await t.store.sessions.create(admin, { id: `ret-${dialect}`, profile: 'jobs', source: 'cli' });
      await t.store.sessions.end(admin, `ret-${dialect}`, { reason: 'cli_close' }, { ifMatch: 1 });
      await t.store.retention.put(admin, 'jobs', 1);
      clock.advance(2 * DAY);
      const reports: { outcome: string; deleted: number }[] = [];
      for (const replica of replicas) {
        replica.jobs.configure(RETENTION_JOB, 5 * MINUTE);
        replica.jobs.observe((report) =>
          reports.push({ outcome: report.outcome, deleted: Number(report.summary?.deleted ?? 0) }),
        );
      }
      await runIntervals(6, 5 * MINUTE, 3);
      for (const replica of replicas) replica.jobs.configure(RETENTION_JOB, 0);
      expect(reports.filter((report) => report.outcome === 'ran')).toHaveLength(6);
      expect(reports.filter((report) => report.outcome !== 'ran')).toEqual([]);
      expect(reports.reduce((sum, report) => sum + report.deleted, 0)).toBe(1);
      const receipts = await t.store.receipts.list(admin, { after: 0, limit: 50, origin: 'retention' });
      expect(receipts.items.filter((receipt) => receipt.profile === 'jobs')).toHaveLength(1);
    });

    it('finishes an interval whose holder crashed mid-pass, once its lease has expired', async () => {
      const intervalMs = 60 * MINUTE;
      const leaseMs = 2 * MINUTE;
      const passes: string[] = [];
      for (const [index, replica] of replicas.entries()) {
        replica.jobs.register({
          name: 'crash-recovery',
          intervalMs,
          leaseMs,
          run: async (context) => {
            passes.push(`replica-${index}#${context.attempt}`);
            return {};
          },
        });
      }
      // A process claimed the interval and died: its row is all that is left of it.
      const intervalStart = Math.floor(clock.now() / intervalMs) * intervalMs;
      const claimed = await t.store.db.transaction().execute((trx) =>
        new JobRunRepository().claim(trx, {
          job: 'crash-recovery',
          intervalStart,
          intervalEnd: intervalStart + intervalMs,
          holder: 'crashed-process',
          now: clock.now(),
          leaseMs,
        }),
      );
      expect(claimed).toBe(1);
      await Promise.all(replicas.map((replica, index) => replica.jobs.tick(`replica-${index}`)));
      expect(passes).toEqual([]);
      clock.advance(leaseMs + 1);
      await Promise.all(replicas.map((replica, index) => replica.jobs.tick(`replica-${index}`)));
      expect(passes).toHaveLength(1);
      expect(passes[0]).toMatch(/#2$/);
      await Promise.all(replicas.map((replica, index) => replica.jobs.tick(`replica-${index}`)));
      expect(passes).toHaveLength(1);
      const [run] = await t.store.jobs.recent(admin, 1, 'crash-recovery');
      expect(run).toMatchObject({ status: 'done', attempts: 2 });
      for (const replica of replicas) replica.jobs.configure('crash-recovery', 0);
    });

    it('a pass that stalls past its lease stops at its next checkpoint when another replica took over', async () => {
      const intervalMs = 60 * MINUTE;
      const leaseMs = 2 * MINUTE;
      let release: () => void = () => undefined;
      const stalled = new Promise<void>((resolve) => {
        release = resolve;
      });
      const events: string[] = [];
      replicas[0].jobs.register({
        name: 'stall',
        intervalMs,
        leaseMs,
        run: async (context) => {
          events.push('a:start');
          await stalled;
          await context.checkpoint();
          events.push('a:continued');
          return {};
        },
      });
      replicas[1].jobs.register({
        name: 'stall',
        intervalMs,
        leaseMs,
        run: async () => {
          events.push('b:ran');
          return {};
        },
      });
      const a = replicas[0].jobs.runNow('stall', 'replica-a');
      await untilStarted(() => events.includes('a:start'));
      clock.advance(leaseMs + 1);
      const b = await replicas[1].jobs.runNow('stall', 'replica-b');
      release();
      expect(b.outcome).toBe('ran');
      expect((await a).outcome).toBe('lost');
      expect(events).toEqual(['a:start', 'b:ran']);
    });

    it('never overlaps itself: an interval that starts while the last pass runs is skipped', async () => {
      const intervalMs = 10 * MINUTE;
      clock.set((Math.floor(clock.now() / intervalMs) + 1) * intervalMs + 1000);
      let release: () => void = () => undefined;
      const slow = new Promise<void>((resolve) => {
        release = resolve;
      });
      const passes: number[] = [];
      for (const replica of replicas) {
        replica.jobs.register({
          name: 'overrun',
          intervalMs,
          // Renewed while it runs (here the clock jumps past the interval without the renewal timer).
          leaseMs: 6 * intervalMs,
          run: async (context) => {
            passes.push(context.interval.start);
            if (passes.length === 1) await slow;
            return {};
          },
        });
      }
      const first = replicas[0].jobs.runNow('overrun', 'replica-0');
      await untilStarted(() => passes.length === 1);
      clock.advance(intervalMs);
      // The next interval has begun, the first pass still runs: nobody starts a second one.
      expect((await replicas[1].jobs.runNow('overrun', 'replica-1')).outcome).toBe('busy');
      release();
      expect((await first).outcome).toBe('ran');
      expect((await replicas[1].jobs.runNow('overrun', 'replica-1')).outcome).toBe('ran');
      expect(passes).toHaveLength(2);
      for (const replica of replicas) replica.jobs.configure('overrun', 0);
    });

    it('retries a failed pass within its interval, after a pause, in any replica', async () => {
      const intervalMs = 60 * MINUTE;
      clock.set((Math.floor(clock.now() / intervalMs) + 1) * intervalMs + MINUTE);
      let attempts = 0;
      for (const replica of replicas) {
        replica.jobs.register({
          name: 'flaky',
          intervalMs,
          run: async () => {
            attempts++;
            if (attempts === 1) throw new Error('first attempt fails');
            return { attempts };
          },
        });
      }
      const first = await replicas[0].jobs.runNow('flaky', 'replica-0');
      expect(first.outcome).toBe('failed');
      expect((await replicas[1].jobs.runNow('flaky', 'replica-1')).outcome).toBe('busy');
      clock.advance(intervalMs / 10 + 1);
      const second = await replicas[1].jobs.runNow('flaky', 'replica-1');
      expect(second).toMatchObject({ outcome: 'ran', attempt: 2 });
      const [run] = await t.store.jobs.recent(admin, 1, 'flaky');
      expect(run).toMatchObject({ status: 'done', attempts: 2, error: null });
    });
  });
}
