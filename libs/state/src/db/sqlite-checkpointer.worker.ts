import { statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/** What the checkpointer gives its thread (db/sqlite-checkpointer.ts). */
export interface CheckpointerWorkerData {
  path: string;
  intervalMs: number;
  /** A WAL file larger than this is emptied once checkpointed (-1: never). */
  walSizeLimit: number;
}

/** What the thread reports. */
export type FromCheckpointer =
  | { type: 'busy' | 'truncated' | 'ok' }
  | { type: 'failed'; code: string; message: string };

/** The checkpointer's thread (db/sqlite-checkpointer.ts): a PASSIVE checkpoint every interval. */
const data = workerData as CheckpointerWorkerData;
const port = parentPort!;
const post = (message: FromCheckpointer) => port.postMessage(message);
const db = new Database(data.path, { fileMustExist: true });
db.pragma('busy_timeout = 0');
const walSize = () => {
  try {
    return statSync(`${data.path}-wal`).size;
  } catch {
    return 0;
  }
};
interface CheckpointRound {
  busy: number;
  log: number;
  checkpointed: number;
}
let failing = false;
setInterval(() => {
  try {
    const [round] = db.pragma('wal_checkpoint(PASSIVE)') as CheckpointRound[];
    const copied = round && round.busy === 0 && round.log > 0 && round.checkpointed === round.log;
    if (copied && data.walSizeLimit >= 0 && walSize() > data.walSizeLimit) {
      const [cut] = db.pragma('wal_checkpoint(TRUNCATE)') as CheckpointRound[];
      if (cut && cut.busy === 0) post({ type: 'truncated' });
    }
    if (failing) post({ type: 'ok' });
    failing = false;
  } catch (error) {
    const failure = error as { code?: unknown; message?: unknown } | null;
    const code = String(failure?.code || '');
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
      // Another process is checkpointing, or a moment of recovery: the next round catches up.
      post({ type: 'busy' });
      return;
    }
    failing = true;
    post({ type: 'failed', code, message: String(failure?.message || error) });
  }
}, data.intervalMs);
