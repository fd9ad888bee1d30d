import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../shared/logger.js';
import { openStore, type StateStore } from '../store.js';
import { adminPrincipal, contextOf, openTestStore, TEST_DIALECTS, type TestStore } from '../testing/index.js';
import type { PostgresWakeups } from './postgres-wakeups.js';

const admin = contextOf(adminPrincipal);

/** Resolves with the ms it took until `store` hears a receipts wake-up, or rejects after `timeoutMs`. */
function nextWakeup(store: StateStore, timeoutMs = 2000): { heard: Promise<number>; cancel(): void } {
  const started = performance.now();
  let unsubscribe: () => void = () => undefined;
  let timer: NodeJS.Timeout | undefined;
  const heard = new Promise<number>((resolve, reject) => {
    unsubscribe = store.wakeups.subscribe('receipts', () => {
      clearTimeout(timer);
      unsubscribe();
      resolve(performance.now() - started);
    });
    timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`no wake-up within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  return {
    heard,
    cancel: () => {
      clearTimeout(timer);
      unsubscribe();
    },
  };
}

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`wake-ups between two stores on one ${dialect} database`, () => {
    let t: TestStore;
    let other: StateStore;
    let n = 0;

    beforeAll(async () => {
      t = await openTestStore(dialect);
      other = await openStore({ url: t.url, logger: silentLogger });
      if (dialect === 'postgres') await (other.wakeups as PostgresWakeups).ready();
    });
    afterAll(async () => {
      await other?.close();
      await t?.close();
    });

    async function deleteOne(store: StateStore): Promise<void> {
      const id = `wake-${n++}`;
      const created = await store.sessions.create(admin, {
        id,
        profile: 'w',
        source: 'cli',
        messages: [{ role: 'user', content: id }],
      });
      await store.deletion.deleteOne(
        admin,
        id,
        { includeCompressionChain: false, ifEmpty: false },
        { ifMatch: created.revision, expectedGeneration: created.generation },
      );
    }

    it('a receipt committed by one store wakes the other within the polling fallback', async () => {
      const wake = nextWakeup(other, 10_000);
      expect(other.wakeups.live).toBe(true);
      await deleteOne(t.store);
      // Heard at all: nothing here polls (watchers' own polling is not involved), so only the
      // cross-process wake-up can deliver it. How fast is the bench's figure, not a timed assertion
      // that a loaded machine breaks.
      expect(await wake.heard).toBeGreaterThan(0);
    });

    it('appends alone do not wake receipt watchers', async () => {
      const wake = nextWakeup(other, 300);
      wake.heard.catch(() => undefined);
      await t.store.sessions.create(admin, {
        id: `quiet-${dialect}`,
        profile: 'w',
        source: 'cli',
        messages: [{ role: 'user', content: 'no receipt here' }],
      });
      await expect(wake.heard).rejects.toThrow(/no wake-up/);
    });

    it('a rolled-back deletion wakes nobody', async () => {
      const wake = nextWakeup(other, 300);
      wake.heard.catch(() => undefined);
      await t.store.db
        .transaction()
        .execute(async (trx) => {
          await t.store.wakeups.announceIn(trx, 'receipts');
          throw new Error('roll back');
        })
        .catch(() => undefined);
      await expect(wake.heard).rejects.toThrow(/no wake-up/);
    });

    if (dialect === 'postgres') {
      it('reconnects after losing its LISTEN connection and wakes again', async () => {
        const wakeups = other.wakeups as PostgresWakeups;
        const stop = other.wakeups.subscribe('receipts', () => undefined);
        wakeups.simulateConnectionLoss();
        expect(wakeups.live).toBe(false);
        for (let i = 0; i < 50 && !wakeups.live; i++) await new Promise((resolve) => setTimeout(resolve, 20));
        expect(wakeups.live).toBe(true);
        const wake = nextWakeup(other, 10_000);
        await deleteOne(t.store);
        expect(await wake.heard).toBeGreaterThan(0);
        stop();
      });
    }
  });
}
