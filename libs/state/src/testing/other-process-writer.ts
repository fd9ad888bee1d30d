import { startWorker } from '../shared/worker-program.js';

export interface OtherWriterOutcome {
  /** Times it took the lock. */
  wants: number;
  /** Its longest wait for the lock, in milliseconds. */
  longestWait: number;
}

/**
 * Another process's writer, on its own thread (its own event loop): it wants the write lock the
 * way the store's SQLite driver asks for it (no busy timeout; retries on timers every 1–4 ms),
 * takes it, lets it go at once, and wants it again a moment later. It measures how often it got in
 * and how long one want lasted at most — what a request of another process sharing the file would
 * have waited for its transaction while a long operation runs here. Its program is
 * testing/other-process-writer.worker.ts. Started on a SQLite file (a path, or a `file:` URL); `stop`
 * answers what it saw.
 */
export async function startOtherProcessWriter(file: string): Promise<{ stop(): Promise<OtherWriterOutcome> }> {
  const other = startWorker(import.meta.url, 'other-process-writer.worker', { workerData: file.replace(/^file:/, '') });
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
