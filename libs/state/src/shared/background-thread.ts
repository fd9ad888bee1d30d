import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * The nice value of worker threads that do a long job's bulk work without holding a lock other
 * writers wait for: the scheduled online backup's page copy and the checks and index an import
 * runs on its private copy. On a machine with fewer free cores than runnable threads, such a
 * thread at the default priority takes a core from the event loops that answer requests: in the
 * health bench on 2 cores, `/healthz` gaps during the backup were almost all time waiting for a
 * core (docs/decisions/0022-background-threads-at-lower-priority.md). Threads that hold SQLite's write lock (the write
 * worker, the index merger) keep the default: a lower priority would stretch the lock other
 * writers wait for.
 */
export const BACKGROUND_THREAD_NICE = 10;

/**
 * Lowers the scheduling priority of the thread that calls it (a worker thread's program, first
 * thing). On Linux a nice value belongs to a thread, and setpriority(2) given a thread id changes
 * only that thread; `/proc/thread-self` names it. A thread already lower keeps its value;
 * elsewhere (no such file), or where the call is refused, the thread keeps its priority.
 * Answers the thread's nice value afterwards, or null where it cannot be read.
 */
export function lowerThreadPriority(): number | null {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!(tid > 0)) return null;
    if (getPriority(tid) < BACKGROUND_THREAD_NICE) setPriority(tid, BACKGROUND_THREAD_NICE);
    return getPriority(tid);
  } catch {
    return null;
  }
}
