import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { openStore, silentLogger } from '@statehouse/state';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS, useApi } from './harness.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * docs/domain.md §5.3.6 over HTTP: the epoch in pages, and the 410 for another one (the bookmark's
 * epoch: security-receipts.test.ts).
 */
for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`the store epoch over HTTP on ${dialect}`, () => {
    const { api, admin } = useApi(dialect);
    const STALE = '00000000-0000-4000-8000-000000000000';

    it('[receipts.epoch] pages carry it; a cursor or acknowledgement of another epoch answers 410 epoch_changed', async () => {
      const page = await api.http().get('/v1/deletion-receipts?after=0').set(admin).expect(200);
      const epoch = page.body.epoch as string;
      expect(epoch).toMatch(/^[0-9a-f-]{36}$/);
      await api.http().get(`/v1/deletion-receipts?after=0&epoch=${epoch}`).set(admin).expect(200);
      for (const [method, path, body] of [
        ['get', `/v1/deletion-receipts?after=0&epoch=${STALE}`, undefined],
        ['get', `/v1/deletion-receipts/watch?after=0&epoch=${STALE}`, undefined],
        ['put', '/v1/receipt-consumers/indexer', { cursor: 0, epoch: STALE }],
      ] as const) {
        const response =
          method === 'get' ? await api.http().get(path).set(admin) : await api.http().put(path).set(admin).send(body);
        expect(response.status, path).toBe(410);
        expect(response.headers['content-type']).toContain('application/problem+json');
        expect(response.body).toMatchObject({ code: 'epoch_changed', epoch });
      }
      const registered = await api.http().put('/v1/receipt-consumers/indexer').set(admin).send({ cursor: 0, epoch });
      expect(registered.status).toBe(200);
      expect(registered.body).toMatchObject({ cursor: 0, epoch });
    });
  });
}

describe('[receipts.epoch] npm run restore -- --new-epoch', () => {
  const dir = mkdtempSync(join(tmpdir(), 'statehouse-new-epoch-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('[receipts.epoch] mints a new epoch for a store restored by other means', async () => {
    const url = `file:${join(dir, 'copied.db')}`;
    const epochOf = async () => {
      const store = await openStore({ url, logger: silentLogger });
      try {
        return await store.receipts.epoch();
      } finally {
        await store.close();
      }
    };
    const before = await epochOf();
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(ROOT, 'apps/api/dist/cli/restore.js'), '--new-epoch'],
      { cwd: ROOT, env: { ...process.env, STATEHOUSE_DATABASE_URL: url } },
    );
    const after = await epochOf();
    expect(after).not.toBe(before);
    expect(stdout).toContain(`new store epoch ${after}`);
  });
});
