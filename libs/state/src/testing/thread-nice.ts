import { readdirSync, readFileSync } from 'node:fs';

/** The nice value in a /proc/…/stat line (field 19; fields counted after the parenthesised name). */
export const niceOf = (stat: string) => Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);

/**
 * The nice values this process's threads other than the main one took while `work` ran, sampled
 * between turns of the event loop (worker threads work while the loop turns). Linux only.
 */
export async function threadNicesDuring(work: () => Promise<unknown>): Promise<Set<number>> {
  const seen = new Set<number>();
  let running = true;
  const sample = () => {
    for (const tid of readdirSync('/proc/self/task')) {
      if (Number(tid) === process.pid) continue;
      try {
        seen.add(niceOf(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')));
      } catch {
        // The thread ended between the listing and the read.
      }
    }
    if (running) setImmediate(sample);
  };
  sample();
  try {
    await work();
  } finally {
    running = false;
  }
  return seen;
}
