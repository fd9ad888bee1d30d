import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { syntheticSqliteStore } from '@statehouse/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, apiServices, assertBuilt, client, type Managed, percentile, startApi } from './support/cluster.js';

const MESSAGES = 100_000;

/** Calls `path` back to back until stopped; each call's latency. */
function poll(base: string, path: string) {
  const latencies: number[] = [];
  const failures: number[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const started = performance.now();
      try {
        const response = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(20_000) });
        await response.arrayBuffer();
        if (response.status !== 200) failures.push(response.status);
      } catch {
        failures.push(0);
      }
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  return {
    latencies,
    failures,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

/**
 * A search-index rebuild over a large SQLite store, started in one API process while a second
 * process on the same file keeps writing: neither process's /healthz or /readyz may stall (a
 * rebuild in one transaction held both for its whole length), writes keep succeeding, searches
 * answer `degraded` meanwhile, and the rebuilt index is exact. The 10⁶-message version is in
 * `npm run bench` (BENCH_ONLY=healthz-rebuild).
 */
describe(`health during a search index rebuild of ${MESSAGES.toLocaleString('en')} messages on SQLite`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'statehouse-freeze-'));
  const path = join(dir, 'statehouse.db');
  const databaseUrl = `file:${path}`;
  let processes: Managed[] = [];
  let call: ReturnType<typeof client>;

  beforeAll(async () => {
    assertBuilt();
    await syntheticSqliteStore(path, MESSAGES);
    const [first, second] = apiServices();
    processes = [await startApi(first, databaseUrl), await startApi(second, databaseUrl)];
    call = client(adminToken(databaseUrl));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(processes.map((managed) => managed.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('both processes answer /healthz and /readyz promptly and keep writing while one rebuilds', async () => {
    const [rebuilder, other] = processes;
    expect(
      (await call(other.url, 'POST', '/v1/sessions', { id: 'writer', profile: 'bulk', source: 'cli' })).status,
    ).toBe(201);
    const probes = {
      'rebuilding /healthz': poll(rebuilder.url, '/healthz'),
      'rebuilding /readyz': poll(rebuilder.url, '/readyz'),
      'other /healthz': poll(other.url, '/healthz'),
      'other /readyz': poll(other.url, '/readyz'),
    };
    const writes: number[] = [];
    let degradedSeen = false;
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        const reply = await call(other.url, 'POST', '/v1/sessions/writer/messages', {
          messages: [{ role: 'user', content: `written during the rebuild ${i} walrus` }],
        });
        writes.push(reply.status);
        if (i % 10 === 0) {
          const search = await call(other.url, 'GET', '/v1/search?q=walrus&limit=5');
          if (search.body?.degraded === true) degradedSeen = true;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = performance.now();
    const accepted = await call(rebuilder.url, 'POST', '/v1/search/index/rebuild');
    expect(accepted.status).toBe(202);
    let status = accepted.body;
    while (status.status === 'rebuilding' && performance.now() - started < 45_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await call(other.url, 'GET', '/v1/search/index')).body;
    }
    const rebuildMs = performance.now() - started;
    writing = false;
    await writer;
    await Promise.all(Object.values(probes).map((probe) => probe.stop()));

    expect(status).toMatchObject({ status: 'ready', degraded: false, lastRebuild: { error: null } });
    const figures = Object.fromEntries(
      Object.entries(probes).map(([name, probe]) => [
        name,
        { n: probe.latencies.length, p50: percentile(probe.latencies, 50), max: Math.max(...probe.latencies) },
      ]),
    );
    console.log(
      `rebuild of ${MESSAGES} messages took ${Math.round(rebuildMs)} ms; latency (ms): ${JSON.stringify(figures)}`,
    );
    // In one transaction the rebuild held both processes for its whole length (≈ 2 s here on an
    // idle machine, more on a busy one): a stall is now at most part of the rebuild, whatever the
    // load (a fixed cap flaked on a loaded 2-core machine, where one slow probe is not a freeze).
    // The 100 ms target is measured by the bench.
    const bound = Math.max(500, rebuildMs / 2);
    for (const [name, probe] of Object.entries(probes)) {
      expect(probe.failures, name).toEqual([]);
      expect(Math.max(...probe.latencies), name).toBeLessThan(bound);
    }
    expect(writes.length).toBeGreaterThan(10);
    expect(writes.filter((code) => code !== 201)).toEqual([]);
    expect(degradedSeen).toBe(true);
    const check = (await call(rebuilder.url, 'GET', '/v1/search/index?check=true')).body;
    expect(check.integrity).toMatchObject({ ok: true });
    expect(check.integrity.indexes[0].expectedRows).toBe(MESSAGES + writes.length);
  }, 60_000);
});
