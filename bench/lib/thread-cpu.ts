import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoad, startApi } from './http.js';

/**
 * Where the API process's CPU goes per single-message append, counted by a sampler of thread CPU
 * time: Linux `perf record -e cpu-clock` takes a sample only while a thread is on a core, so a
 * thread that waits — for a core, for PostgreSQL's answer — is not counted. (V8's `--cpu-prof`
 * samples wall time; on PostgreSQL it counts the API thread inside the socket write that woke a
 * backend while the thread waits to be scheduled again: docs/decisions/0024-append-target-and-the-cpu-floor.md.) JIT frames are named
 * through `--perf-basic-prof`. Each sample of the main thread goes to the nearest frame of its
 * stack, leaf first, that names a package; the kernel's part under Node's own frames (system calls)
 * and garbage collection (by its V8 symbols) are rows of their own.
 */
export interface ThreadCpuProfile {
  appendsPerSecond: number;
  errors: number;
  /** The API process's CPU per append from /proc (all threads), µs. */
  processUs: number;
  /** perf's samples per append, µs: the main thread and every other thread. */
  mainUs: number;
  otherThreadsUs: number;
  /** The main thread's µs per append by category, largest first. */
  categories: [string, number][];
}

const HZ = 1999;
const GC = /v8::internal::(Scavenger|Heap::|MarkCompact|Marking|Sweeper|Evacuat|MinorMark|ConcurrentMark|ScavengeJob)/;

/** The category of one frame of `perf script`, or null for a frame that names no package. */
function categoryOf(frame: string): string | null {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/:]+)/.exec(frame)?.[1];
  if (pkg) {
    if (pkg === 'kysely') return 'Kysely';
    if (pkg === 'better-sqlite3') return 'SQLite statements (better-sqlite3)';
    if (pkg === 'pg' || pkg.startsWith('pg-')) return 'pg driver (node-postgres)';
    if (pkg === 'zod') return 'zod and libs/contracts';
    if (/^(@nestjs\/|rxjs$|reflect-metadata$)/.test(pkg)) return 'Nest and apps/api (incl. rxjs)';
    if (pkg.includes('passport')) return 'passport';
    return 'Express and its middleware packages';
  }
  if (frame.includes('/libs/state/'))
    return /sqlite-(dialect|search-pending)/.test(frame) ? 'SQLite statements (store driver)' : 'libs/state';
  if (frame.includes('/apps/api/')) return 'Nest and apps/api (incl. rxjs)';
  if (frame.includes('/libs/contracts/')) return 'zod and libs/contracts';
  if (frame.includes('task_queues')) return 'promise jobs and async resumption';
  if (/\bnode:[a-z_]/.test(frame)) return 'Node: HTTP, sockets, streams, events';
  return null;
}

/** Throws when perf is missing or may not attach: the caller says so instead of a figure. */
export function perfAvailable(): void {
  execFileSync('perf', ['record', '-e', 'cpu-clock', '-o', '/dev/null', '--', 'true'], { stdio: 'pipe' });
}

/**
 * A server of its own (`apps/api/dist`, already built) on `url`; `sessions` are created through it,
 * then `sessions.length` keep-alive loops append `bodies` to a session each, `warmupSeconds`, then
 * `seconds` under perf.
 */
export async function appendThreadCpu(options: {
  root: string;
  url: string;
  headers: Record<string, string>;
  sessions: string[];
  bodies: string[];
  seconds: number;
  warmupSeconds: number;
}): Promise<ThreadCpuProfile> {
  const dir = mkdtempSync(join(tmpdir(), 'thread-cpu-'));
  const server = await startApi(options.root, options.url, [
    '--perf-basic-prof',
    '--interpreted-frames-native-stack',
    // --perf-basic-prof turns V8's log on: keep it out of the working tree.
    '--no-logfile-per-isolate',
    `--logfile=${join(dir, 'v8.log')}`,
  ]);
  try {
    for (const id of options.sessions) {
      const response = await fetch(`http://127.0.0.1:${server.port}/v1/sessions`, {
        method: 'POST',
        headers: { ...options.headers, 'content-type': 'application/json' },
        body: JSON.stringify({ id, profile: 'bench', source: 'cli' }),
      });
      if (response.status !== 201) throw new Error(`session ${id}: ${response.status} ${await response.text()}`);
    }
    const load = (seconds: number) =>
      runLoad({
        server,
        path: (_, k) => `/v1/sessions/${options.sessions[k]}/messages`,
        body: (i) => options.bodies[i % options.bodies.length],
        headers: { ...options.headers, 'content-type': 'application/json' },
        expect: 201,
        connections: options.sessions.length,
        seconds,
      });
    await load(options.warmupSeconds);
    const data = join(dir, 'perf.data');
    const perf = spawn(
      'perf',
      [
        'record',
        '-e',
        'cpu-clock',
        '-F',
        String(HZ),
        '-g',
        '-p',
        String(server.pid),
        '-o',
        data,
        '--',
        'sleep',
        String(options.seconds),
      ],
      { stdio: 'ignore' },
    );
    const recorded = new Promise<number | null>((resolve) => perf.once('exit', resolve));
    const result = await load(options.seconds);
    if ((await recorded) !== 0) throw new Error('perf record failed');
    if (result.requests === 0 || result.errors > 0) {
      throw new Error(`the profiled appends failed: ${result.requests} answered, ${result.errors} errors`);
    }
    const script = execFileSync('perf', ['script', '-i', data, '-F', 'tid,period,ip,sym,dso'], {
      maxBuffer: 1 << 30,
    }).toString();

    const sampleUs = 1e6 / HZ;
    const main = new Map<string, number>();
    let otherThreadsUs = 0;
    // One sample: a line "tid period", then its stack, leaf first; samples are separated by a blank line.
    for (const block of script.split('\n\n')) {
      const [header, ...frames] = block.split('\n').filter((line) => line.trim() !== '');
      if (!header) continue;
      if (header.trim().split(/\s+/)[0] !== String(server.pid)) {
        otherThreadsUs += sampleUs;
        continue;
      }
      const leaf = frames[0] ?? '';
      let category: string | null = null;
      if (GC.test(leaf)) category = 'garbage collection (on the main thread)';
      else {
        for (const frame of frames) {
          category = categoryOf(frame);
          if (category) break;
        }
        if (category?.startsWith('Node') && leaf.includes('kernel')) category = 'Node: in the kernel (system calls)';
        category ??= leaf.includes('kernel') ? 'kernel, no JS frame on its stack' : 'native, no JS frame on its stack';
      }
      main.set(category, (main.get(category) ?? 0) + sampleUs);
    }
    const n = result.requests;
    const mainUs = [...main.values()].reduce((a, b) => a + b, 0);
    return {
      appendsPerSecond: n / result.seconds,
      errors: result.errors,
      processUs: ((result.serverCpu ?? Number.NaN) * 1e6) / n,
      mainUs: mainUs / n,
      otherThreadsUs: otherThreadsUs / n,
      categories: [...main].map(([category, us]) => [category, us / n] as [string, number]).sort((a, b) => b[1] - a[1]),
    };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
    // perf reads JIT names from /tmp/perf-<pid>.map, which V8 writes and never removes.
    rmSync(join(tmpdir(), `perf-${server.pid}.map`), { force: true });
  }
}
