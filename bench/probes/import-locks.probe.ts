/**
 * Probe (issue "no process frozen by its own work", imports): how long the parts of a Hermes import
 * that used to be whole hold SQLite's write lock — a dry run, an update of a session of 10⁵
 * messages imported before (its ledger read and compared), and an update whose source rewound half
 * of them — and how long another writer of the file is locked out during the dry runs (a worker
 * thread tries BEGIN IMMEDIATE every 2 ms with no busy timeout).
 *
 *   npx tsx bench/probes/import-locks.probe.ts [messages=100000] [rewound=50000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { openStore, silentLogger } from '@statehouse/state';
import { HermesFixture, SCENARIO_T0 } from '@statehouse/state/testing';
import { ADMIN_CTX } from '../lib/stores.js';

const N = Number(process.argv[2] ?? 100_000);
const REWOUND = Number(process.argv[3] ?? 50_000);

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

function source(dir: string, name: string, added: number, rewound: number): string {
  const path = join(dir, name);
  const f = new HermesFixture(path, 30);
  f.transaction(() => {
    f.session({ id: 'huge', source: 'cli', profile_name: 'probe', title: 'Huge', started_at: SCENARIO_T0 });
    for (let i = 0; i < N + added; i++) {
      f.message('huge', {
        role: i % 2 ? 'assistant' : 'user',
        content: `line ${i} of a long conversation about deploys`,
        timestamp: SCENARIO_T0 + i,
        active: i < rewound ? 0 : 1,
      });
    }
  });
  f.close();
  return path;
}

const dir = mkdtempSync(join(tmpdir(), 'import-locks-'));
try {
  const first = source(dir, 'first.db', 0, 0);
  const grown = source(dir, 'grown.db', 10, 0);
  const rewound = source(dir, 'rewound.db', 10, REWOUND);
  const file = join(dir, 'store.db');
  const locks: number[] = [];
  const store = await openStore({ url: `file:${file}`, logger: silentLogger, onWriteLock: (ms) => locks.push(ms) });
  const run = (path: string, dryRun: boolean) =>
    store.imports.runHermes(ADMIN_CTX, { path, profile: 'probe', onConflict: 'skip', dryRun });
  const measure = async (label: string, path: string, dryRun: boolean) => {
    locks.length = 0;
    const prober = dryRun ? new Worker(PROBE, { eval: true, workerData: file }) : undefined;
    const lockedOut = prober && new Promise<number>((resolve) => prober.once('message', resolve));
    if (prober) await new Promise((resolve) => prober.once('online', resolve));
    const started = performance.now();
    await run(path, dryRun);
    const ms = performance.now() - started;
    prober?.postMessage('stop');
    const longestOut = lockedOut ? await lockedOut : undefined;
    await prober?.terminate();
    const sorted = [...locks].sort((a, b) => a - b);
    console.log(
      `${label}: ${(ms / 1000).toFixed(1)} s, ${locks.length} write transactions, longest ${(sorted.at(-1) ?? 0).toFixed(1)} ms, ` +
        `p95 ${(sorted[Math.floor(sorted.length * 0.95)] ?? 0).toFixed(1)} ms` +
        (longestOut === undefined ? '' : `; another writer locked out at most ${longestOut.toFixed(1)} ms`),
    );
  };
  await measure(`dry run, a new session of ${N} messages`, first, true);
  await measure(`import, a new session of ${N} messages`, first, false);
  await measure('dry run, the same session +10 messages', grown, true);
  await measure('update, +10 messages', grown, false);
  await measure(`update, +10 messages and ${REWOUND} imported ones rewound`, rewound, false);
  await store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
