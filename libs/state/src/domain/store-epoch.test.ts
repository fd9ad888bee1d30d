import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restoreSqliteStore } from '../restore/restore.js';
import { EpochChangedError, type WatchEvent } from '../services/receipt.service.js';
import { ConflictError } from '../shared/errors.js';
import { silentLogger } from '../shared/logger.js';
import { openStore, type StateStore } from '../store.js';
import {
  adminPrincipal,
  contextOf,
  createTestDatabase,
  openTestStore,
  TEST_DIALECTS,
  TEST_PASSWORD_HASHING,
  TEST_PG_URL,
  type TestStore,
} from '../testing/index.js';

const admin = contextOf(adminPrincipal);

async function deleteNew(store: StateStore, id: string): Promise<number> {
  await store.sessions.create(admin, { id, profile: 'ep', source: 'cli', messages: [{ role: 'user', content: id }] });
  const result = await store.deletion.deleteOne(
    admin,
    id,
    { includeCompressionChain: false, ifEmpty: false },
    { ifMatch: 1, expectedGeneration: 0 },
  );
  return result.receipt!.sequence;
}

async function firstBookmark(store: StateStore, epoch?: string): Promise<WatchEvent> {
  const abort = new AbortController();
  try {
    for await (const event of store.receipts.watch(
      admin,
      { after: 0, bookmarkSeconds: 1, epoch },
      { signal: abort.signal },
    )) {
      if (event.type === 'bookmark') return event;
    }
    throw new Error('the stream ended without a bookmark');
  } finally {
    abort.abort();
  }
}

/** docs/domain.md §5.3.6: the store epoch, on both dialects. */
for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`the store epoch on ${dialect}`, () => {
    let t: TestStore;

    beforeAll(async () => {
      t = await openTestStore(dialect);
    });
    afterAll(async () => t?.close());

    it('[receipts.epoch] every page and bookmark carries the epoch; a cursor of another epoch is refused everywhere', async () => {
      await deleteNew(t.store, 'ep-1');
      const page = await t.store.receipts.list(admin, { after: 0, limit: 10 });
      expect(page.epoch).toMatch(/^[0-9a-f-]{36}$/);
      expect(await t.store.receipts.epoch()).toBe(page.epoch);
      expect((await t.store.receipts.list(admin, { after: 0, limit: 10, epoch: page.epoch })).items).toHaveLength(1);
      expect(await firstBookmark(t.store, page.epoch)).toMatchObject({ type: 'bookmark', epoch: page.epoch });

      const stale = '00000000-0000-4000-8000-000000000000';
      const refused = await t.store.receipts.list(admin, { after: 1, limit: 10, epoch: stale }).catch((error) => error);
      expect(refused).toBeInstanceOf(EpochChangedError);
      expect(refused).toMatchObject({ code: 'epoch_changed', extra: { epoch: page.epoch } });
      await expect(firstBookmark(t.store, stale)).rejects.toBeInstanceOf(EpochChangedError);
      await expect(t.store.receipts.acknowledge(admin, 'ep-consumer', 1, stale)).rejects.toBeInstanceOf(
        EpochChangedError,
      );
      // Acknowledgements record their epoch and never move back within it.
      expect(await t.store.receipts.acknowledge(admin, 'ep-consumer', 1, page.epoch)).toMatchObject({
        cursor: 1,
        epoch: page.epoch,
      });
      await expect(t.store.receipts.acknowledge(admin, 'ep-consumer', 0, page.epoch)).rejects.toBeInstanceOf(
        ConflictError,
      );
      expect((await t.store.receipts.listConsumers(admin)).find((c) => c.name === 'ep-consumer')?.epoch).toBe(
        page.epoch,
      );
    });
  });
}

describe('[receipts.epoch] restoring an older SQLite backup', () => {
  const dir = mkdtempSync(join(tmpdir(), 'statehouse-epoch-'));
  let t: TestStore;

  beforeAll(async () => {
    t = await openTestStore('sqlite');
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('[receipts.epoch] mints a new epoch: consumers of the old timeline are told, not fed re-issued sequences', async () => {
    const first = await deleteNew(t.store, 'old-1');
    const oldEpoch = await t.store.receipts.epoch();
    await t.store.receipts.acknowledge(admin, 'indexer', first, oldEpoch);
    const backup = join(dir, 'backup.db');
    await t.store.backups.backupTo(backup, { trigger: 'cli', holder: 'test' });
    // After the backup: more deletions, which a consumer reads and acknowledges.
    const second = await deleteNew(t.store, 'old-2');
    await t.store.receipts.acknowledge(admin, 'indexer', second, oldEpoch);

    const target = join(dir, 'restored.db');
    const report = await restoreSqliteStore(backup, `file:${target}`, silentLogger);
    expect(report.epoch).not.toBe(oldEpoch);
    const restored = await openStore({
      url: `file:${target}`,
      logger: silentLogger,
      passwordHashing: TEST_PASSWORD_HASHING,
    });
    try {
      expect(await restored.receipts.epoch()).toBe(report.epoch);
      // The restored store issues `second` again, for another deletion.
      expect(await deleteNew(restored, 'new-2')).toBe(second);
      // The consumer resuming from its cursor with its epoch is told, not handed the new receipt.
      await expect(restored.receipts.list(admin, { after: second, limit: 10, epoch: oldEpoch })).rejects.toMatchObject({
        code: 'epoch_changed',
        extra: { epoch: report.epoch },
      });
      // It resyncs from the start under the new epoch, and its acknowledgement starts over there.
      const resync = await restored.receipts.list(admin, { after: 0, limit: 10, epoch: report.epoch });
      expect(resync.items.map((receipt) => receipt.identities[0].id)).toEqual(['old-1', 'new-2']);
      const consumer = (await restored.receipts.listConsumers(admin)).find((c) => c.name === 'indexer')!;
      expect(consumer).toMatchObject({ cursor: first, epoch: oldEpoch });
      expect(await restored.receipts.acknowledge(admin, 'indexer', 0, report.epoch)).toMatchObject({
        cursor: 0,
        epoch: report.epoch,
      });
    } finally {
      await restored.close();
    }
  });
});

describe.skipIf(!TEST_PG_URL)('[receipts.epoch] a PostgreSQL store restored with pg_restore', () => {
  const dir = mkdtempSync(join(tmpdir(), 'statehouse-epoch-pg-'));
  let t: TestStore;

  beforeAll(async () => {
    t = await openTestStore('postgres');
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('[receipts.epoch] renews the epoch on the first start on the restored database, once, and not on the original', async () => {
    await deleteNew(t.store, 'pg-old-1');
    const oldEpoch = await t.store.receipts.epoch();
    const dump = join(dir, 'store.dump');
    await t.store.backups.backupTo(dump, { trigger: 'cli', holder: 'test', pgDump: true });
    const target = await createTestDatabase('postgres');
    try {
      execFileSync('pg_restore', ['--no-owner', '--exit-on-error', '--dbname', target.url, dump]);
      // Two processes start on it together: one renewal, the same epoch for both.
      const [a, b] = await Promise.all([
        openStore({ url: target.url, logger: silentLogger, passwordHashing: TEST_PASSWORD_HASHING }),
        openStore({ url: target.url, logger: silentLogger, passwordHashing: TEST_PASSWORD_HASHING }),
      ]);
      try {
        const epoch = await a.receipts.epoch();
        expect(epoch).not.toBe(oldEpoch);
        expect(await b.receipts.epoch()).toBe(epoch);
        await expect(a.receipts.list(admin, { after: 1, limit: 10, epoch: oldEpoch })).rejects.toBeInstanceOf(
          EpochChangedError,
        );
      } finally {
        await a.close();
        await b.close();
      }
      // A restart keeps it.
      const again = await openStore({ url: target.url, logger: silentLogger, passwordHashing: TEST_PASSWORD_HASHING });
      const kept = await again.receipts.epoch();
      await again.close();
      const restarted = await openStore({
        url: target.url,
        logger: silentLogger,
        passwordHashing: TEST_PASSWORD_HASHING,
      });
      expect(await restarted.receipts.epoch()).toBe(kept);
      await restarted.close();
    } finally {
      await target.drop();
    }
    // The original database, opened again, keeps its epoch.
    const original = await openStore({ url: t.url, logger: silentLogger, passwordHashing: TEST_PASSWORD_HASHING });
    expect(await original.receipts.epoch()).toBe(oldEpoch);
    await original.close();
  });
});
