/**
 * Reading an FTS5 index's structure record (`<table>_data` row 10, fts5_index.c "Structure
 * Records"): a 4-byte cookie, an optional V2 marker, then the level count, the segment count, a
 * write counter, and per level the segments an incremental merge in progress is reading, the
 * segment count and per segment its id and first/last leaf page (V2 adds five varints each).
 */

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

/** The levels of an index from its structure record (none for a missing or empty record). */
export function ftsLevelsOf(structure: Uint8Array | null | undefined): FtsLevel[] {
  if (!structure || structure.length < 4) return [];
  let i = 4;
  const v2 = structure[4] === 0xff && structure[5] === 0 && structure[6] === 0 && structure[7] === 1;
  if (v2) i += 4;
  let levelCount: number;
  [levelCount, i] = varint(structure, i);
  [, i] = varint(structure, i); // segments in all
  [, i] = varint(structure, i); // write counter
  const levels: FtsLevel[] = [];
  for (let level = 0; level < levelCount; level++) {
    let merging: number;
    let count: number;
    [merging, i] = varint(structure, i);
    [count, i] = varint(structure, i);
    const pages: number[] = [];
    for (let s = 0; s < count; s++) {
      let first: number;
      let last: number;
      [, i] = varint(structure, i);
      [first, i] = varint(structure, i);
      [last, i] = varint(structure, i);
      if (v2) for (let k = 0; k < 5; k++) [, i] = varint(structure, i);
      pages.push(last - first + 1);
    }
    levels.push({ merging, pages });
  }
  return levels;
}

/** Whether any level of the index has an incremental merge in progress. */
export function ftsMergeInProgress(structure: Uint8Array | null | undefined): boolean {
  return ftsLevelsOf(structure).some((level) => level.merging > 0);
}
