import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RETENTION_JOB } from '../services/retention.service.js';
import { ManualClock } from '../shared/clock.js';
import { ConflictError, NotFoundError } from '../shared/errors.js';
import { silentLogger } from '../shared/logger.js';
import { openStore } from '../store.js';
import {
  adminPrincipal,
  aProfile,
  aSession,
  buildHermesScenario,
  contextOf,
  openTestStore,
  TEST_DIALECTS,
  TEST_PASSWORD_HASHING,
  type TestStore,
} from '../testing/index.js';
import type { SessionDeletedEvent, SessionMovedEvent } from './hook-registry.js';

const admin = contextOf(adminPrincipal);
const DAY = 24 * 60 * 60 * 1000;

/** Deletion and move observers (docs/domain.md §5.2), on both dialects. */
for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`observers on ${dialect}`, () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 2));
    let t: TestStore;
    let deleted: SessionDeletedEvent[] = [];
    let moved: SessionMovedEvent[] = [];

    const itemsOf = (ids: string[]) =>
      Promise.all(
        ids.map(async (id) => {
          const session = await t.store.sessions.get(admin, id);
          return { id, revision: session.revision, generation: session.generation };
        }),
      );
    const endAll = async (ids: string[]) => {
      for (const id of ids) {
        await t.store.sessions.end(
          admin,
          id,
          { reason: 'cli_close' },
          { ifMatch: (await t.store.sessions.get(admin, id)).revision },
        );
      }
    };

    const openObserved = async () => {
      const opened = await openTestStore(dialect, { clock });
      opened.store.hooks.onSessionDeleted((event) => {
        deleted.push(event);
      });
      opened.store.hooks.onSessionMoved((event) => {
        moved.push(event);
      });
      return opened;
    };
    beforeAll(async () => {
      t = await openObserved();
    });
    afterEach(async () => {
      await t.store.hooks.idle();
      deleted = [];
      moved = [];
    });
    afterAll(async () => t?.close());

    describe('a profile-repair move', () => {
      it('[observers.move-is-departure] a deletion-only observer hears the session leave its profile, and where it went', async () => {
        await aSession(t.store, { id: 'rep-1', profile: 'rep-from', lines: 2, advanceMs: 1000, title: 'Kept title' });
        await aSession(t.store, {
          id: 'rep-helper',
          profile: 'rep-from',
          lines: 1,
          advanceMs: 1000,
          parentSessionId: 'rep-1',
          lineageKind: 'delegate',
          source: 'subagent',
        });
        await aProfile(t.store, 'rep-to');
        const result = await t.store.profileAdmin.move(admin, 'rep-1', 'rep-to');
        await t.store.hooks.idle();
        expect(deleted).toHaveLength(1);
        expect(deleted[0]).toMatchObject({
          operationId: result.receipt!.operationId,
          reason: 'profile_repair',
          origin: 'profile_repair',
          intent: 'maintenance',
          profile: 'rep-from',
          toProfile: 'rep-to',
          sessionId: 'rep-1',
          receipts: [result.receipt],
        });
        expect([...deleted[0].deletedIds].sort()).toEqual(['rep-1', 'rep-helper']);
        expect(Object.keys(deleted[0].byProfile)).toEqual(['rep-from']);
        expect([...deleted[0].byProfile['rep-from']].sort()).toEqual(['rep-1', 'rep-helper']);
        // Move observers still hear the move, with the same operation.
        expect(moved).toEqual([
          expect.objectContaining({
            operationId: result.receipt!.operationId,
            fromProfile: 'rep-from',
            toProfile: 'rep-to',
            movedIds: deleted[0].deletedIds,
          }),
        ]);
        // The rows live on with their messages; the receipt claims no content was deleted.
        expect((await t.store.sessions.get(admin, 'rep-1')).profile).toBe('rep-to');
        const receipt = await t.store.receipts.get(admin, result.receipt!.operationId);
        expect(receipt).toMatchObject({ reason: 'profile_repair', intent: 'maintenance', profile: 'rep-from' });
        expect(receipt.counts).toMatchObject({ sessions: 2, messages: 0, deliveries: 0 });
      });

      it('[observers.move-is-departure] fires nothing when nothing moved: an unknown id, the same profile, a missing target', async () => {
        await aSession(t.store, { id: 'rep-stay', profile: 'rep-from', lines: 1, advanceMs: 1000 });
        await expect(t.store.profileAdmin.move(admin, 'rep-nobody', 'rep-to')).rejects.toBeInstanceOf(NotFoundError);
        await expect(t.store.profileAdmin.move(admin, 'rep-stay', 'rep-from')).rejects.toBeInstanceOf(ConflictError);
        await expect(t.store.profileAdmin.move(admin, 'rep-stay', 'rep-nowhere')).rejects.toBeInstanceOf(NotFoundError);
        await t.store.hooks.idle();
        expect(deleted).toEqual([]);
        expect(moved).toEqual([]);
        expect((await t.store.sessions.get(admin, 'rep-stay')).profile).toBe('rep-from');
      });
    });

    describe('one observer call per operation', () => {
      // A store of its own per test: the deletion service sizes its chunks from the last ones
      // (docs/decisions/0018-time-boxed-chunks-for-long-operations.md), so after other deletions one chunk could take a whole selection.
      beforeEach(async () => {
        await t.close();
        t = await openObserved();
      });
      it('[observers.once-per-operation] a bulk delete over two profiles is one call naming both', async () => {
        await aSession(t.store, { id: 'one-a', profile: 'once-a', lines: 1, advanceMs: 1000 });
        await aSession(t.store, { id: 'one-b', profile: 'once-b', lines: 1, advanceMs: 1000 });
        const result = await t.store.deletion.bulkDelete(admin, {
          items: await itemsOf(['one-a', 'one-b']),
          includeCompressionChain: false,
        });
        expect(result.receipts).toHaveLength(2);
        await t.store.hooks.idle();
        expect(deleted).toHaveLength(1);
        expect(deleted[0]).toMatchObject({
          reason: 'user',
          sessionId: 'one-a',
          operationId: result.receipts[0].operationId,
        });
        expect(deleted[0].byProfile).toEqual({ 'once-a': ['one-a'], 'once-b': ['one-b'] });
        expect(deleted[0].receipts).toEqual(result.receipts);
      });

      it('[observers.once-per-operation] a bulk delete in several chunks is one call after the last', async () => {
        const ids = ['chunk-0', 'chunk-1', 'chunk-2', 'chunk-3', 'chunk-4', 'chunk-5'];
        for (const id of ids) await aSession(t.store, { id, profile: 'once-chunks', lines: 500, advanceMs: 1000 });
        const result = await t.store.deletion.bulkDelete(admin, {
          items: await itemsOf(ids),
          includeCompressionChain: false,
        });
        expect(result.receipts.length).toBeGreaterThan(1);
        await t.store.hooks.idle();
        expect(deleted).toHaveLength(1);
        expect([...deleted[0].deletedIds].sort()).toEqual(ids);
        expect(deleted[0].receipts).toEqual(result.receipts);
      });

      it('[observers.once-per-operation] a maintenance pass in several chunks is one call', async () => {
        const ids = ['prune-0', 'prune-1', 'prune-2', 'prune-3', 'prune-4'];
        for (const id of ids) await aSession(t.store, { id, profile: 'once-prune', lines: 500, advanceMs: 1000 });
        await endAll(ids);
        clock.advance(3 * DAY);
        const result = await t.store.deletion.retentionPrune(admin, {
          olderThanDays: 1,
          profile: 'once-prune',
          dryRun: false,
        });
        expect(result.receipts.length).toBeGreaterThan(1);
        await t.store.hooks.idle();
        expect(deleted).toHaveLength(1);
        expect(deleted[0]).toMatchObject({ reason: 'prune', origin: 'retention' });
        expect([...deleted[0].deletedIds].sort()).toEqual(ids);
      });

      it('[observers.once-per-operation] the scheduled retention pass over several profiles and chunks is one call', async () => {
        const big = ['pass-0', 'pass-1', 'pass-2', 'pass-3', 'pass-4'];
        for (const id of big) await aSession(t.store, { id, profile: 'once-pass-a', lines: 500, advanceMs: 1000 });
        await aSession(t.store, { id: 'pass-small', profile: 'once-pass-b', lines: 1, advanceMs: 1000 });
        await endAll([...big, 'pass-small']);
        await t.store.retention.put(admin, 'once-pass-a', 1);
        await t.store.retention.put(admin, 'once-pass-b', 1);
        clock.advance(3 * DAY);
        t.store.jobs.configure(RETENTION_JOB, 60 * 60 * 1000);
        const run = await t.store.jobs.runNow(RETENTION_JOB, 'observer-test');
        expect(run.outcome).toBe('ran');
        await t.store.hooks.idle();
        expect(deleted).toHaveLength(1);
        expect(deleted[0].receipts.length).toBeGreaterThan(2);
        expect(Object.keys(deleted[0].byProfile).sort()).toEqual(['once-pass-a', 'once-pass-b']);
        expect([...deleted[0].byProfile['once-pass-a']].sort()).toEqual(big);
        await t.store.retention.put(admin, 'once-pass-a', null);
        await t.store.retention.put(admin, 'once-pass-b', null);
      });

      it('[observers.once-per-operation] a profile delete in several chunks is one call', async () => {
        const ids = ['gone-0', 'gone-1', 'gone-2', 'gone-3', 'gone-4'];
        for (const id of ids) await aSession(t.store, { id, profile: 'once-gone', lines: 500, advanceMs: 1000 });
        const result = await t.store.profileAdmin.delete(admin, 'once-gone', { deleteSessions: true, dryRun: false });
        expect(result.receipts.length).toBeGreaterThan(1);
        await t.store.hooks.idle();
        expect(deleted).toHaveLength(1);
        expect(deleted[0]).toMatchObject({ reason: 'profile_delete', profile: 'once-gone' });
        expect([...deleted[0].deletedIds].sort()).toEqual(ids);
        expect(deleted[0].receipts).toEqual(result.receipts);
      });

      it('[observers.once-per-operation] an import that replaces several sessions is one call', async () => {
        const dir = mkdtempSync(join(tmpdir(), 'observers-import-'));
        try {
          const path = join(dir, 'state.db');
          buildHermesScenario(path, 30).close();
          await aSession(t.store, { id: 'no-profile', profile: 'gamma', lines: 1, advanceMs: 1000 });
          await aSession(t.store, { id: 'unk-parent', profile: 'gamma', lines: 1, advanceMs: 1000 });
          const result = await t.store.imports.runHermes(admin, {
            path,
            profile: 'gamma',
            onConflict: 'replace',
            dryRun: false,
          });
          expect(result.report.sessions.conflicts).toBe(2);
          await t.store.hooks.idle();
          expect(deleted).toHaveLength(1);
          expect(deleted[0]).toMatchObject({ reason: 'import_replace', origin: 'import_replace' });
          expect([...deleted[0].deletedIds].sort()).toEqual(['no-profile', 'unk-parent']);
          expect(deleted[0].receipts).toHaveLength(2);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
    });

    it('[observers.guarantees] another process’s deletion is not heard; its receipt is in the feed', async () => {
      // A second store on the same database: another API process (a replica).
      const replica = await openStore({
        logger: silentLogger,
        passwordHashing: TEST_PASSWORD_HASHING,
        url: t.url,
        clock,
      });
      try {
        const heardThere: SessionDeletedEvent[] = [];
        replica.hooks.onSessionDeleted((event) => {
          heardThere.push(event);
        });
        await aSession(t.store, { id: 'far-1', profile: 'far', lines: 1, advanceMs: 1000 });
        const before = (await replica.receipts.list(admin, { after: 0, limit: 1 })).highWater;
        await t.store.deletion.deleteOne(
          admin,
          'far-1',
          { includeCompressionChain: false, ifEmpty: false },
          { ifMatch: 1, expectedGeneration: 0 },
        );
        await t.store.hooks.idle();
        await replica.hooks.idle();
        expect(deleted.map((event) => event.sessionId)).toEqual(['far-1']);
        expect(heardThere).toEqual([]);
        const page = await replica.receipts.list(admin, { after: before, limit: 10 });
        expect(page.items.flatMap((receipt) => receipt.identities.map((identity) => identity.id))).toEqual(['far-1']);
      } finally {
        await replica.close();
      }
    });
  });
}
