import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { lowerThreadPriority } from '../shared/background-thread.js';
import type { CopyResult } from './sqlite-copy.js';

/** What the copy gives its thread (db/sqlite-copy.ts). */
export interface CopyWorkerData {
  source: string;
  target: string;
}

export type CopyAnswer = ({ ok: true } & CopyResult) | { ok: false; error: string };

/** The copy's thread (db/sqlite-copy.ts), at the background priority. */
const data = workerData as CopyWorkerData;
const port = parentPort!;
lowerThreadPriority();
(async () => {
  const source = new Database(data.source, { fileMustExist: true });
  source.pragma('busy_timeout = 5000');
  let pages = 0;
  try {
    const result = await source.backup(data.target, { progress: () => 0x7fffffff });
    pages = result.totalPages;
  } finally {
    source.close();
  }
  const copy = new Database(data.target, { fileMustExist: true });
  try {
    copy.pragma('journal_mode = DELETE');
    const check = copy.pragma('quick_check', { simple: true }) as string;
    const count = (table: string): number => {
      const exists = copy.prepare("select 1 from sqlite_master where type = 'table' and name = ?").get(table);
      return exists ? (copy.prepare(`select count(*) from ${table}`).pluck().get() as number) : 0;
    };
    const counts = { sessions: count('sessions'), messages: count('messages'), receipts: count('deletion_receipts') };
    port.postMessage({ ok: true, pages, check, counts } satisfies CopyAnswer);
  } finally {
    copy.close();
  }
})().catch((error) =>
  port.postMessage({ ok: false, error: String((error as Error | null)?.message || error) } satisfies CopyAnswer),
);
