/**
 * The nice value of worker threads that do a long job's bulk work without holding a lock other
 * writers wait for: the scheduled online backup's page copy and the checks and index an import
 * runs on its private copy. On a machine with fewer free cores than runnable threads, such a
 * thread at the default priority takes a core from the event loops that answer requests (the
 * health bench on 2 cores, 2026-12-01: `/healthz` gaps of 130–140 ms during the backup, of which
 * 5–6 ms on a CPU and the rest waiting for one). Threads that hold SQLite's write lock (the write
 * worker, the index merger) keep the default: a lower priority would stretch the lock other
 * writers wait for.
 */
export const BACKGROUND_THREAD_NICE = 10;

/**
 * JavaScript that lowers the scheduling priority of the thread running it, for the program of a
 * worker started with `new Worker(source, { eval: true })`. On Linux a nice value belongs to a
 * thread, and setpriority(2) given a thread id changes only that thread; `/proc/thread-self`
 * names it. A thread already lower keeps its value; elsewhere (no such file), or where the call
 * is refused, the thread keeps its priority.
 */
export const LOWER_THREAD_PRIORITY = `
try {
  const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
  const os = require('node:os');
  if (tid > 0 && os.getPriority(tid) < ${BACKGROUND_THREAD_NICE}) os.setPriority(tid, ${BACKGROUND_THREAD_NICE});
} catch {}
`;
