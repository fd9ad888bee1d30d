/**
 * Paired A/B of figure 16's 32- and 128-client rows (concurrent single-message appends over HTTP)
 * between built checkouts: each root's compiled API (`apps/api/dist/main.js`, not rebuilt here) on
 * a store of its own (its own migrations, via its token CLI) — a SQLite file, or a scratch
 * PostgreSQL database when PROBE_PG_URL names a server — seeded with the same messages; then every
 * round runs each (root, clients) pair once, in an order rotated each round, each client appending
 * one message per request to a session of its own, as bench/api.bench.ts does. Per pair:
 * appends/s, p50/p99, server CPU per append, and mean group size and WAL size (SQLite) or
 * PostgreSQL's CPU per append (every local `postgres` process); medians and spreads, and 128/32
 * per root per round.
 *
 *   [PROBE_PG_URL=postgres://…] npx tsx bench/probes/clients128.probe.ts <rootA> [rootB] [rounds=6] [seconds=5] [seedMessages=20000]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MessageFactory } from '../lib/data.js';
import {
  type ApiServer,
  createToken,
  type LoadResult,
  postgresCpu,
  postgresCpuSince,
  runLoad,
  startApi,
} from '../lib/http.js';
import { createPgDatabase } from '../lib/stores.js';
import { percentile } from '../lib/timing.js';

const roots = process.argv.slice(2).filter((arg) => !/^\d+$/.test(arg));
const numbers = process.argv
  .slice(2)
  .filter((arg) => /^\d+$/.test(arg))
  .map(Number);
const ROUNDS = numbers[0] ?? 6;
const SECONDS = numbers[1] ?? 5;
const SEED = numbers[2] ?? 20_000;
const CLIENT_COUNTS = [32, 128];
const PG_URL = process.env.PROBE_PG_URL;

interface Run {
  rate: number;
  cpuUs: number;
  p50: number;
  p99: number;
  errors: number;
  /** SQLite: requests per write transaction, and the WAL's size after the round. */
  group: number;
  walMb: number;
  /** PostgreSQL: its processes' CPU per append. */
  pgUs: number;
}

interface Side {
  name: string;
  root: string;
  file: string;
  drop: () => Promise<void>;
  server: ApiServer;
  headers: Record<string, string>;
  sessions: Map<number, string[]>;
  runs: Map<number, Run[]>;
}

async function groupCounters(side: Side): Promise<[number, number]> {
  const text = await (await fetch(`http://127.0.0.1:${side.server.port}/metrics`, { headers: side.headers })).text();
  const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return [value('statehouse_store_write_transactions_total'), value('statehouse_store_group_commit_requests_total')];
}

async function post(side: Omit<Side, 'runs'>, path: string, body: unknown): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${side.server.port}${path}`, {
    method: 'POST',
    headers: { ...side.headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status >= 300) throw new Error(`${path}: ${response.status} ${await response.text()}`);
}

async function prepare(name: string, root: string, dir: string): Promise<Side> {
  const file = join(dir, `${name}.db`);
  const database = PG_URL ? await createPgDatabase(PG_URL, `clients128${name.toLowerCase()}`) : null;
  const url = database?.url ?? `file:${file}`;
  const token = createToken(root, url);
  const server = await startApi(root, url);
  const side: Side = {
    name,
    root,
    file,
    drop: async () => database?.drop(),
    server,
    headers: { Authorization: `Bearer ${token}` },
    sessions: new Map(),
    runs: new Map(),
  };
  for (const clients of CLIENT_COUNTS) {
    const ids = Array.from({ length: clients }, (_, k) => `p${clients}-${k}`);
    for (const id of ids) await post(side, '/v1/sessions', { id, profile: 'bench', source: 'cli' });
    side.sessions.set(clients, ids);
    side.runs.set(clients, []);
  }
  const seedTo = side.sessions.get(32)!;
  const factory = new MessageFactory(3);
  for (let i = 0; i < SEED / 100; i++) {
    await post(side, `/v1/sessions/${seedTo[i % seedTo.length]}/messages`, {
      messages: factory.messages(100).map((message) => ({ role: message.role, content: message.content })),
    });
  }
  return side;
}

function summary(values: number[], digits = 0): string {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  return `${median.toFixed(digits)} (${sorted[0].toFixed(digits)}–${sorted.at(-1)!.toFixed(digits)})`;
}

const walMb = (side: Side) => {
  try {
    return statSync(`${side.file}-wal`).size / 1e6;
  } catch {
    return 0;
  }
};

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite128-'));
  const pool = new MessageFactory(16)
    .messages(2000)
    .map((message) => JSON.stringify({ messages: [{ role: message.role, content: message.content }] }));
  const sides: Side[] = [];
  try {
    for (const [k, root] of roots.entries()) sides.push(await prepare(String.fromCharCode(65 + k), root, dir));
    const load = (side: Side, clients: number, seconds: number): Promise<LoadResult> =>
      runLoad({
        server: side.server,
        path: (_, k) => `/v1/sessions/${side.sessions.get(clients)![k]}/messages`,
        body: (i) => pool[i % pool.length],
        headers: side.headers,
        expect: 201,
        connections: clients,
        seconds,
      });
    const pairs = sides.flatMap((side) => CLIENT_COUNTS.map((clients) => ({ side, clients })));
    for (const pair of pairs) await load(pair.side, pair.clients, 2);
    for (let round = 0; round < ROUNDS; round++) {
      const order = pairs.map((_, k) => pairs[(k + round) % pairs.length]);
      if (round % 2 === 1) order.reverse();
      const line: string[] = [];
      for (const { side, clients } of order) {
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const [t0, r0] = await groupCounters(side);
        const pgBefore = PG_URL ? postgresCpu() : null;
        const result = await load(side, clients, SECONDS);
        const pgSeconds = pgBefore ? (postgresCpuSince(pgBefore) ?? Number.NaN) : Number.NaN;
        const [t1, r1] = await groupCounters(side);
        const latencies = [...result.latencies].sort((a, b) => a - b);
        const run: Run = {
          rate: result.requests / result.seconds,
          cpuUs: ((result.serverCpu ?? Number.NaN) / result.requests) * 1e6,
          p50: percentile(latencies, 50),
          p99: percentile(latencies, 99),
          errors: result.errors,
          group: (r1 - r0) / (t1 - t0),
          walMb: walMb(side),
          pgUs: (pgSeconds / result.requests) * 1e6,
        };
        side.runs.get(clients)!.push(run);
        line.push(
          `${side.name}${clients} ${Math.round(run.rate)}/s cpu ${Math.round(run.cpuUs)}µs p50 ${run.p50.toFixed(1)} p99 ${run.p99.toFixed(0)} ${PG_URL ? `pg ${Math.round(run.pgUs)}µs` : `g ${run.group.toFixed(1)} wal ${run.walMb.toFixed(1)}MB`} err ${run.errors}`,
        );
      }
      console.log(`round ${round + 1}: ${line.join(' | ')}`);
    }
    for (const side of sides) {
      for (const clients of CLIENT_COUNTS) {
        const runs = side.runs.get(clients)!;
        console.log(
          `${side.name} ${clients} clients (${side.root}): appends/s ${summary(runs.map((r) => r.rate))}; CPU/append µs ${summary(
            runs.map((r) => r.cpuUs),
          )}; p50 ms ${summary(
            runs.map((r) => r.p50),
            1,
          )}; p99 ms ${summary(
            runs.map((r) => r.p99),
            1,
          )}; ${
            PG_URL
              ? `PostgreSQL CPU/append µs ${summary(runs.map((r) => r.pgUs))}`
              : `group ${summary(
                  runs.map((r) => r.group),
                  1,
                )}`
          }; errors ${runs.reduce((sum, r) => sum + r.errors, 0)}`,
        );
      }
      const at32 = side.runs.get(32)!;
      const at128 = side.runs.get(128)!;
      console.log(
        `${side.name} 128/32 per round: ${summary(
          at128.map((r, i) => (100 * r.rate) / at32[i].rate),
          1,
        )} %`,
      );
    }
  } finally {
    for (const side of sides) {
      await side.server.stop();
      await side.drop();
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
