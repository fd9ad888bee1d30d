import 'reflect-metadata';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { LIVENESS_SWEEP_JOB, ManualClock, ORPHAN_REAP_REASON } from '@statehouse/state';
import { adminPrincipal, contextOf, openTestStore, TEST_DIALECTS, type TestStore } from '@statehouse/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.factory.js';
import { loadConfig } from '../src/config.js';
import { MetricsRegistry } from '../src/metrics/metrics.registry.js';

const admin = contextOf(adminPrincipal);
const HOUR = 60 * 60 * 1000;

/**
 * Each API process sweeps at start-up (docs/domain.md §10.3), even when another process has
 * already served the current interval of the scheduled sweep: a restarted process ends what a
 * crash left open at once, not up to an interval later.
 */
for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`liveness sweep at start-up on ${dialect}`, () => {
    // On an hour boundary: the minutes below stay in the scheduled sweep's current interval.
    const clock = new ManualClock(Date.UTC(2026, 10, 5, 9));
    let t: TestStore;
    let app: NestExpressApplication | undefined;

    beforeAll(async () => {
      t = await openTestStore(dialect, { clock, runtime: { orphanIdleMs: 60_000 } });
    });
    afterAll(async () => {
      await app?.close();
      await t?.close();
    });

    it('[sweep.orphans] a process that starts ends the orphans it finds, though the current interval was served elsewhere', async () => {
      // Another process served this hour's scheduled sweep…
      t.store.jobs.configure(LIVENESS_SWEEP_JOB, HOUR);
      expect((await t.store.jobs.runNow(LIVENESS_SWEEP_JOB, 'other-process')).outcome).toBe('ran');
      // …then crashed with a session open that nobody owns; it stays idle past the window.
      await t.store.sessions.create(admin, {
        id: 'left-open',
        profile: 'boot',
        source: 'cli',
        messages: [{ role: 'user', content: 'the process died here' }],
      });
      clock.advance(2 * 60_000);
      expect((await t.store.jobs.runNow(LIVENESS_SWEEP_JOB, 'other-process')).outcome).toBe('served');

      // A new API process starts on the store with an hourly schedule.
      app = await createApp(
        {
          store: t.store,
          config: loadConfig({
            STATEHOUSE_DATABASE_URL: t.url,
            STATEHOUSE_RUN_JOBS: 'true',
            STATEHOUSE_SWEEP_INTERVAL_SECONDS: '3600',
            STATEHOUSE_RETENTION_INTERVAL_SECONDS: '0',
            STATEHOUSE_JOB_TICK_SECONDS: '0.2',
          }),
          metrics: new MetricsRegistry(),
        },
        { logger: false },
      );
      await expect
        .poll(async () => (await t.store.sessions.get(admin, 'left-open')).endReason, { timeout: 15_000 })
        .toBe(ORPHAN_REAP_REASON);
    }, 30_000);
  });
}
