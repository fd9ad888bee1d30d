import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Runs statements in one write transaction on a worker thread (its own connection). For the few
 * statements SQLite cannot split — dropping a large table frees every one of its pages in one
 * go — this keeps the event loop of this process free; other writers (in every process) wait for
 * the lock as for any transaction, on their own timers.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driverPath);
const db = new Database(workerData.path, { fileMustExist: true });
try {
  db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
  db.pragma('foreign_keys = ON');
  db.transaction(() => {
    for (const statement of workerData.statements) db.prepare(statement).run();
  }).immediate();
  parentPort.postMessage({ ok: true });
} catch (error) {
  parentPort.postMessage({ ok: false, message: String(error && error.message), code: error && error.code });
} finally {
  db.close();
}
`;

export function runTransactionOnWorker(path: string, statements: string[], busyTimeoutMs: number): Promise<void> {
  const driverPath = createRequire(import.meta.url).resolve('better-sqlite3');
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { driverPath, path, statements, busyTimeoutMs },
    });
    worker.once('message', (message: { ok: boolean; message?: string; code?: string }) => {
      if (message.ok) resolve();
      else reject(Object.assign(new Error(message.message), { code: message.code }));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`the transaction worker exited with code ${code}`));
    });
  });
}
