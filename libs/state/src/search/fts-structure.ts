/**
 * Reading an FTS5 index's structure record (`<table>_data` row 10, fts5_index.c "Structure
 * Records"): a 4-byte cookie, an optional V2 marker, then the level count, the segment count, a
 * write counter, and per level the segments an incremental merge in progress is reading, the
 * segment count and per segment its id and first/last leaf page (V2 adds five varints each).
 */

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

/** Whether any level of the index has an incremental merge in progress. */
export function ftsMergeInProgress(structure: Uint8Array | null | undefined): boolean {
  if (!structure || structure.length < 4) return false;
  let i = 4;
  if (structure[4] === 0xff && structure[5] === 0 && structure[6] === 0 && structure[7] === 1) i += 4;
  const v2 = i === 8;
  let levels: number;
  [levels, i] = varint(structure, i);
  [, i] = varint(structure, i);
  [, i] = varint(structure, i);
  for (let level = 0; level < levels; level++) {
    let merging: number;
    let count: number;
    [merging, i] = varint(structure, i);
    if (merging > 0) return true;
    [count, i] = varint(structure, i);
    for (let s = 0; s < count; s++) {
      for (let k = 0; k < (v2 ? 8 : 3); k++) [, i] = varint(structure, i);
    }
  }
  return false;
}
