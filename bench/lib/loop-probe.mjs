/**
 * Preloaded into an API process by the health bench (`node --import …/loop-probe.mjs`): a 5 ms
 * timer notes every gap longer than 20 ms in its event loop, with how much of that gap the main
 * thread spent on a CPU and how long it waited for one (Linux schedstat). A gap mostly on a CPU
 * is this process's own work blocking its loop; a gap mostly waiting is a machine short of CPUs.
 * Lines `<epoch ms at the gap's end> <gap ms> <on-CPU ms> <waiting ms>` go to BENCH_LOOP_PROBE_FILE.
 */
import { appendFileSync, readFileSync } from 'node:fs';

const file = process.env.BENCH_LOOP_PROBE_FILE;
const schedstat = `/proc/self/task/${process.pid}/schedstat`;
const sched = () => {
  try {
    const [run, wait] = readFileSync(schedstat, 'utf8').split(' ').map(Number);
    return { run: run / 1e6, wait: wait / 1e6 };
  } catch {
    return { run: Number.NaN, wait: Number.NaN };
  }
};
if (file) {
  let last = performance.now();
  let lastSched = sched();
  const timer = setInterval(() => {
    const now = performance.now();
    const read = sched();
    // A failed read keeps the last figures (the next gap then counts from them).
    const current = Number.isFinite(read.run) ? read : lastSched;
    const gap = now - last;
    if (gap > 20) {
      const line = `${Date.now()} ${gap.toFixed(1)} ${(current.run - lastSched.run).toFixed(1)} ${(current.wait - lastSched.wait).toFixed(1)}\n`;
      appendFileSync(file, line);
    }
    last = now;
    lastSched = current;
  }, 5);
  timer.unref();
}
