/**
 * Probe (retention case, docs/decisions/0018-time-boxed-chunks-for-long-operations.md): the
 * healthz-rebuild bench's scheduled-retention scenario alone, for A/B runs of two builds. Two API
 * processes on one SQLite file holding `sessions` expired sessions of 50 messages; a policy makes
 * one of them run a retention pass while both answer /healthz every 10 ms and the second appends
 * every 20 ms. The loop probe (lib/loop-probe.mjs) notes every event-loop gap over 20 ms with its
 * on-CPU time: the runner's most CPU inside one gap is its own blocking, the figure a loaded
 * machine moves least.
 *
 * Rounds alternate the roots (order swapped each round). Each root must hold a built API
 * (`npx tsc -b apps/api`); the store file is made once from this checkout's migrations.
 *
 *   BENCH_ROOTS=/path/old,/path/new npx tsx bench/probes/retention-health.probe.ts [rounds=3] [sessions=4000]
 *   BENCH_API_NODE_ARGS=--cpu-prof …   (profiles land in each root's working directory)
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { syntheticSqliteStore } from '@statehouse/state/testing';
import { createToken, startApi } from '../lib/http.js';
import { scratchDir } from '../lib/stores.js';

const here = dirname(fileURLToPath(import.meta.url));
const ROUNDS = Number(process.argv[2] ?? 3);
const SESSIONS = Number(process.argv[3] ?? 4000);
const PER_SESSION = 50;
const ROOTS = (process.env.BENCH_ROOTS ?? resolve(here, '../..')).split(',');
const LOOP_PROBE = join(here, '../lib/loop-probe.mjs');

const max = (values: number[]) => values.reduce((a, b) => Math.max(a, b), 0);

function gaps(file: string, from: number, to: number) {
  const rows: { gap: number; cpu: number; wait: number }[] = [];
  if (!existsSync(file)) return rows;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const [end, gap, cpu, wait] = line.split(' ').map(Number);
    if (!Number.isFinite(end) || !Number.isFinite(cpu) || end - gap < from || end > to) continue;
    rows.push({ gap, cpu, wait });
  }
  return rows;
}

function poll(base: string, path: string) {
  const latencies: number[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const started = performance.now();
      try {
        await (await fetch(`${base}${path}`)).arrayBuffer();
      } catch {
        latencies.push(Number.POSITIVE_INFINITY);
      }
      latencies.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  return {
    latencies,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

async function round(root: string, template: string) {
  const path = join(scratchDir(), `retention-probe-${Date.now()}.db`);
  copyFileSync(template, path);
  const url = `file:${path}`;
  const probeFiles = [0, 1].map((i) => `${path}.loop-${i}.txt`);
  const env = (i: number) => ({
    STATEHOUSE_RETENTION_INTERVAL_SECONDS: '3',
    STATEHOUSE_JOB_TICK_SECONDS: '0.25',
    BENCH_LOOP_PROBE_FILE: probeFiles[i],
  });
  const servers = [await startApi(root, url, ['--import', LOOP_PROBE], env(0))];
  servers.push(await startApi(root, url, ['--import', LOOP_PROBE], env(1)));
  const token = createToken(root, url);
  const call = async (base: string, method: string, p: string, body?: unknown) => {
    const response = await fetch(`${base}${p}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    // biome-ignore lint/suspicious/noExplicitAny: JSON bodies of several shapes.
    return { status: response.status, body: text ? (JSON.parse(text) as any) : undefined };
  };
  const [first, second] = servers.map((s) => `http://127.0.0.1:${s.port}`);
  try {
    await call(second, 'POST', '/v1/sessions', { id: 'writer', profile: 'bench', source: 'cli' });
    const polls = [first, second].map((base) => poll(base, '/healthz'));
    let writing = true;
    let failedWrites = 0;
    const codes = new Map<number, number>();
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        const status = await call(second, 'POST', '/v1/sessions/writer/messages', {
          messages: [{ role: 'user', content: `w${i}` }],
        }).then(
          (answer) => answer.status,
          () => 0,
        );
        if (status !== 201) {
          failedWrites++;
          codes.set(status, (codes.get(status) ?? 0) + 1);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const load = loadavg()[0];
    const from = Date.now();
    await call(first, 'PUT', '/v1/retention/policies/aging', { retentionDays: 30 });
    let took = 0;
    let runnerPid = 0;
    for (;;) {
      await new Promise((r) => setTimeout(r, 250));
      const answer = await call(first, 'GET', '/v1/ops/jobs?job=retention&limit=50').catch((error) => {
        console.error(`jobs poll failed: ${error}`);
        return undefined;
      });
      if (!answer) continue;
      const runs = answer.body.items as {
        status: string;
        summary: { deleted?: number } | null;
        holder: string;
        startedAt: string;
        finishedAt: string | null;
      }[];
      const failed = runs.filter((run) => run.status === 'failed');
      if (failed.length > 0) throw new Error(`retention pass failed: ${JSON.stringify(failed)}`);
      const pass = runs.find((run) => run.status === 'done' && Number(run.summary?.deleted ?? 0) > 0);
      if (pass) {
        took = Date.parse(pass.finishedAt!) - Date.parse(pass.startedAt);
        console.error(`pass: ${JSON.stringify(pass)}`);
        runnerPid = Number(pass.holder.split(':')[1]);
        break;
      }
      if (Date.now() - from > 600_000) throw new Error('no retention pass within 10 minutes');
    }
    const to = Date.now();
    if (codes.size > 0) console.error(`failed appends by status: ${JSON.stringify([...codes])}`);
    writing = false;
    await writer;
    for (const p of polls) await p.stop();
    const runner = Math.max(
      0,
      servers.findIndex((s) => s.pid === runnerPid),
    );
    const runnerGaps = gaps(probeFiles[runner], from, to);
    const otherGaps = gaps(probeFiles[1 - runner], from, to);
    const top = [...runnerGaps].sort((a, b) => b.cpu - a.cpu).slice(0, 5);
    return {
      took,
      load,
      runnerOwn: max(runnerGaps.map((g) => g.cpu)),
      otherOwn: max(otherGaps.map((g) => g.cpu)),
      longestGap: max([...runnerGaps, ...otherGaps].map((g) => g.gap)),
      healthMax: max(polls.flatMap((p) => p.latencies)),
      failedWrites,
      top: top.map((g) => `${g.cpu.toFixed(1)}/${g.gap.toFixed(1)}`).join(' '),
    };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    for (const file of [path, `${path}-wal`, `${path}-shm`, ...probeFiles]) rmSync(file, { force: true });
  }
}

async function main() {
  const dir = join(tmpdir(), 'retention-probe-template');
  mkdirSync(dir, { recursive: true });
  const template = join(dir, `api-sessions-${SESSIONS}.db`);
  if (!existsSync(template)) {
    await syntheticSqliteStore(`${template}.tmp`, SESSIONS * PER_SESSION, PER_SESSION, {
      profile: 'aging',
      endedAt: Date.UTC(2025, 0, 1),
    });
    copyFileSync(`${template}.tmp`, template);
  }
  console.log(
    '| round | root | pass took | runner own blocking | other own | longest gap | /healthz max | failed appends | load (1 min) | runner top gaps cpu/gap |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? ROOTS : [...ROOTS].reverse();
    for (const root of order) {
      const x = await round(root, template);
      console.log(
        `| ${r + 1} | ${root} | ${x.took} ms | ${x.runnerOwn.toFixed(1)} ms | ${x.otherOwn.toFixed(1)} ms | ${x.longestGap.toFixed(1)} ms | ${x.healthMax.toFixed(1)} ms | ${x.failedWrites} | ${x.load.toFixed(2)} | ${x.top} |`,
      );
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
