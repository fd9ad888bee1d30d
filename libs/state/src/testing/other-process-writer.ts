import { Worker } from 'node:worker_threads';

/**
 * Another process's writer, on its own thread (its own event loop): it wants the write lock the
 * way the store's SQLite driver asks for it (no busy timeout; retries on timers every 1–4 ms),
 * takes it, lets it go at once, and wants it again a moment later. It measures how often it got in
 * and how long one want lasted at most — what a request of another process sharing the file would
 * have waited for its transaction while a long operation runs here.
 */
const OTHER_WRITER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require('better-sqlite3');
const db = new Database(workerData);
db.pragma('busy_timeout = 0');
let stop = false;
parentPort.on('message', () => { stop = true; });
let wants = 0, longestWait = 0, round = 0, wantedSince = performance.now();
const attempt = () => {
  try {
    db.exec('begin immediate');
    db.exec('rollback');
    wants++;
    longestWait = Math.max(longestWait, performance.now() - wantedSince);
    round = 0;
    if (stop) {
      db.close();
      return parentPort.postMessage({ wants, longestWait });
    }
    // The next request of that process arrives a moment later.
    return setTimeout(() => { wantedSince = performance.now(); attempt(); }, 3);
  } catch (error) {
    if (!String(error.code).startsWith('SQLITE_BUSY')) throw error;
  }
  setTimeout(attempt, Math.min(4, 1 + (round++ >> 1)));
};
attempt();
`;

export interface OtherWriterOutcome {
  /** Times it took the lock. */
  wants: number;
  /** Its longest wait for the lock, in milliseconds. */
  longestWait: number;
}

/** Starts the other writer on a SQLite file (a path, or a `file:` URL); `stop` answers what it saw. */
export async function startOtherProcessWriter(file: string): Promise<{ stop(): Promise<OtherWriterOutcome> }> {
  const other = new Worker(OTHER_WRITER, { eval: true, workerData: file.replace(/^file:/, '') });
  const answered = new Promise<OtherWriterOutcome>((resolve, reject) => {
    other.once('message', resolve);
    other.once('error', reject);
  });
  await new Promise((resolve) => other.once('online', resolve));
  return {
    async stop() {
      other.postMessage('stop');
      try {
        return await answered;
      } finally {
        await other.terminate();
      }
    },
  };
}
