/**
 * Figure 16's appends under a sampler of thread CPU time (bench/lib/thread-cpu.ts): where the API
 * process's CPU goes per single-message append, by package, on a new SQLite file or, with
 * `PROBE_PG_URL`, a new database on that PostgreSQL server. The full bench runs the same on
 * PostgreSQL (V8's profile serves SQLite there); this probe runs it on demand, on either dialect.
 * Needs `perf` (Debian: linux-perf) and leave to attach to the server (root, or
 * kernel.perf_event_paranoid ≤ 1).
 *
 *   [PROBE_PG_URL=postgres://postgres@127.0.0.1:5432/test] npx tsx bench/probes/thread-cpu.probe.ts [clients=32] [seconds=6]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MessageFactory } from '../lib/data.js';
import { buildApi, createToken } from '../lib/http.js';
import { createPgDatabase } from '../lib/stores.js';
import { appendThreadCpu, perfAvailable } from '../lib/thread-cpu.js';

const CLIENTS = Number(process.argv[2] ?? 32);
const SECONDS = Number(process.argv[3] ?? 6);
const root = process.cwd();

async function main() {
  perfAvailable();
  buildApi(root);
  const dir = mkdtempSync(join(tmpdir(), 'thread-cpu-probe-'));
  const database = process.env.PROBE_PG_URL
    ? await createPgDatabase(process.env.PROBE_PG_URL, 'threadcpu')
    : { url: `file:${join(dir, 'store.db')}`, drop: async () => undefined };
  try {
    const headers = { Authorization: `Bearer ${createToken(root, database.url)}` };
    const sessions = Array.from({ length: CLIENTS }, (_, k) => `tc-${k}`);
    const bodies = new MessageFactory(16)
      .messages(2000)
      .map((message) => JSON.stringify({ messages: [{ role: message.role, content: message.content }] }));
    const profile = await appendThreadCpu({
      root,
      url: database.url,
      headers,
      sessions,
      bodies,
      seconds: SECONDS,
      warmupSeconds: 3,
    });
    const us = (value: number) => value.toFixed(0).padStart(5);
    console.log(
      `${process.env.PROBE_PG_URL ? 'PostgreSQL' : 'SQLite'}, ${CLIENTS} clients: ${Math.round(profile.appendsPerSecond)} appends/s, ` +
        `${profile.errors} errors; API process CPU per append ${us(profile.processUs)} µs (/proc)`,
    );
    console.log(`µs per append (perf): main thread ${us(profile.mainUs)}, other threads ${us(profile.otherThreadsUs)}`);
    for (const [category, value] of profile.categories) console.log(`${us(value)}  ${category}`);
  } finally {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
