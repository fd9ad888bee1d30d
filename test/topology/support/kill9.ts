import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DeletionReceipt } from '@statehouse/contracts';
import { type ManualClock, openStore, type StateStore, SYSTEM_PRINCIPAL, silentLogger } from '@statehouse/state';
import Database from 'better-sqlite3';
import { afterAll, expect } from 'vitest';
import { seededRandom } from '../../support/process-kit.js';

/**
 * What the kill -9 suites share (kill9.test.ts: appends and single deletes; kill9-chunked-deletes.test.ts:
 * chunked bulk deletes and retention): one SQLite file API processes are killed on, and the checks
 * every suite ends with.
 */

export const system = { principal: SYSTEM_PRINCIPAL, channel: 'system' as const };

export interface Kill9Database {
  /** The SQLite file. */
  path: string;
  databaseUrl: string;
  /** Seeded, so a failure replays. */
  random: () => number;
  /** A store opened on the file for `work` (seeding, or the checks after the kills), closed after it. */
  withStore<T>(work: (store: StateStore) => Promise<T>, clock?: ManualClock): Promise<T>;
  /** SQLite's own integrity_check on the file, and each of `zeroes` (a count query) answering 0. */
  expectFileIntact(zeroes: string[]): void;
}

/** A fresh SQLite file in a temporary folder removed after the suite. */
export function kill9Database(prefix: string, seed: number): Kill9Database {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const path = join(dir, 'statehouse.db');
  const databaseUrl = `file:${path}`;
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return {
    path,
    databaseUrl,
    random: seededRandom(seed),
    async withStore(work, clock) {
      const store = await openStore({ url: databaseUrl, logger: silentLogger, ...(clock ? { clock } : {}) });
      try {
        return await work(store);
      } finally {
        await store.close();
      }
    },
    expectFileIntact(zeroes) {
      const raw = new Database(path, { readonly: true });
      try {
        expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
        for (const query of zeroes) expect(raw.prepare(query).pluck().get(), query).toBe(0);
      } finally {
        raw.close();
      }
    },
  };
}

/** Every receipt, and the receipt naming each session: one receipt at most names a session. */
export async function receiptsNaming(store: StateStore): Promise<{
  receipts: DeletionReceipt[];
  named: Map<string, string>;
}> {
  const receipts: DeletionReceipt[] = [];
  for (let after = 0; ; ) {
    const page = await store.receipts.list(system, { after, limit: 500 });
    receipts.push(...page.items);
    if (!page.nextCursor) break;
    after = Number(page.nextCursor);
  }
  const named = new Map<string, string>();
  for (const receipt of receipts) {
    for (const identity of receipt.identities) {
      expect(named.has(identity.id)).toBe(false);
      named.set(identity.id, receipt.operationId);
    }
  }
  return { receipts, named };
}

/** The receipt chain verifies, and the search indexes match the messages term by term (no orphan postings). */
export async function expectChainAndIndexes(store: StateStore): Promise<void> {
  expect(await store.receipts.verify(system)).toMatchObject({ ok: true });
  const index = await store.searchIndex.status(system, true);
  expect(index.integrity?.indexes.map((entry) => [entry.name, entry.ok, entry.mismatchedTerms])).toEqual([
    ['word', true, 0],
    ['substring', true, 0],
  ]);
}
