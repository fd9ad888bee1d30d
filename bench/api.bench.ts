import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { openStore, type StateStore, silentLogger } from '@statehouse/state';
import { insertSessions } from './lib/build.js';
import type { BenchConfig } from './lib/config.js';
import { MessageFactory, SessionFactory } from './lib/data.js';
import {
  type ApiServer,
  buildApi,
  createToken,
  type LoadResult,
  postgresCpu,
  postgresCpuSince,
  profileByCategory,
  runLoad,
  startApi,
} from './lib/http.js';
import { replayAll, seedReceipts } from './lib/receipts.js';
import { fmtCount, fmtMs, fmtPct, fmtPerSecond, log, type Report } from './lib/report.js';
import { ADMIN_CTX, createPgDatabase, openSqliteStore, scratchDir } from './lib/stores.js';
import { appendThreadCpu, perfAvailable } from './lib/thread-cpu.js';
import { median, percentile, sample, settle, summarize } from './lib/timing.js';

interface Endpoint {
  label: string;
  path: (i: number, connection: number) => string;
  auth: boolean;
  what: string;
  /** A POST of this JSON (answered `expect`) instead of a GET. */
  body?: (i: number) => string;
  expect?: number;
}

interface Prepared {
  url: string;
  store: StateStore;
  close(): Promise<void>;
}

export interface ApiTarget {
  dialect: 'SQLite' | 'PostgreSQL';
  rounds: number;
  /** Receipts to seed for the HTTP replay (0: no replay). */
  receipts: number;
  /** Profile the server (V8 CPU profile) for one more round of `/healthz` and of a session read. */
  profile: boolean;
  /**
   * Profile 32 concurrent appenders by thread CPU samples (perf): where V8's wall-clock profile
   * cannot tell CPU from waiting (PostgreSQL).
   */
  threadProfile: boolean;
  prepare(): Promise<Prepared>;
}

const rps = (result: LoadResult) => result.requests / result.seconds;

const CATEGORIES = {
  sqlite: 'SQLite statements (better-sqlite3 calls in the store’s driver)',
  state: 'libs/state services and row mapping',
  kysely: 'Kysely: building and compiling each query',
  passport: 'passport (bearer strategy and Nest’s passport guard)',
  nest: 'Nest and apps/api: routing, guard, interceptors, pipes, handler, reading plain JSON bodies, writing JSON answers (incl. rxjs)',
  zod: 'zod and libs/contracts (request validation)',
  express: 'Express and its middleware packages (router; body-parser only for bodies the plain JSON reader leaves)',
  gc: 'garbage collection',
  node: 'Node: HTTP parsing and writing, sockets, timers, microtasks',
} as const;

/** A profile frame's category: by package, the store's driver (where better-sqlite3's native time lands) on its own. */
function categorize(url: string, functionName: string): string {
  if (functionName === '(garbage collector)') return CATEGORIES.gc;
  if (url.includes('/libs/state/'))
    return /\/db\/sqlite-(dialect|driver|group-commit|statement-cache)\./.test(url)
      ? CATEGORIES.sqlite
      : CATEGORIES.state;
  if (url.includes('/node_modules/kysely/')) return CATEGORIES.kysely;
  if (/\/node_modules\/(passport|passport-http-bearer|passport-custom|@nestjs\/passport)\//.test(url))
    return CATEGORIES.passport;
  if (/\/node_modules\/(@nestjs\/[^/]+|rxjs|reflect-metadata)\//.test(url) || url.includes('/apps/api/'))
    return CATEGORIES.nest;
  if (url.includes('/node_modules/zod/') || url.includes('/libs/contracts/')) return CATEGORIES.zod;
  if (url.includes('/node_modules/')) return CATEGORIES.express;
  return CATEGORIES.node;
}

/**
 * One more server, started with `--cpu-prof`, loaded with `endpoint` for `seconds` after a warm-up;
 * server CPU per request by category, counted over the measured window only.
 */
async function profileEndpoint(
  root: string,
  url: string,
  endpoint: Endpoint,
  headers: Record<string, string>,
  options: { connections: number; seconds: number; warmupSeconds: number },
): Promise<{ perRequest: Map<string, number>; requests: number }> {
  const dir = scratchDir();
  const server = await startApi(root, url, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
  let result: LoadResult;
  let window: { fromUs: number; toUs: number };
  try {
    const load = (seconds: number) =>
      runLoad({
        server,
        path: endpoint.path,
        headers: endpoint.auth ? headers : undefined,
        body: endpoint.body,
        expect: endpoint.expect,
        connections: options.connections,
        seconds,
      });
    await load(options.warmupSeconds);
    const fromUs = Number(process.hrtime.bigint() / 1000n);
    result = await load(options.seconds);
    window = { fromUs, toUs: Number(process.hrtime.bigint() / 1000n) };
  } finally {
    await server.stop();
  }
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error('the profiled API wrote no .cpuprofile');
  const totals = profileByCategory(join(dir, file), categorize, window);
  const perRequest = new Map([...totals].map(([category, ms]) => [category, (ms * 1000) / result.requests]));
  return { perRequest, requests: result.requests };
}

/**
 * Figure 10 (and the HTTP half of 9): the compiled API (`node apps/api/dist/main.js`) on a store
 * prepared here, loaded over loopback by keep-alive connections from this process. Endpoints from
 * no work at all (`/healthz`) to a session read, so the gap decomposes: the database round trip
 * (`/readyz`), bearer authentication (`/v1/auth/me`), then the read itself.
 */
export async function apiBench(report: Report, config: BenchConfig, root: string, target: ApiTarget): Promise<void> {
  const c = config.api;
  try {
    const { ms } = buildApi(root);
    log(`  apps/api built (tsc -b apps/api, ${(ms / 1000).toFixed(1)} s)`);
  } catch (error) {
    const output = (error as { stderr?: Buffer; stdout?: Buffer }).stdout?.toString() ?? String(error);
    report.note(
      `**API (${target.dialect})**: not measured — \`tsc -b apps/api\` failed in this run:\n\n\`\`\`\n${output.slice(0, 1500)}\n\`\`\``,
    );
    return;
  }
  const prepared = await target.prepare();
  const store = prepared.store;
  let server: ApiServer | undefined;
  try {
    const rows = new SessionFactory(9).rows(c.sessions, 'api');
    await insertSessions(store, rows);
    const ids = rows.map((row) => row.id);
    const seeded = target.receipts > 0 ? await seedReceipts(store, target.receipts) : undefined;
    const token = createToken(root, prepared.url);
    const headers = { Authorization: `Bearer ${token}` };

    // In-process: the store calls behind each endpoint, on the same database (server not running yet).
    const principal = await store.auth.authenticateToken(token);
    const pick = (i: number) => ids[(i * 7919) % ids.length];
    const inProcess = [
      { label: '`store.ping()` (`select 1`; behind `/readyz`)', run: () => store.ping() },
      {
        label: '`store.auth.authenticateToken` (behind every bearer request)',
        run: () => store.auth.authenticateToken(token),
      },
      {
        label: '`store.sessions.get` (behind `/v1/sessions/:id`)',
        run: (i: number) => store.sessions.get({ principal, channel: 'api' }, pick(i)),
      },
    ];
    const inProcessP50 = [];
    for (const call of inProcess) inProcessP50.push(summarize(await sample(2000, call.run, 200)).p50);

    server = await startApi(root, prepared.url);
    const running = server;
    log(`  API started (pid ${running.pid}, port ${running.port})`);
    const endpoints: Endpoint[] = [
      { label: '`GET /healthz`', path: () => '/healthz', auth: false, what: 'public, no store call' },
      { label: '`GET /readyz`', path: () => '/readyz', auth: false, what: 'public, one `select 1`' },
      { label: '`GET /v1/auth/me`', path: () => '/v1/auth/me', auth: true, what: 'bearer token checked, nothing else' },
      {
        label: '`GET /v1/sessions/:id`',
        path: (i) => `/v1/sessions/${pick(i)}`,
        auth: true,
        what: `bearer, then the session row (${fmtCount(ids.length)} sessions, ids in turn)`,
      },
    ];
    const load = (endpoint: Endpoint, seconds: number) =>
      runLoad({
        server: running,
        path: endpoint.path,
        headers: endpoint.auth ? headers : undefined,
        connections: c.connections,
        seconds,
      });
    for (const endpoint of endpoints) {
      const warm = await load(endpoint, c.warmupSeconds);
      if (warm.requests === 0 || warm.errors > 0) {
        throw new Error(`${endpoint.label}: ${warm.errors} failed requests during warm-up`);
      }
    }
    const results = endpoints.map(() => [] as LoadResult[]);
    for (let round = 0; round < target.rounds; round++) {
      for (let k = 0; k < endpoints.length; k++) {
        const index = (k + round) % endpoints.length;
        await settle();
        results[index].push(await load(endpoints[index], c.roundSeconds));
      }
      log(`  round ${round + 1}: ${results.map((r) => `${Math.round(rps(r[r.length - 1]))}/s`).join(', ')}`);
    }
    const medianOf = (list: LoadResult[]) => median(list.map(rps));
    const health = medianOf(results[0]);
    const add = report.table(
      `Requests per second, one server (${target.dialect})`,
      [
        'endpoint',
        'what it does',
        'requests/s (median round)',
        'vs `/healthz`',
        'latency p50',
        'p99',
        'server CPU per request',
        'server CPU busy',
        'load generator CPU busy',
        'errors',
      ],
      `${target.rounds} rounds of ${c.roundSeconds} s per endpoint (order rotated each round, ${c.warmupSeconds} s ` +
        `warm-up each); ${c.connections} keep-alive connections; “CPU busy” is CPU time over wall time of the ` +
        'round (1.0 = one core).',
    );
    const perRequestCpu: number[] = [];
    for (const [i, endpoint] of endpoints.entries()) {
      const all = results[i];
      const latencies = all.flatMap((r) => r.latencies).sort((a, b) => a - b);
      const seconds = all.reduce((sum, r) => sum + r.seconds, 0);
      const requests = all.reduce((sum, r) => sum + r.requests, 0);
      const serverCpu = all.every((r) => r.serverCpu !== null)
        ? all.reduce((sum, r) => sum + (r.serverCpu ?? 0), 0)
        : null;
      const clientCpu = all.reduce((sum, r) => sum + r.clientCpu, 0);
      perRequestCpu.push(serverCpu === null ? Number.NaN : (serverCpu / requests) * 1e6);
      add([
        endpoint.label,
        endpoint.what,
        fmtPerSecond(medianOf(all), 'req'),
        fmtPct(medianOf(all) / health),
        fmtMs(percentile(latencies, 50)),
        fmtMs(percentile(latencies, 99)),
        serverCpu === null ? '—' : `${Math.round((serverCpu / requests) * 1e6)} µs`,
        serverCpu === null ? '—' : (serverCpu / seconds).toFixed(2),
        (clientCpu / seconds).toFixed(2),
        String(all.reduce((sum, r) => sum + r.errors, 0)),
      ]);
    }
    const sessions = medianOf(results[3]);
    const ratio = sessions / health;
    const sqlite = target.dialect === 'SQLite';
    for (const [share, label] of sqlite
      ? ([
          [0.6, '≥ 60 % of `/healthz`'],
          [0.5, '≥ 50 % of `/healthz` (older target)'],
        ] as const)
      : ([[null, 'report only']] as const)) {
      report.target({
        figure: `10. API \`GET /v1/sessions/:id\` vs \`GET /healthz\` throughput, ${target.dialect}`,
        ours: fmtPerSecond(sessions, 'req'),
        ceiling: `${fmtPerSecond(health, 'req')} (\`/healthz\`)`,
        ratio: fmtPct(ratio),
        target: label,
        met: share === null ? null : ratio >= share,
      });
    }
    const addInProcess = report.table(`In-process, the store calls behind those endpoints (${target.dialect})`, [
      'call',
      'p50',
    ]);
    for (const [i, call] of inProcess.entries()) addInProcess([call.label, fmtMs(inProcessP50[i])]);

    // The HTTP half of figure 9: the same replay, over the API, against the store in this process.
    let replayNote = '';
    if (seeded) {
      const pageSize = config.deletion.pageSize;
      const http = () =>
        replayAll(async (after) => {
          const response = await fetch(
            `http://127.0.0.1:${running.port}/v1/deletion-receipts?after=${after}&limit=${pageSize}`,
            { headers },
          );
          if (response.status !== 200) throw new Error(`receipt page after ${after}: HTTP ${response.status}`);
          return (await response.json()) as { items: unknown[]; nextCursor: string | null };
        });
      const direct = () => replayAll((after) => store.receipts.list(ADMIN_CTX, { after, limit: pageSize }));
      const variants = [
        {
          label: `HTTP: \`GET /v1/deletion-receipts?after=N&limit=${pageSize}\`, JSON parsed by the client`,
          run: http,
        },
        { label: `in-process: \`store.receipts.list\` on the same database, limit ${pageSize}`, run: direct },
      ];
      const rates = variants.map(() => [] as number[]);
      // CPU per receipt on each side, so a wall-clock rate on a shared machine can be attributed:
      // the server's (query, row mapping, serialization, socket writes) and this process's (fetch,
      // JSON parse; for the in-process variant, the whole replay).
      const serverCpu = variants.map(() => [] as number[]);
      const clientCpu = variants.map(() => [] as number[]);
      let count = 0;
      let pages = 0;
      for (let round = 0; round < c.replayRounds; round++) {
        for (let k = 0; k < variants.length; k++) {
          const index = (k + round) % variants.length;
          const serverBefore = running.cpuSeconds();
          const clientBefore = process.cpuUsage();
          const result = await variants[index].run();
          const serverAfter = running.cpuSeconds();
          const client = process.cpuUsage(clientBefore);
          rates[index].push(result.receipts / (result.ms / 1000));
          if (serverBefore !== null && serverAfter !== null) {
            serverCpu[index].push(((serverAfter - serverBefore) * 1e6) / result.receipts);
          }
          clientCpu[index].push((client.user + client.system) / result.receipts);
          count = result.receipts;
          pages = result.pages;
        }
      }
      const cpuPerReceipt = (values: number[]) => (values.length === 0 ? '—' : `${median(values).toFixed(1)} µs`);
      const addReplay = report.table(
        `Receipt replay over HTTP, ${fmtCount(count)} receipts (${target.dialect})`,
        [
          'replay',
          'receipts/s (median round)',
          'slowest round',
          'per page of 1000',
          'server CPU per receipt',
          'this process’s CPU per receipt',
        ],
        `${fmtCount(seeded.count)} receipts seeded in bulk as in the deletion part (${(seeded.bytes / 1024).toFixed(1)} KB ` +
          `of JSON each on average); ${c.replayRounds} rounds, HTTP and in-process in turn; one client, pages read ` +
          'one after the other, as a consumer catching up would. CPU per receipt (median round): the API ' +
          'process’s (query, row mapping, JSON serialization, socket writes; idle for the in-process variant) ' +
          'and this process’s (the HTTP client and its JSON parse; the whole replay in-process) — the receipts/s ' +
          'of a round is bounded by their sum and by what else runs on the two cores.',
      );
      for (const [i, variant] of variants.entries()) {
        const rate = median(rates[i]);
        addReplay([
          variant.label,
          fmtPerSecond(rate, 'receipts'),
          fmtPerSecond(Math.min(...rates[i]), 'receipts'),
          fmtMs((count / rate / pages) * 1000),
          cpuPerReceipt(serverCpu[i]),
          cpuPerReceipt(clientCpu[i]),
        ]);
      }
      const httpRate = median(rates[0]);
      report.target({
        figure: `9. receipt replay of ${fmtCount(count)} receipts over HTTP (\`GET /v1/deletion-receipts\`, limit ${pageSize}), ${target.dialect}`,
        ours: fmtPerSecond(httpRate, 'receipts'),
        ceiling: `${fmtPerSecond(median(rates[1]), 'receipts')} (in-process)`,
        ratio: fmtPct(httpRate / median(rates[1])),
        target: sqlite ? '≥ 20,000 receipts/s' : 'report only',
        met: sqlite ? httpRate >= 20_000 : null,
      });
      replayNote =
        ` Receipt replay over HTTP: ${fmtPerSecond(httpRate, 'receipts')} (pages of ${pageSize}, ` +
        `${(seeded.bytes / 1024).toFixed(1)} KB per receipt; ${fmtPct(httpRate / median(rates[1]))} of ` +
        'the same replay in-process): the page is serialized by the server and parsed by the client, a megabyte ' +
        `at a time — ${cpuPerReceipt(serverCpu[0])} of server CPU and ${cpuPerReceipt(clientCpu[0])} of client ` +
        'CPU per receipt.';
    }
    await concurrentAppends(report, config, target.dialect, running, headers, store);
    if (target.threadProfile) {
      await running.stop();
      server = undefined;
      await appendThreadProfile(report, config, root, prepared.url, headers, target.dialect);
    }

    // Where a session read's server CPU goes: one more round of each end of the ladder, profiled.
    let profileNote = '';
    if (target.profile) {
      await running.stop();
      server = undefined;
      const options = { connections: c.connections, seconds: c.roundSeconds, warmupSeconds: c.warmupSeconds };
      const base = await profileEndpoint(root, prepared.url, endpoints[0], headers, options);
      const read = await profileEndpoint(root, prepared.url, endpoints[3], headers, options);
      // One message per request, each connection to a session of its own.
      const appendSessions = Array.from({ length: c.connections }, (_, k) => `prof-append-${k}`);
      for (const id of appendSessions) await store.sessions.create(ADMIN_CTX, { id, profile: 'bench', source: 'cli' });
      const bodies = new MessageFactory(17)
        .messages(500)
        .map((message) => JSON.stringify({ messages: [{ role: message.role, content: message.content }] }));
      const write = await profileEndpoint(
        root,
        prepared.url,
        {
          label: '`POST /v1/sessions/:id/messages`',
          path: (_, k) => `/v1/sessions/${appendSessions[k]}/messages`,
          auth: true,
          what: 'one message',
          body: (i) => bodies[i % bodies.length],
          expect: 201,
        },
        headers,
        options,
      );
      const categories = Object.values(CATEGORIES).map((category) => ({
        category,
        base: base.perRequest.get(category) ?? 0,
        read: read.perRequest.get(category) ?? 0,
        write: write.perRequest.get(category) ?? 0,
      }));
      categories.sort((a, b) => b.read - b.base - (a.read - a.base));
      const sum = (key: 'base' | 'read' | 'write') => categories.reduce((total, row) => total + row[key], 0);
      const addProfile = report.table(
        `Where the server’s CPU goes per request, by package (V8 CPU profile, ${target.dialect})`,
        [
          'category',
          '`GET /healthz`',
          '`GET /v1/sessions/:id`',
          'added by the session read',
          '`POST /v1/sessions/:id/messages` (one message)',
        ],
        `One more server per endpoint, started with \`--cpu-prof\`: ${c.warmupSeconds} s warm-up, then ` +
          `${c.roundSeconds} s of the same load; only samples inside the measured window count (start-up and ` +
          'warm-up are left out), self time per category divided by the requests answered in it. The profiler ' +
          'itself adds some overhead, so totals run above the unprofiled figures; better-sqlite3 runs natively ' +
          'inside the store driver’s `executeQuery`, whose self time is therefore the SQLite row. The profile is ' +
          'the event loop’s (the main thread): concurrent appends run their unit of work on the append writer’s ' +
          'thread, which it does not see — that thread’s CPU is in the concurrent-append table (server CPU per ' +
          'append less the event loop’s).',
      );
      const us = (value: number) => `${value.toFixed(value < 10 ? 1 : 0)} µs`;
      for (const row of categories) {
        addProfile([row.category, us(row.base), us(row.read), us(row.read - row.base), us(row.write)]);
      }
      addProfile(['**total**', us(sum('base')), us(sum('read')), us(sum('read') - sum('base')), us(sum('write'))]);
      const added = sum('read') - sum('base');
      const top = categories.slice(0, 4).map((row) => `${row.category} ${us(row.read - row.base)}`);
      profileNote =
        ` Profiled, a session read costs ${us(sum('read'))} of server CPU against ${us(sum('base'))} for ` +
        `\`/healthz\`; of the ${us(added)} it adds, the largest parts are ${top.join(', ')} (table “Where the ` +
        'server’s CPU goes”). A single-message append costs ' +
        `${us(sum('write'))} on the event loop, of which ${us(write.perRequest.get(CATEGORIES.sqlite) ?? 0)} in SQLite ` +
        `statements and ${us(write.perRequest.get(CATEGORIES.zod) ?? 0)} in request validation.`;
    }
    const cpu = (i: number) => `${Math.round(perRequestCpu[i])} µs`;
    const hasCpu = perRequestCpu.every((value) => Number.isFinite(value));
    report.note(
      `**API throughput (10${sqlite ? '' : `, ${target.dialect}`})**: \`GET /v1/sessions/:id\` serves ` +
        `${fmtPerSecond(sessions, 'req')}, ${fmtPct(ratio)} of \`/healthz\` (${fmtPerSecond(health, 'req')}) on the ` +
        'same server' +
        (sqlite && hasCpu
          ? ` (60 % needs a session read in at most ${Math.round(perRequestCpu[0] / 0.6)} µs of server CPU, 1.67× ` +
            '`/healthz`’s). '
          : '. ') +
        (hasCpu
          ? `Server CPU per request: ${cpu(0)} for \`/healthz\`, ${cpu(1)} for \`/readyz\` (+ a database round ` +
            `trip), ${cpu(2)} for \`/v1/auth/me\` (+ bearer authentication) and ${cpu(3)} for a session read. ` +
            `In a tight loop in-process the store answers \`authenticateToken\` in ${fmtMs(inProcessP50[1])} and ` +
            `\`sessions.get\` in ${fmtMs(inProcessP50[2])} (p50)` +
            (sqlite
              ? '; inside the loaded server the same two queries cost more — see the profile below.'
              : ', most of it waiting on PostgreSQL, whose backends run on the same two cores.')
          : '') +
        profileNote +
        ' Server and load generator share the two cores of this machine: the server’s main thread saturates one ' +
        'core, the load generator takes much of the other, so these are the throughput of one API process, not ' +
        `of the machine.${replayNote}`,
    );
  } finally {
    await server?.stop();
    await prepared.close();
  }
}

/** Concurrent single-message appenders over HTTP, each to its own session (figure 16). */
const APPEND_CLIENTS = [1, 8, 32, 128];

/** Figure 16's 32-client row once more, on a server of its own under perf (bench/lib/thread-cpu.ts). */
async function appendThreadProfile(
  report: Report,
  config: BenchConfig,
  root: string,
  url: string,
  headers: Record<string, string>,
  dialect: ApiTarget['dialect'],
): Promise<void> {
  const c = config.api;
  const title = `Where the API process’s CPU goes per append, by package (thread CPU samples, 32 clients, ${dialect})`;
  try {
    perfAvailable();
  } catch (error) {
    report.note(
      `**${title}**: not measured — \`perf\` cannot record here (${String((error as Error).message).split('\n')[0]}).`,
    );
    return;
  }
  const sessions = Array.from({ length: 32 }, (_, k) => `thread-cpu-${k}`);
  const bodies = new MessageFactory(18)
    .messages(2000)
    .map((message) => JSON.stringify({ messages: [{ role: message.role, content: message.content }] }));
  const profile = await appendThreadCpu({
    root,
    url,
    headers,
    sessions,
    bodies,
    seconds: c.roundSeconds * 2,
    warmupSeconds: c.warmupSeconds,
  });
  const add = report.table(
    title,
    ['where', 'CPU per append', 'share of the main thread'],
    'One more server, 32 keep-alive clients appending one message each to a session of its own (as figure 16), ' +
      `${c.warmupSeconds} s warm-up, then ${c.roundSeconds * 2} s under \`perf record -e cpu-clock -F 1999 -g\` ` +
      '(`--perf-basic-prof` names the JIT frames). perf samples a thread only while it runs on a core, so waiting ' +
      '— for a core, for the database — is not counted; V8’s `--cpu-prof` samples wall time, which on ' +
      'PostgreSQL counts the API thread inside the socket write that woke a backend (docs/architecture.md). Each ' +
      'main-thread sample goes to the nearest frame of its stack, leaf first, that names a package; system calls ' +
      'under Node’s own frames and garbage collection are rows of their own. ' +
      `This round: ${fmtPerSecond(profile.appendsPerSecond, 'msg')}, ${profile.errors} errors.`,
  );
  const us = (value: number) => `${value.toFixed(value < 10 ? 1 : 0)} µs`;
  for (const [category, value] of profile.categories) add([category, us(value), fmtPct(value / profile.mainUs)]);
  add(['**main thread** (perf)', us(profile.mainUs), '100 %']);
  add(['other threads of the process (perf)', us(profile.otherThreadsUs), '—']);
  add(['the whole process (/proc)', us(profile.processUs), '—']);
}

/**
 * Figure 16: `clients` keep-alive loops, each appending single messages (`POST
 * /v1/sessions/:id/messages`, one message per request) to a session of its own, against `/healthz`
 * at the same concurrency in the same rounds (alternating, order rotated), on the running server.
 */
async function concurrentAppends(
  report: Report,
  config: BenchConfig,
  dialect: ApiTarget['dialect'],
  server: ApiServer,
  headers: Record<string, string>,
  store: StateStore,
): Promise<void> {
  const c = config.api;
  const rounds = c.appendRounds;
  const pool = new MessageFactory(16)
    .messages(2000)
    .map((message) => JSON.stringify({ messages: [{ role: message.role, content: message.content }] }));
  const add = report.table(
    `Concurrent single-message appends over HTTP (${dialect})`,
    [
      'clients',
      'appends/s (median round)',
      '`/healthz` req/s, same clients',
      'vs `/healthz`',
      'latency p50',
      'p99',
      'server CPU per append',
      'of it, the event loop (main thread)',
      ...(dialect === 'PostgreSQL' ? ['PostgreSQL CPU per append'] : []),
      'errors (5xx or no answer)',
    ],
    `Each client is a keep-alive loop that sends \`POST /v1/sessions/:id/messages\` with one message to a ` +
      'session of its own and sends the next when the answer (201) has been read; `/healthz` is loaded by the ' +
      `same number of loops in the same rounds (${rounds} rounds of ${c.roundSeconds} s each, alternating, after ` +
      `a ${c.warmupSeconds} s warm-up of each). Every client count runs in every round, in an order rotated each ` +
      'round, so all counts meet the same store as it grows. Messages come from the seeded generator (60–140 characters). ' +
      'Server CPU is every thread of the API process (from /proc); the event loop is its main thread, the rest is the ' +
      'append writer’s thread on SQLite (where overlapping appends run, docs/architecture.md), the WAL checkpointer, ' +
      'the search-index merger and V8’s garbage-collection helpers.' +
      (dialect === 'PostgreSQL'
        ? ' PostgreSQL CPU: every local `postgres` process’s CPU time during the append rounds (from /proc), per append.'
        : ''),
  );
  const results = new Map<number, { rate: number; health: number; p99: number; errors: number; fives: number }>();
  // Every client count is measured in every round (order rotated), not one count after the other:
  // the store grows with every append round, so a count measured last met a bigger store (and, on
  // PostgreSQL, more index and vacuum work) than the first — 128 against 32 compared two moments,
  // not two concurrencies (PostgreSQL: 88 % in the full bench's sequence; 103 %, the median of 6
  // interleaved rounds of bench/probes/clients128.probe.ts; docs/decisions/0006-no-planner-statistics-for-fts-shadow-tables.md).
  const counts = APPEND_CLIENTS.map((clients) => {
    const sessions = Array.from({ length: clients }, (_, k) => `ca-${clients}-${k}`);
    const variants = [
      (seconds: number) => runLoad({ server, path: () => '/healthz', connections: clients, seconds }),
      (seconds: number) =>
        runLoad({
          server,
          path: (_, k) => `/v1/sessions/${sessions[k]}/messages`,
          body: (i) => pool[i % pool.length],
          headers,
          expect: 201,
          connections: clients,
          seconds,
        }),
    ];
    return {
      clients,
      sessions,
      variants,
      measured: variants.map(() => [] as LoadResult[]),
      postgresSeconds: (dialect === 'PostgreSQL' ? 0 : null) as number | null,
    };
  });
  for (const count of counts) {
    for (const id of count.sessions) await store.sessions.create(ADMIN_CTX, { id, profile: 'bench', source: 'cli' });
    for (const run of count.variants) await run(c.warmupSeconds);
  }
  for (let round = 0; round < rounds; round++) {
    for (let j = 0; j < counts.length; j++) {
      const count = counts[(j + round) % counts.length];
      for (let k = 0; k < count.variants.length; k++) {
        const index = (k + round) % count.variants.length;
        await settle();
        const postgresBefore = index === 1 && count.postgresSeconds !== null ? postgresCpu() : null;
        count.measured[index].push(await count.variants[index](c.roundSeconds));
        if (postgresBefore) {
          const spent = postgresCpuSince(postgresBefore);
          count.postgresSeconds =
            spent === null || count.postgresSeconds === null ? null : count.postgresSeconds + spent;
        }
      }
    }
  }
  for (const { clients, measured, postgresSeconds } of counts) {
    const [health, appends] = measured;
    const rate = median(appends.map(rps));
    const healthRate = median(health.map(rps));
    const latencies = appends.flatMap((r) => r.latencies).sort((a, b) => a - b);
    const requests = appends.reduce((sum, r) => sum + r.requests, 0);
    const errors = appends.reduce((sum, r) => sum + r.errors, 0);
    const fives = appends.reduce((sum, r) => sum + r.serverErrors, 0);
    const serverCpu = appends.every((r) => r.serverCpu !== null)
      ? appends.reduce((sum, r) => sum + (r.serverCpu ?? 0), 0)
      : null;
    const mainCpu = appends.every((r) => r.serverMainCpu !== null)
      ? appends.reduce((sum, r) => sum + (r.serverMainCpu ?? 0), 0)
      : null;
    const p99 = percentile(latencies, 99);
    results.set(clients, { rate, health: healthRate, p99, errors, fives });
    log(
      `  ${clients} appending clients: ${Math.round(rate)}/s (${fmtPct(rate / healthRate)} of /healthz), p99 ${fmtMs(p99)}`,
    );
    add([
      String(clients),
      fmtPerSecond(rate, 'msg'),
      fmtPerSecond(healthRate, 'req'),
      fmtPct(rate / healthRate),
      fmtMs(percentile(latencies, 50)),
      fmtMs(p99),
      serverCpu === null || requests === 0 ? '—' : `${Math.round((serverCpu / requests) * 1e6)} µs`,
      mainCpu === null || requests === 0 ? '—' : `${Math.round((mainCpu / requests) * 1e6)} µs`,
      ...(dialect === 'PostgreSQL'
        ? [postgresSeconds === null || requests === 0 ? '—' : `${Math.round((postgresSeconds / requests) * 1e6)} µs`]
        : []),
      `${errors} (${fives})`,
    ]);
  }
  const at32 = results.get(32)!;
  const at128 = results.get(128)!;
  report.target({
    figure: `16. 32 concurrent single-message appenders over HTTP vs \`/healthz\` (same clients), ${dialect}`,
    ours: `${fmtPerSecond(at32.rate, 'msg')}, p99 ${fmtMs(at32.p99)}`,
    ceiling: `${fmtPerSecond(at32.health, 'req')} (\`/healthz\`)`,
    ratio: fmtPct(at32.rate / at32.health),
    target: '≥ 60 % of `/healthz` and p99 ≤ 50 ms',
    met: at32.rate / at32.health >= 0.6 && at32.p99 <= 50,
  });
  report.target({
    figure: `16. 128 concurrent single-message appenders over HTTP, ${dialect}`,
    ours: `${fmtPerSecond(at128.rate, 'msg')}; ${at128.errors} errors, ${at128.fives} 5xx`,
    ceiling: `${fmtPerSecond(at32.rate, 'msg')} (32 clients)`,
    ratio: fmtPct(at128.rate / at32.rate),
    target: 'no error, no 5xx, ≥ the 32-client figure',
    met: at128.errors === 0 && at128.fives === 0 && at128.rate >= at32.rate,
  });
  report.note(
    `**Concurrent appends over HTTP (16, ${dialect})**: ` +
      APPEND_CLIENTS.map((n) => {
        const r = results.get(n)!;
        return `${n} client${n > 1 ? 's' : ''} ${fmtPerSecond(r.rate, 'msg')} (${fmtPct(r.rate / r.health)} of \`/healthz\`, p99 ${fmtMs(r.p99)})`;
      }).join('; ') +
      '. Each request is one transaction of its own unless the store commits concurrent appends together; the ' +
      'load generator shares the two cores with the server.',
  );
}

export async function apiSqlite(report: Report, config: BenchConfig, root: string): Promise<void> {
  report.section(
    'API throughput (SQLite)',
    'The compiled API as deployed — `node --max-semi-space-size=32 apps/api/dist/main.js`, built first with `tsc -b apps/api` — on a temp ' +
      `SQLite file prepared in this process: ${fmtCount(config.api.sessions)} session rows (the list benchmark’s ` +
      `mix, inserted in bulk) and ${fmtCount(config.api.receipts)} seeded receipts; an admin token made with ` +
      '`node apps/api/dist/cli/token.js create`; `STATEHOUSE_SEED_DEMO=false`, ' +
      '`STATEHOUSE_RETENTION_INTERVAL_SECONDS=0`. The load generator is this process: ' +
      `${config.api.connections} concurrent keep-alive loops of \`node:http\` requests over loopback, each sending ` +
      'its next request when the previous response has been read in full. **This machine has 2 cores, shared by ' +
      'the server and the load generator** (and the run’s own bookkeeping); server CPU is read from /proc for ' +
      'each round.',
  );
  await apiBench(report, config, root, {
    dialect: 'SQLite',
    rounds: config.api.rounds,
    receipts: config.api.receipts,
    profile: true,
    threadProfile: false,
    async prepare() {
      const file = await openSqliteStore('api');
      return { url: `file:${file.path}`, store: file.store, close: () => file.close() };
    },
  });
}

export async function apiPg(report: Report, config: BenchConfig, root: string, serverUrl: string): Promise<void> {
  report.section(
    'API throughput (PostgreSQL)',
    'As on SQLite, the server on a scratch PostgreSQL database (its default pool of 10 connections); no receipt ' +
      'replay over HTTP. Report only.',
  );
  await apiBench(report, config, root, {
    dialect: 'PostgreSQL',
    rounds: config.pg.api.rounds,
    receipts: 0,
    profile: false,
    threadProfile: true,
    async prepare() {
      const database = await createPgDatabase(serverUrl, 'api');
      try {
        const store = await openStore({ url: database.url, logger: silentLogger });
        return {
          url: database.url,
          store,
          async close() {
            await store.close();
            await database.drop();
          },
        };
      } catch (error) {
        await database.drop();
        throw error;
      }
    },
  });
}
