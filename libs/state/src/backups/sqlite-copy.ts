import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { LOWER_THREAD_PRIORITY } from '../shared/background-thread.js';

/**
 * Copies a SQLite store with the online backup API on a worker thread (its own connection), so the
 * copy never holds this process's event loop. The first step only opens the backup; the second
 * copies every page in one step inside one read transaction — a consistent snapshot that, in WAL
 * mode, never blocks writers in any process (a step-by-step copy would restart each time another
 * connection commits). The copy is then switched to a self-contained rollback-journal file,
 * checked (`quick_check`) and counted. The thread runs at a lower priority (shared/background-thread.ts):
 * it holds no lock anyone waits for, and the event loops answering requests come first.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driverPath);
${LOWER_THREAD_PRIORITY}
(async () => {
  const source = new Database(workerData.source, { fileMustExist: true });
  source.pragma('busy_timeout = 5000');
  let pages = 0;
  try {
    const result = await source.backup(workerData.target, { progress: () => 0x7fffffff });
    pages = result.totalPages;
  } finally {
    source.close();
  }
  const copy = new Database(workerData.target, { fileMustExist: true });
  try {
    copy.pragma('journal_mode = DELETE');
    const check = copy.pragma('quick_check', { simple: true });
    const count = (table) => {
      const exists = copy.prepare("select 1 from sqlite_master where type = 'table' and name = ?").get(table);
      return exists ? copy.prepare('select count(*) from ' + table).pluck().get() : 0;
    };
    const counts = { sessions: count('sessions'), messages: count('messages'), receipts: count('deletion_receipts') };
    parentPort.postMessage({ ok: true, pages, check, counts });
  } finally {
    copy.close();
  }
})().catch((error) => parentPort.postMessage({ ok: false, error: String((error && error.message) || error) }));
`;

export interface CopyResult {
  pages: number;
  /** `ok`, or what quick_check found. */
  check: string;
  counts: { sessions: number; messages: number; receipts: number };
}

export function copySqliteStore(source: string, target: string): Promise<CopyResult> {
  const driverPath = createRequire(import.meta.url).resolve('better-sqlite3');
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driverPath, source, target } });
    worker.once('message', (message: { ok: boolean; error?: string } & Partial<CopyResult>) => {
      void worker.terminate();
      if (message.ok) resolve({ pages: message.pages!, check: message.check!, counts: message.counts! });
      else reject(new Error(message.error));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`the copy worker exited with code ${code}`));
    });
  });
}
