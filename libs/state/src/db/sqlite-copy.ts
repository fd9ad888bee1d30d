import { startWorker } from '../shared/worker-program.js';
import type { CopyAnswer, CopyWorkerData } from './sqlite-copy.worker.js';

export interface CopyResult {
  pages: number;
  /** `ok`, or what quick_check found. */
  check: string;
  counts: { sessions: number; messages: number; receipts: number };
}

/**
 * Copies a SQLite store with the online backup API on a worker thread (its own connection), so the
 * copy never holds this process's event loop. The first step only opens the backup; the second
 * copies every page in one step inside one read transaction — a consistent snapshot that, in WAL
 * mode, never blocks writers in any process (a step-by-step copy would restart each time another
 * connection commits). The copy is then switched to a self-contained rollback-journal file,
 * checked (`quick_check`) and counted. The thread runs at a lower priority (shared/background-thread.ts):
 * it holds no lock anyone waits for, and the event loops answering requests come first. Its
 * program is backups/sqlite-copy.worker.ts.
 */
export function copySqliteStore(source: string, target: string): Promise<CopyResult> {
  return new Promise((resolve, reject) => {
    const workerData: CopyWorkerData = { source, target };
    const worker = startWorker(import.meta.url, 'sqlite-copy.worker', { workerData });
    worker.once('message', (message: CopyAnswer) => {
      void worker.terminate();
      if (message.ok) resolve({ pages: message.pages, check: message.check, counts: message.counts });
      else reject(new Error(message.error));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`the copy worker exited with code ${code}`));
    });
  });
}
