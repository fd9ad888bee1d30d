import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnitOfWork } from '../db/unit-of-work.js';
import { DeferredWorkRepository } from '../repositories/deferred-work.repository.js';
import { silentLogger } from '../shared/logger.js';
import { openTestStore, TEST_DIALECTS, type TestStore } from '../testing/index.js';

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`deferred work on ${dialect}`, () => {
    let t: TestStore;

    beforeAll(async () => {
      t = await openTestStore(dialect);
    });
    afterAll(async () => {
      await t?.close();
    });

    // Replays a race seen in huge-branch.test.ts: the job's pass reaped an abandoned branch, the
    // reap enqueued the branch's purge, and the purge's after-commit kick started a second drain in
    // the same process beside the job's — both raced for the purge's row (the job's summary counted
    // 1 or 2 pieces of work depending on which won).
    it("work enqueued during the job's pass is finished by that pass, one drain at a time", async () => {
      const uow = new UnitOfWork(t.store.db, t.store.dialect, t.store.clock, silentLogger);
      let running = 0;
      let mostAtOnce = 0;
      const purged: string[] = [];
      t.store.deferred.handle('test-reap', async (subject) => {
        await uow.run(null, (tx) => t.store.deferred.enqueue(tx, 'test-purge', subject));
        // The kick from that commit gets its chance to start a drain while this handler still runs.
        await new Promise((resolve) => setTimeout(resolve, 20));
      });
      t.store.deferred.handle('test-purge', async (subject) => {
        running++;
        mostAtOnce = Math.max(mostAtOnce, running);
        await new Promise((resolve) => setTimeout(resolve, 20));
        purged.push(subject);
        running--;
      });
      // Left by a process that died: a row and no kick.
      await new DeferredWorkRepository().add(t.store.db, 'test-reap', 'branch-1', t.store.clock.now());

      t.store.jobs.configure('deferred-work', 60_000);
      const report = await t.store.jobs.runNow('deferred-work', 'test-process');
      await t.store.deferred.idle();

      expect(report).toMatchObject({ outcome: 'ran', summary: { finished: 2 } });
      expect(purged).toEqual(['branch-1']);
      expect(mostAtOnce).toBe(1);
      expect(await new DeferredWorkRepository().oldest(t.store.db, 10)).toEqual([]);
    });

    it('a kick during the pass that finds nothing left does no harm, and later work still starts at once', async () => {
      const uow = new UnitOfWork(t.store.db, t.store.dialect, t.store.clock, silentLogger);
      const done: string[] = [];
      t.store.deferred.handle('test-later', async (subject) => {
        done.push(subject);
      });
      await uow.run(null, (tx) => t.store.deferred.enqueue(tx, 'test-later', 'after-the-pass'));
      await t.store.deferred.idle();
      expect(done).toEqual(['after-the-pass']);
      expect(await new DeferredWorkRepository().oldest(t.store.db, 10)).toEqual([]);
    });
  });
}
