import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { ftsLevelsOf, ftsMergeInProgress } from './fts-structure.js';

/** A bare FTS5 table with its own merging off, so the test decides when segments merge. */
function ftsTable() {
  const db = new Database(':memory:');
  db.exec(`create virtual table t using fts5(body); insert into t(t, rank) values ('automerge', 0);`);
  const structure = () => (db.prepare('select block from t_data where id = 10').get() as { block: Buffer }).block;
  const appendSegment = (n: number) => db.prepare('insert into t(body) values (?)').run(`word${n} common text ${n}`);
  return { db, structure, appendSegment };
}

describe('FTS5 structure record', () => {
  let db: Database.Database | undefined;
  afterEach(() => db?.close());

  it('reads one segment per committed write at level 0, and one after an optimize', () => {
    const t = ftsTable();
    db = t.db;
    expect(ftsLevelsOf(t.structure())).toEqual([]);
    for (let n = 0; n < 12; n++) t.appendSegment(n);
    const before = ftsLevelsOf(t.structure());
    expect(before[0].pages).toHaveLength(12);
    expect(before[0].merging).toBe(0);
    expect(ftsMergeInProgress(t.structure())).toBe(false);
    t.db.exec(`insert into t(t) values ('optimize')`);
    const after = ftsLevelsOf(t.structure());
    expect(after.flatMap((level) => level.pages)).toHaveLength(1);
  });

  it('sees an incremental merge in progress until positive steps finish it', () => {
    const t = ftsTable();
    db = t.db;
    // Enough rows per segment that a one-page merge step cannot finish the merge.
    const insert = t.db.prepare('insert into t(body) values (?)');
    for (let segment = 0; segment < 8; segment++) {
      t.db.transaction(() => {
        for (let n = 0; n < 400; n++) insert.run(`segment${segment} row${n} ${'x'.repeat(n % 40)} y${n * 7}`);
      })();
    }
    t.db.exec(`insert into t(t, rank) values ('merge', -1)`);
    expect(ftsMergeInProgress(t.structure())).toBe(true);
    expect(ftsLevelsOf(t.structure()).some((level) => level.merging > 0)).toBe(true);
    let steps = 0;
    while (ftsMergeInProgress(t.structure()) && steps < 10_000) {
      t.db.exec(`insert into t(t, rank) values ('merge', 1)`);
      steps++;
    }
    expect(ftsMergeInProgress(t.structure())).toBe(false);
    expect(steps).toBeGreaterThan(0);
  });

  it('treats a missing or short record as no levels', () => {
    expect(ftsLevelsOf(undefined)).toEqual([]);
    expect(ftsLevelsOf(new Uint8Array([0, 0]))).toEqual([]);
    expect(ftsMergeInProgress(null)).toBe(false);
  });
});
