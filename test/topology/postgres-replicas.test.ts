import { createTestDatabase, TEST_PG_URL, type TestDatabase } from '@statehouse/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_PASSWORD,
  adminToken,
  apiServices,
  assertBuilt,
  client,
  type Managed,
  startApi,
  startWeb,
} from './support/cluster.js';
import {
  concurrentAppends,
  idempotencyAcrossReplicas,
  leaseRaces,
  retentionOncePerInterval,
  watchAcrossReplicas,
} from './support/replica-checks.js';

const RETENTION_INTERVAL_SECONDS = 2;

/**
 * Three API replicas and the dashboard on one PostgreSQL database, started with the commands and
 * variables of docker-compose.yml (`api`, `api-2`, `api-3`, `web`).
 */
describe.skipIf(!TEST_PG_URL)('three API replicas and the dashboard on one PostgreSQL database', () => {
  let database: TestDatabase;
  let replicas: Managed[] = [];
  let web: Managed | undefined;
  let call: ReturnType<typeof client>;
  let token: string;

  beforeAll(async () => {
    assertBuilt();
    database = await createTestDatabase('postgres');
    const services = apiServices();
    expect(services).toEqual(['api', 'api-2', 'api-3']);
    // The first replica migrates the new database; the others then start together.
    const settings = {
      STATEHOUSE_RETENTION_INTERVAL_SECONDS: String(RETENTION_INTERVAL_SECONDS),
      STATEHOUSE_JOB_TICK_SECONDS: '0.2',
    };
    replicas.push(await startApi(services[0], database.url, settings));
    replicas.push(
      ...(await Promise.all(services.slice(1).map((service) => startApi(service, database.url, settings)))),
    );
    token = adminToken(database.url);
    call = client(token);
    web = await startWeb(replicas[0].url);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([...replicas, ...(web ? [web] : [])].map((managed) => managed.stop()));
    replicas = [];
    await database?.drop();
  });

  it('concurrent appends through every replica: none lost, none duplicated, no 5xx', async () => {
    expect(await concurrentAppends(call, replicas, 'pg')).toMatchObject({ serverErrors: 0 });
  });

  it('turn-lease races across replicas have exactly one winner', async () => {
    await leaseRaces(call, replicas, 'pg');
  });

  it('one Idempotency-Key sent to every replica has one effect', async () => {
    await idempotencyAcrossReplicas(call, replicas, 'pg');
  });

  it('a receipt watch on one replica sees deletions committed on another at once (LISTEN/NOTIFY)', async () => {
    const figures = await watchAcrossReplicas(call, replicas, token, 'pg');
    expect(figures.n).toBe(30);
  });

  it('the retention job runs once per interval across the replicas', async () => {
    // At least a few intervals since the replicas started.
    await new Promise((resolve) => setTimeout(resolve, 2 * RETENTION_INTERVAL_SECONDS * 1000));
    const figures = await retentionOncePerInterval(call, replicas, RETENTION_INTERVAL_SECONDS);
    expect(figures.intervals).toBeGreaterThanOrEqual(2);
  });

  it('the dashboard, on one replica, shows what another replica wrote', async () => {
    const title = `Written through replica 3 ${Date.now()}`;
    expect(
      (await call(replicas[2].url, 'POST', '/v1/sessions', { profile: 'topo', source: 'cli', title })).status,
    ).toBe(201);
    const login = await fetch(`${replicas[1].url}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
    });
    expect(login.ok).toBe(true);
    const cookie = login.headers
      .getSetCookie()
      .map((value) => value.split(';')[0])
      .join('; ');
    const page = await fetch(`${web!.url}/sessions?status=all`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(title);
  });
});
