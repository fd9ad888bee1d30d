import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * WAL checkpoints on a worker thread. By default SQLite checkpoints inside the COMMIT that pushes
 * the WAL past 1 000 pages: that commit then copies megabytes back into the database file on the
 * event loop of whichever process made it (the tens-of-milliseconds spikes of an append, and of a
 * chunk of long work). The writer connections turn that off (`wal_autocheckpoint = 0`) and this
 * worker runs a PASSIVE checkpoint every few hundred milliseconds on its own connection instead:
 * it never waits for or blocks a reader or a writer, and when it has copied everything the next
 * writer starts the WAL over, so the file stays small. Every process sharing the file runs one;
 * two at once simply take turns.
 */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const Database = require(workerData.driverPath);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('busy_timeout = 0');
setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Another process is checkpointing, or a moment of recovery: the next round catches up.
  }
}, workerData.intervalMs);
`;

export const CHECKPOINT_INTERVAL_MS = 200;

export class SqliteCheckpointer {
  private readonly worker: Worker;

  constructor(path: string, intervalMs = CHECKPOINT_INTERVAL_MS) {
    const driverPath = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driverPath, path, intervalMs } });
    this.worker.unref();
    // A worker that cannot open the file leaves checkpoints to the last connection's close.
    this.worker.on('error', () => undefined);
  }

  async close(): Promise<void> {
    await this.worker.terminate().catch(() => undefined);
  }
}
