import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobLeaseRepository } from '../repositories/job-lease.repository.js';
import { SqliteSearchIndex } from '../search/sqlite-search-index.js';
import { ManualClock } from '../shared/clock.js';
import { adminPrincipal, contextOf, openTestStore, TEST_DIALECTS, type TestStore } from '../testing/index.js';
import { INDEX_MAINTENANCE_JOB } from './index-maintenance.service.js';
import { SEARCH_REBUILD_JOB } from './search-index.service.js';

const admin = contextOf(adminPrincipal);
const HOUR = 60 * 60 * 1000;

async function seed(t: TestStore, sessions: number, perSession: number): Promise<void> {
  for (let s = 0; s < sessions; s++) {
    await t.store.sessions.create(admin, {
      id: `rr-${s}`,
      profile: 'rr',
      source: 'cli',
      messages: Array.from({ length: perSession }, (_, i) => ({
        role: 'user' as const,
        content: `line ${i} of session ${s} about narwhal${s} ${'padding '.repeat(8)}`,
      })),
    });
  }
}

/**
 * docs/domain.md §7.6.1: a rebuild a crashed process left behind is resumed by the maintenance job
 * once its admission lapses (SQLite: the only dialect whose rebuild leaves a half-built index).
 */
describe('[search.rebuild-recovery] a deferred index recovery on sqlite', () => {
  const clock = new ManualClock(Date.UTC(2026, 10, 6, 10));
  let t: TestStore;

  beforeAll(async () => {
    t = await openTestStore('sqlite', { clock });
    await seed(t, 3, 1500);
  }, 60_000);
  afterAll(async () => t?.close());

  it('[search.rebuild-recovery] is retried by the maintenance job once the dead run’s admission has lapsed', async () => {
    // A process took the rebuild, indexed a chunk and died: its lease is still live.
    await t.store.db
      .transaction()
      .execute((trx) =>
        new JobLeaseRepository().acquire(trx, SEARCH_REBUILD_JOB, 'dead-host:1#rebuild-x', clock.now(), 2 * 60 * 1000),
      );
    const port = new SqliteSearchIndex();
    await expect(
      port.rebuild(t.store.db, {
        stopMs: 0,
        between: async () => {
          throw new Error('the process died here');
        },
      }),
    ).rejects.toThrow('died');
    expect(await port.inProgress(t.store.db)).toBe(true);

    // At start-up of another process the recovery is deferred: the dead run's admission is live.
    expect(await t.store.searchIndex.resumeAbandoned('host:2')).toBe(false);
    t.store.jobs.configure(INDEX_MAINTENANCE_JOB, HOUR);
    const early = await t.store.jobs.runNow(INDEX_MAINTENANCE_JOB, 'host:2');
    expect(early).toMatchObject({ outcome: 'ran', summary: { resumedRebuild: false } });
    expect(await port.inProgress(t.store.db)).toBe(true);
    expect((await t.store.search.search(admin, { q: 'narwhal1', mode: 'word', limit: 5 })).degraded).toBe(true);

    // The next pass, after the admission lapsed, resumes it from its watermark and finishes it.
    clock.advance(HOUR);
    const later = await t.store.jobs.runNow(INDEX_MAINTENANCE_JOB, 'host:2');
    expect(later).toMatchObject({ outcome: 'ran', summary: { resumedRebuild: true } });
    await t.store.searchIndex.idle();
    expect(await port.inProgress(t.store.db)).toBe(false);
    expect((await t.store.searchIndex.status(admin, true)).integrity?.ok).toBe(true);
    const found = await t.store.search.search(admin, { q: 'narwhal1', mode: 'word', limit: 5 });
    expect(found).toMatchObject({ degraded: false });
    expect(found.items).toHaveLength(5);
  });
});

/** docs/domain.md §7.6.1: admission to a rebuild fails closed — on both dialects. */
for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`rebuild admission when its lease cannot be written on ${dialect}`, () => {
    let t: TestStore;

    const refuseLeases = async () => {
      if (dialect === 'sqlite') {
        await sql`create trigger refuse_lease_insert before insert on job_leases
          begin select raise(abort, 'leases cannot be written'); end`.execute(t.store.db);
        await sql`create trigger refuse_lease_update before update on job_leases
          begin select raise(abort, 'leases cannot be written'); end`.execute(t.store.db);
      } else {
        await sql`create function refuse_lease() returns trigger language plpgsql as $$
          begin raise exception 'leases cannot be written'; end $$`.execute(t.store.db);
        await sql`create trigger refuse_lease before insert or update on job_leases
          for each row execute function refuse_lease()`.execute(t.store.db);
      }
    };
    const allowLeases = async () => {
      if (dialect === 'sqlite') {
        await sql`drop trigger refuse_lease_insert`.execute(t.store.db);
        await sql`drop trigger refuse_lease_update`.execute(t.store.db);
      } else {
        await sql`drop trigger refuse_lease on job_leases`.execute(t.store.db);
        await sql`drop function refuse_lease()`.execute(t.store.db);
      }
    };

    beforeAll(async () => {
      t = await openTestStore(dialect);
      await seed(t, 3, 1500);
    }, 60_000);
    afterAll(async () => t?.close());

    it('[search.rebuild-recovery] a rebuild whose own lease write fails is refused, and nothing starts', async () => {
      await refuseLeases();
      try {
        await expect(t.store.searchIndex.rebuild(admin, 'host:3')).rejects.toThrow();
        await t.store.searchIndex.idle();
        expect(await t.store.searchIndex.rebuilding()).toBe(false);
        const status = await t.store.searchIndex.status(admin, false);
        expect(status.status).not.toBe('rebuilding');
        expect(status.degraded).toBe(false);
        if (dialect === 'sqlite') {
          // Nor is a half-built index resumed without its admission.
          const port = new SqliteSearchIndex();
          await expect(
            port.rebuild(t.store.db, {
              stopMs: 0,
              between: async () => {
                throw new Error('the process died here');
              },
            }),
          ).rejects.toThrow('died');
          await expect(t.store.searchIndex.resumeAbandoned('host:3')).rejects.toThrow();
          await t.store.searchIndex.idle();
          expect(await port.inProgress(t.store.db)).toBe(true);
        }
      } finally {
        await allowLeases();
      }
      // Leases writable again: the rebuild is admitted (and a half-built index finished).
      await t.store.searchIndex.rebuild(admin, 'host:3');
      await t.store.searchIndex.idle();
      expect(await t.store.searchIndex.rebuilding()).toBe(false);
      expect((await t.store.search.search(admin, { q: 'narwhal1', mode: 'word', limit: 5 })).items).toHaveLength(5);
    });
  });
}
