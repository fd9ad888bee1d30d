/**
 * Probe (issue "no process frozen by its own work", imports): the longest synchronous slice of the
 * event loop while a Hermes file with one session of 10⁵ messages is imported (a dry run, the
 * real import, then a dry run and the update of a copy grown by 10 messages), and the heap it
 * peaks at. A 1 ms interval timer measures the gaps between its ticks (a gap is the slice that
 * held the loop, plus the timer's own 1 ms); the gaps of 20 ms or more are counted by the import
 * phase they fell in, and apart those outside write transactions (which are sized to ≈ 40 ms of
 * write lock by design), with the CPU time the process spent inside the longest (on a loaded
 * machine a gap is partly a wait for a core). Imports the state layer through its package entries only, so
 * the same file copied into an older checkout measures that checkout (paired rounds).
 *
 *   npx tsx --expose-gc bench/probes/import-loop.probe.ts [messages=100000] [rounds=1]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Principal } from '@statehouse/contracts';
import { openStore, silentLogger } from '@statehouse/state';
import { HermesFixture, SCENARIO_T0 } from '@statehouse/state/testing';

const N = Number(process.argv[2] ?? 100_000);
const ROUNDS = Number(process.argv[3] ?? 1);
const ADMIN: Principal = { kind: 'token', id: 'probe-admin', name: 'probe', role: 'admin', profiles: '*' };
const gc = (globalThis as { gc?: () => void }).gc;

function source(path: string, added: number): void {
  const f = new HermesFixture(path, 30);
  f.transaction(() => {
    f.session({ id: 'huge', source: 'cli', profile_name: 'probe', title: 'Huge', started_at: SCENARIO_T0 });
    for (let i = 0; i < N + added; i++) {
      f.message('huge', {
        role: i % 2 ? 'assistant' : 'user',
        content: `line ${i} of a long conversation about deploys`,
        timestamp: SCENARIO_T0 + i,
      });
    }
  });
  f.close();
}

const dir = mkdtempSync(join(tmpdir(), 'import-loop-'));
try {
  const file = join(dir, 'hermes.db');
  const grown = join(dir, 'grown.db');
  source(file, 0);
  source(grown, 10);
  const runs = [
    { label: `dry run, a new session of ${N} messages`, path: file, dryRun: true },
    { label: `import, a new session of ${N} messages`, path: file, dryRun: false },
    { label: 'dry run, the same session +10 messages', path: grown, dryRun: true },
    { label: 'update, +10 messages', path: grown, dryRun: false },
  ];
  for (let round = 1; round <= ROUNDS; round++) {
    // Write transactions, as [start, end]: a gap mostly inside one is a unit of work writing (each
    // sized to ≈ 40 ms of write lock by design), the rest is reading, mapping and deciding.
    const locks: [number, number][] = [];
    const store = await openStore({
      url: `file:${join(dir, `store-${round}.db`)}`,
      logger: silentLogger,
      onWriteLock: (ms) => locks.push([performance.now() - ms, performance.now()]),
    });
    for (const { label, path, dryRun } of runs) {
      gc?.();
      const baseHeap = process.memoryUsage().heapUsed;
      let peakHeap = baseHeap;
      let phase = 'start';
      // CPU time of the process (every thread) inside a gap: a gap far longer than its CPU time
      // was spent waiting for a core (a loaded machine), not working.
      const gaps: { ms: number; phase: string; at: number; cpuMs: number }[] = [];
      let cpu = process.cpuUsage();
      locks.length = 0;
      let last = performance.now();
      const timer = setInterval(() => {
        const now = performance.now();
        const used = process.cpuUsage(cpu);
        cpu = process.cpuUsage();
        if (now - last >= 20) gaps.push({ ms: now - last, phase, at: last, cpuMs: (used.user + used.system) / 1000 });
        last = now;
        peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
      }, 1);
      const histogram = monitorEventLoopDelay({ resolution: 1 });
      histogram.enable();
      const started = performance.now();
      await store.imports.runHermes(
        { principal: ADMIN, channel: 'api' },
        {
          path,
          profile: 'probe',
          onConflict: 'skip',
          dryRun,
          onProgress: (progress) => {
            phase = progress.phase;
            peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
          },
        },
      );
      const total = performance.now() - started;
      // A run that never let the timer tick is one slice from its last tick to its end.
      if (performance.now() - last >= 20) {
        const used = process.cpuUsage(cpu);
        gaps.push({
          ms: performance.now() - last,
          phase: `${phase} (to the end)`,
          at: last,
          cpuMs: (used.user + used.system) / 1000,
        });
      }
      histogram.disable();
      clearInterval(timer);
      const longest = gaps.reduce((max, gap) => Math.max(max, gap.ms), 0);
      const writing = (gap: { ms: number; at: number }) =>
        locks.some(([from, to]) => Math.min(to, gap.at + gap.ms) - Math.max(from, gap.at) >= gap.ms / 2);
      const outside = gaps.filter((gap) => !writing(gap));
      const longestOutside = outside.reduce((max, gap) => Math.max(max, gap.ms), 0);
      const cpuOf = (list: typeof gaps) =>
        list.find((gap) => gap.ms === Math.max(...list.map((g) => g.ms)))?.cpuMs ?? 0;
      const mostCpuOutside = outside.reduce((max, gap) => Math.max(max, gap.cpuMs), 0);
      const byPhase = new Map<string, number[]>();
      for (const gap of gaps) byPhase.set(gap.phase, [...(byPhase.get(gap.phase) ?? []), gap.ms]);
      console.log(
        `round ${round}, ${label}: ${(total / 1000).toFixed(2)} s; ` +
          `longest timer gap ${longest.toFixed(1)} ms (CPU ${cpuOf(gaps).toFixed(1)} ms; event-loop delay max ${(histogram.max / 1e6).toFixed(1)} ms, ` +
          `p99 ${(histogram.percentile(99) / 1e6).toFixed(1)} ms); gaps ≥ 20 ms: ${gaps.length} ` +
          `[${[...byPhase].map(([p, ms]) => `${p}: ${ms.length}, max ${Math.max(...ms).toFixed(0)}`).join('; ')}]; ` +
          `outside write transactions: longest ${longestOutside.toFixed(1)} ms (CPU ${cpuOf(outside).toFixed(1)} ms; ` +
          `most CPU in one gap ${mostCpuOutside.toFixed(1)} ms), ${outside.length} gaps ≥ 20 ms ` +
          `(write transactions ${locks.length}, longest ${Math.max(0, ...locks.map(([a, b]) => b - a)).toFixed(1)} ms); ` +
          `peak heap +${((peakHeap - baseHeap) / 2 ** 20).toFixed(0)} MiB`,
      );
    }
    await store.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
