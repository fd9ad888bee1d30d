/**
 * Probe (every long operation on SQLite runs in bounded chunks,
 * docs/decisions/0019-hidden-rows-for-huge-sessions.md): how long a rewind of a huge session to its
 * first message holds SQLite's write lock — in one transaction (the threshold out of reach) and in
 * chunks (the store's default) — how long another writer of the file is locked out meanwhile (a
 * worker thread tries BEGIN IMMEDIATE every 2 ms with no busy timeout), and how late a 5 ms timer
 * of this process fires at worst (what a /healthz answered by this process waits). Rounds alternate
 * one transaction / chunks, each on a fresh session of the same file.
 *
 *   npx tsx bench/probes/rewind-locks.probe.ts [messages=100000] [rounds=2] [settle ms=5000] [store|plain pause]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { type ChunkEvent, observeChunks, openStore, REWIND_IN_CHUNKS_ABOVE, silentLogger } from '@statehouse/state';
import { yieldBetweenChunks } from '@statehouse/state/testing';
import { ADMIN_CTX } from '../lib/stores.js';

const N = Number(process.argv[2] ?? 100_000);
const ROUNDS = Number(process.argv[3] ?? 2);
const SETTLE_MS = Number(process.argv[4] ?? 5000);
/** `plain`: pause between chunks without asking the index merger for steps (an A/B of the pause). */
const PAUSE = process.argv[5] ?? 'store';

const PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require('better-sqlite3');
const db = new Database(workerData);
db.pragma('busy_timeout = 0');
let stop = false;
parentPort.on('message', () => { stop = true; });
let lockedSince, longest = 0;
const tick = () => {
  const now = performance.now();
  try {
    db.exec('begin immediate');
    db.exec('rollback');
    if (lockedSince !== undefined) longest = Math.max(longest, now - lockedSince);
    lockedSince = undefined;
  } catch (error) {
    if (lockedSince === undefined) lockedSince = now;
  }
  if (!stop) return setTimeout(tick, 2);
  if (lockedSince !== undefined) longest = Math.max(longest, performance.now() - lockedSince);
  db.close();
  parentPort.postMessage(longest);
};
tick();`;

const dir = mkdtempSync(join(tmpdir(), 'rewind-locks-'));
try {
  const file = join(dir, 'store.db');
  const locks: number[] = [];
  const store = await openStore({ url: `file:${file}`, logger: silentLogger, onWriteLock: (ms) => locks.push(ms) });
  let sessions = 0;
  const seed = async () => {
    const id = `huge-${sessions++}`;
    await store.sessions.create(ADMIN_CTX, { id, profile: 'probe', source: 'cli' });
    for (let from = 0; from < N; from += 1000) {
      await store.messages.append(
        ADMIN_CTX,
        id,
        {
          messages: Array.from({ length: Math.min(1000, N - from) }, (_, k) => ({
            role: (from + k) % 2 ? ('assistant' as const) : ('user' as const),
            content: `line ${from + k} of a long conversation about deploys`,
          })),
        },
        {},
      );
    }
    return id;
  };
  const measure = async (label: string, inChunksAbove: number) => {
    const id = await seed();
    store.rewinds.tuneRewind({ inChunksAbove });
    if (PAUSE === 'plain') store.rewinds.tuneRewind({ between: (ms) => yieldBetweenChunks('sqlite', ms) });
    const page = await store.messages.list(ADMIN_CTX, id, {
      limit: 1,
      order: 'oldest',
      includeCompacted: true,
      includeHidden: true,
      includeInactive: true,
    });
    const session = await store.sessions.get(ADMIN_CTX, id);
    // The seeding's 100 appends left index segments for the merger thread: let it catch up, as it
    // has for a session written long before its rewind (else the first chunks pay its backlog).
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    locks.length = 0;
    const prober = new Worker(PROBE, { eval: true, workerData: file });
    const lockedOut = new Promise<number>((resolve) => prober.once('message', resolve));
    await new Promise((resolve) => prober.once('online', resolve));
    let lateTimer = 0;
    let expected = performance.now() + 5;
    const timer = setInterval(() => {
      lateTimer = Math.max(lateTimer, performance.now() - expected);
      expected = performance.now() + 5;
    }, 5);
    const events: ChunkEvent[] = [];
    const stop = observeChunks((event) => event.operation === 'rewind' && events.push(event));
    const started = performance.now();
    const load = loadavg()[0];
    const result = await store.rewinds.rewind(
      ADMIN_CTX,
      id,
      { toMessageId: page.items[0].id },
      { ifMatch: session.revision, expectedGeneration: session.generation },
    );
    const ms = performance.now() - started;
    // A loop blocked to the end never ran the timer: count the wait up to now too.
    lateTimer = Math.max(lateTimer, performance.now() - expected);
    clearInterval(timer);
    prober.postMessage('stop');
    const longestOut = await lockedOut;
    await prober.terminate();
    stop();
    const sorted = [...locks].sort((a, b) => a - b);
    const slow = events
      .map((event, index) => ({ ...event, index }))
      .filter((event) => event.heldMs > 50)
      .map(
        (e) =>
          `chunk ${e.index + 1}: ${e.heldMs.toFixed(0)} ms, ${e.rows} rows in ${e.steps} steps, last started at ${e.lastStepStartMs.toFixed(0)} ms`,
      );
    const longest = locks
      .map((lockMs, index) => ({ lockMs, index }))
      .sort((a, b) => b.lockMs - a.lockMs)
      .slice(0, 5)
      .map(({ lockMs, index }) => `#${index + 1} ${lockMs.toFixed(0)} ms`);
    const at = (q: number) => (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0).toFixed(1);
    console.log(
      `${label}: ${result.rewoundIds.length} rewound in ${(ms / 1000).toFixed(2)} s, ${locks.length} write transactions, ` +
        `longest ${at(1)} ms, p50 ${at(0.5)} ms, p95 ${at(0.95)} ms; another writer locked out at most ` +
        `${longestOut.toFixed(1)} ms; a 5 ms timer late at most ${lateTimer.toFixed(1)} ms (load ${load.toFixed(2)}); longest: ${longest.join(', ')}`,
    );
    if (slow.length) console.log(`  chunks over 50 ms: ${slow.join('; ')}`);
  };
  for (let round = 0; round < ROUNDS; round++) {
    await measure(`round ${round + 1}, one transaction`, Number.MAX_SAFE_INTEGER);
    await measure(`round ${round + 1}, in chunks`, REWIND_IN_CHUNKS_ABOVE);
  }
  await store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
