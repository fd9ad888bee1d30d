import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, apiServices, assertBuilt, client, type Managed, startApi } from './support/cluster.js';
import {
  concurrentAppends,
  idempotencyAcrossReplicas,
  leaseRaces,
  retentionOncePerInterval,
  watchAcrossReplicas,
} from './support/replica-checks.js';

const RETENTION_INTERVAL_SECONDS = 2;

/** Two API processes on one SQLite file (the compose `api` and `api-2` services, database swapped). */
describe('two API processes on one SQLite file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'statehouse-topology-sqlite-'));
  const databaseUrl = `file:${join(dir, 'statehouse.db')}`;
  let processes: Managed[] = [];
  let call: ReturnType<typeof client>;
  let token: string;

  beforeAll(async () => {
    assertBuilt();
    const settings = {
      STATEHOUSE_RETENTION_INTERVAL_SECONDS: String(RETENTION_INTERVAL_SECONDS),
      STATEHOUSE_JOB_TICK_SECONDS: '0.2',
    };
    const [first, second] = apiServices();
    processes.push(await startApi(first, databaseUrl, settings));
    processes.push(await startApi(second, databaseUrl, settings));
    token = adminToken(databaseUrl);
    call = client(token);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(processes.map((managed) => managed.stop()));
    processes = [];
    rmSync(dir, { recursive: true, force: true });
  });

  it('concurrent appends through both processes: none lost, none duplicated, no 5xx', async () => {
    expect(await concurrentAppends(call, processes, 'lite')).toMatchObject({ serverErrors: 0 });
  });

  it('turn-lease races across processes have exactly one winner', async () => {
    await leaseRaces(call, processes, 'lite');
  });

  it('one Idempotency-Key sent to both processes has one effect', async () => {
    await idempotencyAcrossReplicas(call, processes, 'lite');
  });

  it('a receipt watch in one process sees deletions committed by the other at once (data_version probe)', async () => {
    const figures = await watchAcrossReplicas(call, processes, token, 'lite');
    expect(figures.n).toBe(15);
  });

  it('the retention job runs once per interval across both processes', async () => {
    await new Promise((resolve) => setTimeout(resolve, 2 * RETENTION_INTERVAL_SECONDS * 1000));
    const figures = await retentionOncePerInterval(call, processes, RETENTION_INTERVAL_SECONDS);
    expect(figures.intervals).toBeGreaterThanOrEqual(2);
  });
});
