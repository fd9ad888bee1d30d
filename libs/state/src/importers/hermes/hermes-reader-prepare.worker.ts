import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { lowerThreadPriority } from '../../shared/background-thread.js';
import type { PrepareAnswer } from './hermes-reader.js';

/** What the reader gives the thread that prepares its private copy (importers/hermes/hermes-reader.ts). */
export interface PrepareWorkerData {
  path: string;
  createIndex: boolean;
  /** The index the import reads messages by. */
  index: string;
  /** Each session's message count. */
  counts: string;
}

/**
 * `prepareHere` on a connection of this thread (the same steps, in the same order), at a lower
 * priority: it works on the private copy, holding no lock of the store (shared/background-thread.ts).
 */
const data = workerData as PrepareWorkerData;
const threadNice = lowerThreadPriority();
const message = (error: unknown) => String((error as Error | null)?.message || error);
const answer: PrepareAnswer = { threadNice };
let db: Database.Database | undefined;
try {
  db = new Database(data.path, { fileMustExist: true });
  try {
    answer.lines = (db.prepare('pragma quick_check(5)').all() as { quick_check: string }[]).map(
      (row) => row.quick_check,
    );
  } catch (error) {
    answer.checkFailed = message(error);
  }
  try {
    if (data.createIndex) db.exec(data.index);
  } catch (error) {
    answer.indexFailed = { code: (error as { code?: string } | null)?.code, message: message(error) };
  }
  if (!answer.indexFailed) {
    // Best effort: what fails here is done (or fails, as before) on the reader's connection.
    try {
      db.pragma('wal_checkpoint(TRUNCATE)');
    } catch {}
    try {
      answer.counts = (db.prepare(data.counts).all() as { session_id: unknown; n: unknown }[]).map((row) => [
        String(row.session_id),
        Number(row.n),
      ]);
    } catch {}
  }
} catch (error) {
  answer.checkFailed = message(error);
} finally {
  if (db) db.close();
}
parentPort!.postMessage(answer);
