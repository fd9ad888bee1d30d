/**
 * Probe (retention case, in one process;
 * docs/decisions/0018-time-boxed-chunks-for-long-operations.md): a retention pass over `sessions`
 * expired sessions of 50 messages on a SQLite file, with a 5 ms timer noting every event-loop gap
 * over 12 ms and the main thread's CPU time inside it (Linux schedstat), and every committed chunk
 * (observeChunks). Prints the pass's time, its chunks and the most CPU time inside one gap — the
 * process's own blocking — for each root's state layer (BENCH_ROOTS, alternating, order swapped
 * each round), so two checkouts compare without HTTP. Each root's state layer is its package entry
 * (`@statehouse/state` from that root): build it there first (`npx tsc -b libs/state`).
 *
 *   BENCH_ROOTS=/path/old,/path/new npx tsx bench/probes/retention-chunks.probe.ts [rounds=3] [sessions=4000]
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { flushSearchPending } from '@statehouse/state';
import { syntheticSqliteStore } from '@statehouse/state/testing';
import Database from 'better-sqlite3';

const here = dirname(fileURLToPath(import.meta.url));
const ROUNDS = Number(process.argv[2] ?? 3);
const SESSIONS = Number(process.argv[3] ?? 4000);
const ROOTS = (process.env.BENCH_ROOTS ?? resolve(here, '../..')).split(',');
const schedstat = `/proc/self/task/${process.pid}/schedstat`;
const cpuMs = () => Number(readFileSync(schedstat, 'utf8').split(' ')[0]) / 1e6;

async function round(root: string, template: string) {
  // That checkout's own package entry (its node_modules link to its libs/state, built).
  const entry = createRequire(join(root, 'package.json')).resolve('@statehouse/state');
  // biome-ignore lint/suspicious/noExplicitAny: another checkout's module, typed alike.
  const state: any = await import(pathToFileURL(entry).href);
  const dir = join(tmpdir(), 'retention-chunks-probe');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `run-${process.pid}.db`);
  copyFileSync(template, path);
  const store = await state.openStore({ url: `file:${path}`, logger: state.silentLogger });
  const ctx = { principal: state.SYSTEM_PRINCIPAL, channel: 'system' };
  // As in the API bench: the pass starts a few seconds after start-up (the background merger ran).
  await new Promise((r) => setTimeout(r, 4000));
  const chunks: { at: number; heldMs: number; rows: number }[] = [];
  const stop = state.observeChunks((event: { operation: string; heldMs: number; rows: number }) => {
    if (event.operation === 'deletion') chunks.push({ at: performance.now(), heldMs: event.heldMs, rows: event.rows });
  });
  const gaps: { at: number; gap: number; cpu: number }[] = [];
  let last = performance.now();
  let lastCpu = cpuMs();
  const timer = setInterval(() => {
    const now = performance.now();
    const cpu = cpuMs();
    if (now - last > 12) gaps.push({ at: now, gap: now - last, cpu: cpu - lastCpu });
    last = now;
    lastCpu = cpu;
  }, 5);
  const load = loadavg()[0];
  const started = performance.now();
  let deleted = 0;
  try {
    for (let pass = 0; pass < 50; pass++) {
      const result = await store.deletion.retentionPrune(ctx, { olderThanDays: 30, profile: 'aging', dryRun: false });
      deleted += result.deletedIds.length;
      if (result.deletedIds.length === 0) break;
    }
  } finally {
    clearInterval(timer);
    stop();
    await store.close();
    for (const file of [path, `${path}-wal`, `${path}-shm`]) rmSync(file, { force: true });
  }
  const took = performance.now() - started;
  const held = chunks.map((c) => c.heldMs).sort((a, b) => b - a);
  const top = [...gaps].sort((a, b) => b.cpu - a.cpu).slice(0, 6);
  const slow = chunks
    .map((c, i) => ({ ...c, i }))
    .filter((c) => c.heldMs > 25)
    .map((c) => `#${c.i}:${c.rows}r/${c.heldMs.toFixed(0)}ms`)
    .slice(0, 12)
    .join(' ');
  return {
    slow,
    took,
    deleted,
    load,
    chunks: chunks.length,
    heldMax: held[0] ?? 0,
    heldP50: held[Math.floor(held.length / 2)] ?? 0,
    own: top[0]?.cpu ?? 0,
    top,
  };
}

async function main() {
  const dir = join(tmpdir(), 'retention-probe-template');
  mkdirSync(dir, { recursive: true });
  const template = join(dir, `sessions-${SESSIONS}.db`);
  if (!existsSync(template)) {
    await syntheticSqliteStore(`${template}.tmp`, SESSIONS * 50, 50, {
      profile: 'aging',
      endedAt: Date.UTC(2025, 0, 1),
    });
    // The API's first write indexes what the synthetic store left pending (at start-up in the
    // bench): done here once, so no round pays it inside its pass.
    const db = new Database(`${template}.tmp`);
    flushSearchPending((text) => db.prepare(text));
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    copyFileSync(`${template}.tmp`, template);
    rmSync(`${template}.tmp`, { force: true });
  }
  for (let r = 0; r < ROUNDS; r++) {
    for (const root of r % 2 === 0 ? ROOTS : [...ROOTS].reverse()) {
      const x = await round(root, template);
      console.log(
        `round ${r + 1} ${root}: ${x.deleted} sessions in ${x.took.toFixed(0)} ms, ${x.chunks} chunks (held p50 ${x.heldP50.toFixed(1)} / max ${x.heldMax.toFixed(1)} ms), own blocking ${x.own.toFixed(1)} ms, load ${x.load.toFixed(2)}; top gaps cpu/gap: ${x.top.map((g) => `${g.cpu.toFixed(1)}/${g.gap.toFixed(1)}`).join(' ')}; chunks over 25 ms: ${x.slow}`,
      );
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
