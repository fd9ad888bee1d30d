import { type FtsLevel, ftsLevelsOf } from '@statehouse/state/testing';
import type Database from 'better-sqlite3';
import { msSince, nowNs } from './timing.js';

export type { FtsLevel };

/** The store's two FTS5 indexes (libs/state/src/db/sqlite-fts-merger.ts, FTS_TABLES). */
export const FTS_INDEXES = ['messages_fts', 'messages_trgm'] as const;

/**
 * The levels of an FTS5 index, read from its structure record (`<table>_data` row 10) by the
 * store's own reader.
 */
export function ftsLevels(db: Database.Database, table: string): FtsLevel[] {
  const row = db.prepare(`select block from ${table}_data where id = 10`).get() as { block: Buffer } | undefined;
  return ftsLevelsOf(row?.block);
}

/** `L0 12/40p · L1 3/900p`: segments and leaf pages per non-empty level. */
export function describeLevels(levels: readonly FtsLevel[]): string {
  return levels
    .map((level, n) => ({ level, n }))
    .filter(({ level }) => level.pages.length > 0)
    .map(
      ({ level, n }) =>
        `L${n} ${level.pages.length}${level.merging ? ` (${level.merging} merging)` : ''}/${level.pages.reduce((a, b) => a + b, 0)}p`,
    )
    .join(' · ');
}

function usermerge(db: Database.Database, table: string): number {
  const row = db.prepare(`select v from ${table}_config where k = 'usermerge'`).get() as { v: number } | undefined;
  return Number(row?.v ?? 4);
}

/**
 * Waits until the store's FTS merger has nothing left to merge: on every index, no level holds
 * `usermerge` segments and no incremental merge is in progress — the state the merger leaves a
 * store in after any quiet moment. `db` is a read-only look at the file (it never commits, so the
 * merger sees the file quiet). Returns the milliseconds waited; throws after `timeoutMs`.
 */
export async function untilFtsMerged(db: Database.Database, timeoutMs = 600_000): Promise<number> {
  const started = nowNs();
  const limits = FTS_INDEXES.map((table) => usermerge(db, table));
  for (;;) {
    const merged = FTS_INDEXES.every((table, t) =>
      ftsLevels(db, table).every((level) => level.merging === 0 && level.pages.length < limits[t]),
    );
    if (merged) return msSince(started);
    if (msSince(started) > timeoutMs) {
      throw new Error(
        `the FTS merger did not finish in ${timeoutMs / 1000} s: ` +
          FTS_INDEXES.map((table) => `${table} ${describeLevels(ftsLevels(db, table))}`).join('; '),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
