import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import {
  adminPrincipal,
  aSession,
  contextOf,
  dumpImportedState,
  HermesFixture,
  importHermes,
  SCENARIO_T0,
  TEST_DIALECTS,
  type TestStore,
} from '../../testing/index.js';
import { type Scratch, useScratch } from '../../testing/suites.js';
import type { HermesSplitTuning } from '../import.service.js';

/**
 * A dry run decides and counts from reads only: the report the real run gives, nothing written, and
 * no write lock taken however large a session is (docs/operations.md, Imports).
 */
const admin = contextOf(adminPrincipal);
const t0 = SCENARIO_T0;
/** Small enough that the big sessions below are written in chunks by the real run. */
const SPLIT: HermesSplitTuning = { splitSessionsAbove: 300, maxSessionChunk: 200 };

type Fixture = HermesFixture;

/** Tries to take the write lock every 2 ms until told to stop; answers how long it was locked out at most. */
const PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require('better-sqlite3');
const db = new Database(workerData);
db.pragma('busy_timeout = 0');
let stop = false;
parentPort.on('message', () => { stop = true; });
let attempts = 0, lockedSince, longestLockedOut = 0;
const tick = () => {
  const now = performance.now();
  attempts++;
  try {
    db.exec('begin immediate');
    db.exec('rollback');
    if (lockedSince !== undefined) longestLockedOut = Math.max(longestLockedOut, now - lockedSince);
    lockedSince = undefined;
  } catch (error) {
    if (!String(error.code).startsWith('SQLITE_BUSY')) throw error;
    if (lockedSince === undefined) lockedSince = now;
  }
  if (!stop) return setTimeout(tick, 2);
  if (lockedSince !== undefined) longestLockedOut = Math.max(longestLockedOut, performance.now() - lockedSince);
  db.close();
  parentPort.postMessage({ attempts, longestLockedOut });
};
tick();
`;

/** v1 of the source: what the store imported first. */
function firstCopy(f: Fixture): void {
  f.session({ id: 'same', source: 'cli', profile_name: 'dry', title: 'Unchanged', started_at: t0 });
  for (let i = 0; i < 5; i++) f.message('same', { role: 'user', content: `same ${i}`, timestamp: t0 + i });
  f.session({ id: 'grows', source: 'cli', profile_name: 'dry', title: 'Grows', started_at: t0 });
  for (let i = 0; i < 6; i++) f.message('grows', { role: 'user', content: `grows ${i}`, timestamp: t0 + i });
  f.session({ id: 'edited', source: 'cli', profile_name: 'dry', title: 'Edited', started_at: t0 });
  for (let i = 0; i < 4; i++) f.message('edited', { role: 'user', content: `edited ${i}`, timestamp: t0 + i });
  f.session({ id: 'gone', source: 'cli', profile_name: 'dry', title: 'Gone', started_at: t0 });
  f.message('gone', { role: 'user', content: 'gone 0', timestamp: t0 });
  f.session({ id: 'bigup', source: 'cli', profile_name: 'dry', title: 'Big update', started_at: t0 });
  for (let i = 0; i < 50; i++) f.message('bigup', { role: 'user', content: `bigup ${i}`, timestamp: t0 + i });
}

/** v2: one unchanged, one grown with a title change and a rewind, one whose imported message changed, new ones. */
function secondCopy(f: Fixture): void {
  firstCopy(f);
  f.update('sessions', 'grows', { title: 'Grown' });
  const firstOfGrows = (
    f.db.prepare(`select min(id) as id from messages where session_id = 'grows'`).get() as {
      id: number;
    }
  ).id;
  f.update('messages', firstOfGrows, { active: 0 });
  for (let i = 6; i < 12; i++) f.message('grows', { role: 'user', content: `grows ${i}`, timestamp: t0 + 100 + i });
  const firstOfEdited = (
    f.db.prepare(`select min(id) as id from messages where session_id = 'edited'`).get() as {
      id: number;
    }
  ).id;
  f.update('messages', firstOfEdited, { content: 'edited 0, rewritten' });
  for (let i = 50; i < 900; i++) f.message('bigup', { role: 'user', content: `bigup ${i}`, timestamp: t0 + i });
  // Taken here by a session created through the API (a conflict).
  f.session({ id: 'local', source: 'cli', profile_name: 'dry', title: 'Local', started_at: t0 });
  f.message('local', { role: 'user', content: 'local from the file', timestamp: t0 });
  // New: two with one title (the second gets "(2)"), and a big one written in chunks by the real run.
  for (const id of ['new-a', 'new-b']) {
    f.session({ id, source: 'cli', profile_name: 'dry', title: 'Same title', started_at: t0 + 5 });
    for (let i = 0; i < 3; i++) f.message(id, { role: 'user', content: `${id} ${i}`, timestamp: t0 + 5 + i });
  }
  f.session({ id: 'new-big', source: 'cli', profile_name: 'dry', title: 'Unchanged', started_at: t0 + 9 });
  for (let i = 0; i < 1200; i++) f.message('new-big', { role: 'user', content: `big ${i}`, timestamp: t0 + 9 + i });
}

function build(scratch: Scratch, fill: (f: Fixture) => void): string {
  return HermesFixture.write(scratch.path('hermes-dry-'), 30, fill);
}

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`Hermes dry run on ${dialect}`, { timeout: 180_000 }, () => {
    const locks: number[] = [];
    const scratch = useScratch(dialect, { onWriteLock: (ms) => locks.push(ms) });

    const run = (t: TestStore, path: string, onConflict: 'skip' | 'replace', dryRun: boolean) =>
      importHermes(t, { path, profile: 'dry', onConflict, dryRun, split: SPLIT });

    /** The store after v1, then changed here: one session deleted, one created under an id v2 brings. */
    async function prepared(v1: string) {
      const t = await scratch.open();
      await run(t, v1, 'skip', false);
      await t.store.deletion.deleteOne(
        admin,
        'gone',
        { includeCompressionChain: false, ifEmpty: false },
        { ifMatch: (await t.store.sessions.get(admin, 'gone')).revision, expectedGeneration: 0 },
      );
      await aSession(t.store, {
        id: 'local',
        profile: 'dry',
        title: 'Local',
        messages: [{ role: 'user', content: 'made here' }],
      });
      return t;
    }

    it('reports what the real run does for new, updated, conflicting, deleted and unchanged sessions, and writes nothing', async () => {
      const v1 = build(scratch, firstCopy);
      const v2 = build(scratch, secondCopy);
      const dry = await prepared(v1);
      const real = await prepared(v1);
      const before = await dumpImportedState(dry.store);

      locks.length = 0;
      const drySkip = await run(dry, v2, 'skip', true);
      const dryReplace = await run(dry, v2, 'replace', true);
      // No write transaction at all (SQLite: the write lock was never taken).
      expect(locks).toEqual([]);
      expect(await dumpImportedState(dry.store)).toEqual(before);
      expect(drySkip.longestUnitMessages).toBe(0);

      const realSkip = await run(real, v2, 'skip', false);
      expect(drySkip.report).toEqual(realSkip.report);
      expect(realSkip.report.sessions).toEqual({ created: 3, updated: 2, skipped: 2, conflicts: 2 });
      expect(realSkip.report.warnings).toContain(
        'session new-b: title "Same title" is taken here; stored as "Same title (2)"',
      );
      expect(realSkip.report.warnings).toContain(
        'session new-big: title "Unchanged" is taken here; stored as "Unchanged (2)"',
      );
      // The real run wrote the big ones in chunks; the dry run read them whole and reported the same.
      expect(realSkip.longestUnitMessages).toBeLessThanOrEqual(200);

      const realReplace = await run(dry, v2, 'replace', false);
      expect(dryReplace.report).toEqual(realReplace.report);
      expect(realReplace.report.sessions).toEqual({ created: 4, updated: 4, skipped: 1, conflicts: 2 });
    });

    // Whether the replaced boss and its helper are decided in one unit (each decides from the rows it
    // read at its start) or the helper in a later one (300 messages fill the first unit).
    for (const [bossMessages, expected] of [
      [1, { created: 0, updated: 2, skipped: 0, conflicts: 2 }],
      [300, { created: 1, updated: 1, skipped: 0, conflicts: 1 }],
    ] as const) {
      it(`a replace that would remove a delegate child here that the file holds too (boss of ${bossMessages} messages): reported as the real run reports it`, async () => {
        const path = build(scratch, (f) => {
          f.session({ id: 'boss', source: 'cli', profile_name: 'dry', title: 'Boss', started_at: t0 });
          for (let i = 0; i < bossMessages; i++) {
            f.message('boss', { role: 'user', content: `boss from the file ${i}`, timestamp: t0 + i });
          }
          f.session({
            id: 'boss-helper',
            source: 'subagent',
            profile_name: 'dry',
            parent_session_id: 'boss',
            started_at: t0 + 1,
          });
          f.message('boss-helper', { role: 'user', content: 'helper from the file', timestamp: t0 + 1 });
        });
        const seeded = async () => {
          const t = await scratch.open();
          await aSession(t.store, { id: 'boss', profile: 'dry', title: 'Boss here' });
          await aSession(t.store, {
            id: 'boss-helper',
            profile: 'dry',
            source: 'subagent',
            parentSessionId: 'boss',
            lineageKind: 'delegate',
          });
          return t;
        };
        const dry = await run(await seeded(), path, 'replace', true);
        const real = await run(await seeded(), path, 'replace', false);
        expect(dry.report).toEqual(real.report);
        expect(real.report.sessions).toEqual(expected);
      });
    }

    // SQLite only: one file, one write lock (PostgreSQL has no lock a dry run could hold).
    if (dialect === 'sqlite')
      it('another writer of the file is never locked out while a dry run reads a large session', async () => {
        const path = scratch.path('hermes-dry-');
        const f = new HermesFixture(path, 30);
        f.transaction(() => {
          f.session({ id: 'huge', source: 'cli', profile_name: 'dry', title: 'Huge', started_at: t0 });
          for (let i = 0; i < 20_000; i++) {
            f.message('huge', {
              role: i % 2 ? 'assistant' : 'user',
              content: `line ${i} of a long one`,
              timestamp: t0 + i,
            });
          }
        });
        f.close();
        const t = await scratch.open();
        // Another writer of the file, on its own thread (its own event loop, as another process's):
        // no busy timeout, so each attempt says at once whether the write lock is free.
        const prober = new Worker(PROBE, { eval: true, workerData: t.url.replace(/^file:/, '') });
        const stopped = new Promise<{ attempts: number; longestLockedOut: number }>((resolve, reject) => {
          prober.once('message', resolve);
          prober.once('error', reject);
        });
        await new Promise((resolve) => prober.once('online', resolve));
        locks.length = 0;
        let probed: { attempts: number; longestLockedOut: number };
        try {
          const dry = await t.store.imports.runHermes(admin, {
            path,
            profile: 'dry',
            onConflict: 'skip',
            dryRun: true,
          });
          expect(dry.report.sessions).toEqual({ created: 1, updated: 0, skipped: 0, conflicts: 0 });
          expect(dry.report.messages.created).toBe(20_000);
        } finally {
          prober.postMessage('stop');
          probed = await stopped;
          await prober.terminate();
        }
        const { attempts, longestLockedOut } = probed;
        console.log(
          `dry run of 20 000 messages: another writer locked out ${longestLockedOut.toFixed(1)} ms at most (${attempts} attempts)`,
        );
        expect(attempts).toBeGreaterThan(5);
        expect(locks).toEqual([]);
        // Before: one rolled-back transaction held the lock for the whole session (≈ 1–2 s here).
        expect(longestLockedOut).toBeLessThan(50);
      });
  });
}
