import type { IndexIntegrity } from '@statehouse/contracts';
import type { Db, Executor } from '../db/database.js';

/** What a long rebuild calls between its chunks (renew its lease, yield, stop when asked). */
export interface RebuildChunks {
  between(lastChunkMs: number): Promise<void>;
  /**
   * How long one chunk may keep taking steps (default: the chunk stop threshold). 0 makes every
   * step a chunk of its own: chunks then follow the step sizes only, not the machine's speed
   * (tests that need several chunks of a small store).
   */
  stopMs?: number;
}

/** Checking and rebuilding the search indexes: one implementation per dialect. */
export interface SearchIndexPort {
  /** Compares each index with what the messages say it should hold. */
  check(db: Executor): Promise<IndexIntegrity['indexes']>;
  /**
   * Rebuilds the indexes from the messages, in bounded chunks where the dialect needs it; resumes
   * a rebuild a crashed process left half-done.
   */
  rebuild(db: Db, chunks: RebuildChunks): Promise<void>;
  /** A rebuild is under way (or was left half-done): the indexes are incomplete meanwhile. */
  inProgress(db: Executor): Promise<boolean>;
  /** Whether the word index answers at all. */
  usable(db: Executor): Promise<boolean>;
}
