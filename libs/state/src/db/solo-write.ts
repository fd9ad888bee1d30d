/**
 * One write committed on its own, at once, instead of in a unit of work's transaction — for a
 * write whose decision was read outside any transaction at a change stamp (db/change-stamp.ts): if
 * the writer is idle and the stamp is unchanged inside `BEGIN IMMEDIATE`, the reads still hold,
 * and the write costs its statement and its COMMIT — no savepoint, no wait for the end of the
 * event-loop turn (decision 0026). SQLite only; elsewhere, and whenever it cannot, nothing runs and
 * the caller takes its unit of work.
 */
export interface SoloWrites {
  /** True when the statement ran and committed; false when nothing ran. */
  write(stamp: string, sql: string, parameters: readonly unknown[]): boolean;
}

/** Per store (its root Kysely instance); PostgreSQL stores register none. */
const stores = new WeakMap<object, SoloWrites>();

export function registerSoloWrites(db: object, writes: SoloWrites): void {
  stores.set(db, writes);
}

/** `db`'s solo write path, if its store has one. */
export function soloWrites(db: object): SoloWrites | undefined {
  return stores.get(db);
}
