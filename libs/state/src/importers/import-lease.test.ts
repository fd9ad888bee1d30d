import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlitePath } from '../db/connect.js';
import { ImportLeaseLostError } from '../domain/import-errors.js';
import { ManualClock } from '../shared/clock.js';
import { adminPrincipal, buildHermesBulk, contextOf, openTestStore, type TestStore } from '../testing/index.js';
import { IMPORT_LEASE_MS } from './import.service.js';

const admin = contextOf(adminPrincipal);

describe('an import that loses its lease stops writing', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hermes-lease-'));
  const source = join(dir, 'state.db');
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 8));
  let t: TestStore;
  let total = 0;

  beforeAll(async () => {
    total = buildHermesBulk(source, { conversations: 30, messagesPerSession: 12 }).sessions;
    t = await openTestStore('sqlite', { clock });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('after another run takes the expired lease over, no further chunk commits; the run ends interrupted', async () => {
    // Another process, on the same file: it takes the lease once this run's has expired.
    const other = new Database(sqlitePath(t.url));
    other.pragma('busy_timeout = 5000');
    let doneAtTakeOver: number | null = null;
    try {
      const outcome = await t.store.imports
        .runHermes(admin, {
          path: source,
          onConflict: 'skip',
          dryRun: false,
          // Small units: many chunks, so there is a "next one" after the take-over.
          batchTargetMs: 1,
          onProgress: (progress) => {
            if (doneAtTakeOver !== null || progress.phase !== 'sessions' || progress.sessionsDone === 0) return;
            // This process stalled past its lease; another run took it (as `begin` would).
            clock.advance(IMPORT_LEASE_MS + 1000);
            other
              .prepare(`update job_leases set holder = ?, expires_at = ? where name = 'import'`)
              .run('import:other@elsewhere:1', clock.now() + IMPORT_LEASE_MS);
            doneAtTakeOver = progress.sessionsDone;
          },
        })
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(doneAtTakeOver).not.toBeNull();
      expect(doneAtTakeOver!).toBeLessThan(total);
      expect(outcome).toBeInstanceOf(ImportLeaseLostError);
    } finally {
      other.close();
    }
    // Nothing was written after the take-over: exactly the sessions committed before it.
    const imported = await t.store.db
      .selectFrom('sessions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(imported.n)).toBe(doneAtTakeOver);
    const [job] = (await t.store.imports.list(admin, { limit: 5 })).items;
    expect(job).toMatchObject({ state: 'interrupted', progress: { sessionsDone: doneAtTakeOver } });
    expect(job.error).toMatch(/took over the import lease/);
    // The other run's lease is untouched (this run did not release or renew it).
    const lease = await t.store.db.selectFrom('job_leases').selectAll().where('name', '=', 'import').executeTakeFirst();
    expect(lease?.holder).toBe('import:other@elsewhere:1');
  });
});
