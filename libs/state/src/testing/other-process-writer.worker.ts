import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { OtherWriterOutcome } from './other-process-writer.js';

/** The other writer's thread (testing/other-process-writer.ts); `workerData` is the file's path. */
const port = parentPort!;
const db = new Database(workerData as string);
db.pragma('busy_timeout = 0');
let stop = false;
port.on('message', () => {
  stop = true;
});
let wants = 0;
let longestWait = 0;
let round = 0;
let wantedSince = performance.now();
const attempt = (): void => {
  try {
    db.exec('begin immediate');
    db.exec('rollback');
    wants++;
    longestWait = Math.max(longestWait, performance.now() - wantedSince);
    round = 0;
    if (stop) {
      db.close();
      port.postMessage({ wants, longestWait } satisfies OtherWriterOutcome);
      return;
    }
    // The next request of that process arrives a moment later.
    setTimeout(() => {
      wantedSince = performance.now();
      attempt();
    }, 3);
    return;
  } catch (error) {
    if (!String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY')) throw error;
  }
  setTimeout(attempt, Math.min(4, 1 + (round++ >> 1)));
};
attempt();
