import type { IndexIntegrity } from '@statehouse/contracts';
import type { Db, Executor } from '../db/database.js';

/** Checking and rebuilding the search indexes: one implementation per dialect. */
export interface SearchIndexPort {
  /** Compares each index with what the messages say it should hold. */
  check(db: Executor): Promise<IndexIntegrity['indexes']>;
  /** Rebuilds the indexes from the messages (within `db`'s transaction when the dialect allows). */
  rebuild(db: Db): Promise<void>;
  /** Whether the word index answers at all. */
  usable(db: Executor): Promise<boolean>;
}
