import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, bearer, bootApi, TEST_DIALECTS } from './harness.js';

const CLI = (name: string) => fileURLToPath(new URL(`../dist/cli/${name}.js`, import.meta.url));

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`operations endpoints on ${dialect}`, () => {
    let api: ApiHarness;
    const dir = mkdtempSync(join(tmpdir(), 'statehouse-ops-'));

    beforeAll(async () => {
      api = await bootApi(dialect, {
        STATEHOUSE_BACKUP_INTERVAL_SECONDS: '86400',
        STATEHOUSE_BACKUP_DIR: join(dir, 'scheduled'),
        STATEHOUSE_BACKUP_KEEP: '3',
      });
    });
    afterAll(async () => {
      await api?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('GET /v1/ops/backup reports the last backup from the store, to admins only', async () => {
      const empty = await api.http().get('/v1/ops/backup').set(bearer(api.adminToken));
      expect(empty.status).toBe(200);
      expect(empty.body).toMatchObject({
        last: null,
        lastSucceeded: null,
        schedule: { intervalSeconds: 86400, directory: join(dir, 'scheduled'), keep: 3 },
      });
      await api.store.backups.backupTo(join(dir, `copy.${dialect}`), {
        trigger: 'cli',
        holder: 'ops-test',
        pgDump: true,
      });
      const status = await api.http().get('/v1/ops/backup').set(bearer(api.adminToken));
      expect(status.body.last).toMatchObject({ status: 'succeeded', trigger: 'cli', dialect, holder: 'ops-test' });
      expect(status.body.lastSucceeded.id).toBe(status.body.last.id);
      const member = await api.memberToken(['p']);
      expect((await api.http().get('/v1/ops/backup').set(bearer(member))).status).toBe(403);
    });

    it('GET /v1/ops/jobs lists job intervals with their holder and attempts', async () => {
      api.store.jobs.configure('idempotency-purge', 60_000);
      await api.store.jobs.runNow('idempotency-purge', 'ops-test-holder');
      api.store.jobs.configure('idempotency-purge', 0);
      const jobs = await api.http().get('/v1/ops/jobs?job=idempotency-purge').set(bearer(api.adminToken));
      expect(jobs.status).toBe(200);
      expect(jobs.body.items[0]).toMatchObject({
        job: 'idempotency-purge',
        status: 'done',
        holder: 'ops-test-holder',
        attempts: 1,
        summary: { deleted: 0 },
      });
    });
  });
}

describe('heavy reads past their deadline', () => {
  let api: ApiHarness;
  beforeAll(async () => {
    // A deadline no read can meet: every listing is past it before it starts.
    api = await bootApi('sqlite', {}, { store: { readDeadlineMs: 0 } });
  });
  afterAll(async () => api?.close());

  it('answer 503 deadline_exceeded with Retry-After, and the process keeps serving', async () => {
    const response = await api.http().get('/v1/sessions').set(bearer(api.adminToken));
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('2');
    expect(response.body).toMatchObject({ code: 'deadline_exceeded', status: 503 });
    expect((await api.http().get('/healthz')).status).toBe(200);
    expect((await api.http().get('/readyz')).status).toBe(200);
  });
});

describe('backup and restore commands', () => {
  const dir = mkdtempSync(join(tmpdir(), 'statehouse-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('npm run backup writes a checked copy; npm run restore brings it into an empty store only', async () => {
    if (!existsSync(CLI('backup'))) throw new Error('apps/api/dist is missing: run `npm run build` first');
    const source = `file:${join(dir, 'live.db')}`;
    const env = { ...process.env, STATEHOUSE_DATABASE_URL: source };
    execFileSync(process.execPath, [CLI('token'), 'create', '--role', 'admin', '--profiles', '*', '--name', 'cli'], {
      env,
      stdio: 'ignore',
    });
    const backedUp = execFileSync(process.execPath, [CLI('backup'), '--to', join(dir, 'copy.db')], {
      env,
      encoding: 'utf8',
    });
    expect(backedUp).toMatch(/backup written to .*copy\.db: \d+ bytes, 0 sessions, 0 messages, 0 receipts/);
    const refused = (() => {
      try {
        execFileSync(process.execPath, [CLI('restore'), '--from', join(dir, 'copy.db')], {
          env,
          encoding: 'utf8',
          stdio: 'pipe',
        });
        return null;
      } catch (error) {
        return error as { status: number; stderr: string };
      }
    })();
    expect(refused?.status).toBe(1);
    expect(refused?.stderr).toMatch(/not empty \(api_tokens: 1 rows\)/);
    const restored = execFileSync(process.execPath, [CLI('restore'), '--from', join(dir, 'copy.db')], {
      env: { ...env, STATEHOUSE_DATABASE_URL: `file:${join(dir, 'restored.db')}` },
      encoding: 'utf8',
    });
    expect(restored).toMatch(/restored .* into .*restored\.db: 0 sessions.*receipt chain verified \(0\)/);
  });
});
