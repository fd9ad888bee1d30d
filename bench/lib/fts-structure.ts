import type Database from 'better-sqlite3';
import { msSince, nowNs } from './timing.js';

/** The store's two FTS5 indexes (libs/state/src/db/sqlite-fts-merger.ts, FTS_TABLES). */
export const FTS_INDEXES = ['messages_fts', 'messages_trgm'] as const;

/** One level of an FTS5 index: its segments (leaf pages each) and how many of them a merge in progress takes. */
export interface FtsLevel {
  /** Segments of this level that an incremental merge in progress is reading (0: none). */
  merging: number;
  pages: number[];
}

/** SQLite's varint (big-endian groups of 7 bits, the ninth byte whole), as FTS5 writes it. */
function varint(buf: Uint8Array, at: number): [number, number] {
  let value = 0;
  let i = at;
  for (let n = 0; n < 8; n++) {
    const byte = buf[i++];
    value = value * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) return [value, i];
  }
  return [value * 256 + buf[i++], i];
}

/**
 * The levels of an FTS5 index, read from its structure record (`<table>_data` row 10: a 4-byte
 * cookie, an optional V2 marker, then level count, segment count, write counter, and per level the
 * segments in a merge, the segment count and per segment its id and first/last leaf page — V2
 * adds five varints per segment). See fts5_index.c, "Structure Records".
 */
export function ftsLevels(db: Database.Database, table: string): FtsLevel[] {
  const row = db.prepare(`select block from ${table}_data where id = 10`).get() as { block: Buffer } | undefined;
  if (!row) return [];
  const buf = row.block;
  let i = 4;
  const v2 = buf[4] === 0xff && buf[5] === 0 && buf[6] === 0 && buf[7] === 1;
  if (v2) i += 4;
  let levelCount: number;
  [levelCount, i] = varint(buf, i);
  [, i] = varint(buf, i); // segments in all
  [, i] = varint(buf, i); // write counter
  const levels: FtsLevel[] = [];
  for (let level = 0; level < levelCount; level++) {
    let merging: number;
    let count: number;
    [merging, i] = varint(buf, i);
    [count, i] = varint(buf, i);
    const pages: number[] = [];
    for (let s = 0; s < count; s++) {
      let first: number;
      let last: number;
      [, i] = varint(buf, i);
      [first, i] = varint(buf, i);
      [last, i] = varint(buf, i);
      if (v2) for (let k = 0; k < 5; k++) [, i] = varint(buf, i);
      pages.push(last - first + 1);
    }
    levels.push({ merging, pages });
  }
  return levels;
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
