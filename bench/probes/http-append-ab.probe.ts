/**
 * Paired A/B of figure 16's 32-client row (concurrent single-message appends over HTTP, SQLite)
 * between two built checkouts: each root's compiled API (`apps/api/dist/main.js`, not rebuilt
 * here) on a store file of its own, created by that root's token CLI (so each runs its own
 * migrations), seeded with the same messages over HTTP; then rounds alternate the two servers
 * (order swapped each round), 32 keep-alive clients appending one message per request to a session
 * each, as bench/api.bench.ts does. Reports appends/s, p50/p99 and the server's CPU per append
 * (all its threads, the FTS merger's included) per round, medians and spread.
 *
 *   npx tsx bench/probes/http-append-ab.probe.ts <rootA> <rootB> [rounds=8] [seconds=5] [seedMessages=50000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MessageFactory } from '../lib/data.js';
import { type ApiServer, createToken, type LoadResult, runLoad, startApi } from '../lib/http.js';
import { percentile } from '../lib/timing.js';

const [rootA, rootB] = [process.argv[2], process.argv[3]];
const ROUNDS = Number(process.argv[4] ?? 8);
const SECONDS = Number(process.argv[5] ?? 5);
const SEED = Number(process.argv[6] ?? 50_000);
const CLIENTS = 32;

interface Side {
  name: string;
  server: ApiServer;
  headers: Record<string, string>;
  sessions: string[];
  runs: { rate: number; cpuUs: number; p50: number; p99: number; errors: number; group: number }[];
}

/** The group-commit counters of /metrics: write transactions and the requests they carried. */
async function groupCounters(side: { server: ApiServer; headers: Record<string, string> }): Promise<[number, number]> {
  const text = await (await fetch(`http://127.0.0.1:${side.server.port}/metrics`, { headers: side.headers })).text();
  const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return [value('statehouse_store_write_transactions_total'), value('statehouse_store_group_commit_requests_total')];
}

async function post(server: ApiServer, headers: Record<string, string>, path: string, body: unknown): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${server.port}${path}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status >= 300) throw new Error(`${path}: ${response.status} ${await response.text()}`);
}

async function prepare(name: string, root: string, dir: string): Promise<Side> {
  const url = `file:${join(dir, `${name}.db`)}`;
  const token = createToken(root, url);
  const server = await startApi(root, url);
  const headers = { Authorization: `Bearer ${token}` };
  const sessions = Array.from({ length: CLIENTS }, (_, k) => `ab-${k}`);
  for (const id of sessions) await post(server, headers, '/v1/sessions', { id, profile: 'bench', source: 'cli' });
  // The same seeded messages in both stores: 100 per request, over the 32 sessions.
  const factory = new MessageFactory(3);
  for (let i = 0; i < SEED / 100; i++) {
    await post(server, headers, `/v1/sessions/${sessions[i % CLIENTS]}/messages`, {
      messages: factory.messages(100).map((message) => ({ role: message.role, content: message.content })),
    });
  }
  return { name, server, headers, sessions, runs: [] };
}

function summary(values: number[], digits = 0): string {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  return `${median.toFixed(digits)} (${sorted[0].toFixed(digits)}–${sorted.at(-1)!.toFixed(digits)})`;
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'http-ab-'));
  const pool = new MessageFactory(16)
    .messages(2000)
    .map((message) => JSON.stringify({ messages: [{ role: message.role, content: message.content }] }));
  const sides: Side[] = [];
  try {
    sides.push(await prepare('A', rootA, dir));
    sides.push(await prepare('B', rootB, dir));
    const load = (side: Side, seconds: number): Promise<LoadResult> =>
      runLoad({
        server: side.server,
        path: (_, k) => `/v1/sessions/${side.sessions[k]}/messages`,
        body: (i) => pool[i % pool.length],
        headers: side.headers,
        expect: 201,
        connections: CLIENTS,
        seconds,
      });
    for (const side of sides) await load(side, 3);
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) {
        // Let the other server's merger finish what the last load left.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const [transactions0, requests0] = await groupCounters(side);
        const result = await load(side, SECONDS);
        const [transactions1, requests1] = await groupCounters(side);
        const latencies = [...result.latencies].sort((a, b) => a - b);
        side.runs.push({
          rate: result.requests / result.seconds,
          cpuUs: ((result.serverCpu ?? Number.NaN) / result.requests) * 1e6,
          p50: percentile(latencies, 50),
          p99: percentile(latencies, 99),
          errors: result.errors,
          group: (requests1 - requests0) / (transactions1 - transactions0),
        });
      }
      console.log(
        `round ${round + 1}: ${sides
          .map((side) => {
            const run = side.runs.at(-1)!;
            return `${side.name} ${Math.round(run.rate)}/s, ${Math.round(run.cpuUs)} µs CPU/append, p99 ${run.p99.toFixed(1)} ms, group ${run.group.toFixed(1)}`;
          })
          .join(' | ')}`,
      );
    }
    for (const side of sides) {
      console.log(
        `${side.name} (${side.name === 'A' ? rootA : rootB}): appends/s ${summary(side.runs.map((r) => r.rate))}; ` +
          `server CPU per append µs ${summary(side.runs.map((r) => r.cpuUs))}; p50 ms ${summary(
            side.runs.map((r) => r.p50),
            1,
          )}; p99 ms ${summary(
            side.runs.map((r) => r.p99),
            1,
          )}; mean group ${summary(
            side.runs.map((r) => r.group),
            1,
          )}; errors ${side.runs.reduce((sum, r) => sum + r.errors, 0)}`,
      );
    }
    const [a, b] = sides;
    console.log(
      `B/A per round: appends/s ${summary(
        b.runs.map((r, i) => (100 * r.rate) / a.runs[i].rate),
        1,
      )} %; CPU per append ${summary(
        b.runs.map((r, i) => (100 * r.cpuUs) / a.runs[i].cpuUs),
        1,
      )} %`,
    );
  } finally {
    for (const side of sides) await side.server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
