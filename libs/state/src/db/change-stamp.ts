/**
 * When a store's writer may have seen its data change: a value that differs whenever it may have
 * (SQLite: rows its writer changed, committed or not, and commits of other connections). A read
 * taken after an idle stamp and checked against the stamp inside a transaction is still what the
 * transaction sees when the two are equal — so a decision made on it need not be made again.
 */
export interface ChangeStamps {
  /**
   * `idle`: the stamp when the writer has no open transaction (undefined otherwise: its uncommitted
   * rows are not what a read outside it sees). `in-transaction`: the stamp inside the open one.
   */
  stamp(when: 'idle' | 'in-transaction'): string | undefined;
}

/** Per store (its root Kysely instance); PostgreSQL stores register none. */
const stores = new WeakMap<object, ChangeStamps>();

export function registerChangeStamps(db: object, stamps: ChangeStamps): void {
  stores.set(db, stamps);
}

/** `db`'s change stamp now, or undefined when the store keeps none or cannot give one now. */
export function changeStamp(db: object, when: 'idle' | 'in-transaction'): string | undefined {
  return stores.get(db)?.stamp(when);
}
