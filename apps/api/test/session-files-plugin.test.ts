import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '@statehouse/state';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error — a plain ES module without types, as third-party plugins are.
import { sessionFilePath, writeSessionFile } from '../../../examples/session-files-plugin/index.mjs';
import { loadPlugins } from '../src/plugins/plugin-loader.js';
import { type ApiHarness, bearer, bootApi, TEST_DIALECTS } from './harness.js';

const DAY = 24 * 60 * 60 * 1000;

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`example session-files plugin on ${dialect}`, () => {
    let api: ApiHarness;
    let admin: Record<string, string>;
    const dir = mkdtempSync(join(tmpdir(), 'statehouse-files-'));
    const fileOf = (id: string, profile = 'files') => sessionFilePath(dir, profile, id) as string;

    const create = async (id: string, body: Record<string, unknown> = {}) => {
      const response = await api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .send({ id, profile: 'files', source: 'cli', ...body });
      expect(response.status).toBe(201);
      await writeSessionFile(dir, 'files', id, { note: `state of ${id}` });
      expect(existsSync(fileOf(id))).toBe(true);
      return response.body;
    };
    const tokens = (id: string) => api.tokensOf(id);
    const settle = () => api.store.hooks.idle();

    beforeAll(async () => {
      api = await bootApi(dialect);
      admin = bearer(api.adminToken);
      process.env.STATEHOUSE_SESSION_FILES_DIR = dir;
      await loadPlugins(
        [fileURLToPath(new URL('../../../examples/session-files-plugin/index.mjs', import.meta.url))],
        api.store,
        silentLogger,
      );
    });
    afterAll(async () => {
      delete process.env.STATEHOUSE_SESSION_FILES_DIR;
      await api?.close();
    });

    it('[observers.once-per-operation] removes the file on a single delete, with delegate children', async () => {
      await create('p-single', { messages: [{ role: 'user', content: 'x' }] });
      await create('p-helper', { parentSessionId: 'p-single', lineageKind: 'delegate', source: 'subagent' });
      await api
        .http()
        .delete('/v1/sessions/p-single')
        .set(admin)
        .set(await tokens('p-single'))
        .expect(200);
      await settle();
      expect(existsSync(fileOf('p-single'))).toBe(false);
      expect(existsSync(fileOf('p-helper'))).toBe(false);
    });

    it('removes files on a chain delete and a bulk delete', async () => {
      await create('p-chain', { messages: [{ role: 'user', content: 'x' }] });
      const compressed = await api
        .http()
        .post('/v1/sessions/p-chain/compress')
        .set(admin)
        .set(await tokens('p-chain'))
        .send({ summary: 's', childId: 'p-chain-2' });
      expect(compressed.status).toBe(201);
      await writeSessionFile(dir, 'files', 'p-chain-2', {});
      await api
        .http()
        .delete('/v1/sessions/p-chain-2?includeCompressionChain=true')
        .set(admin)
        .set(await tokens('p-chain-2'))
        .expect(200);
      await create('p-bulk-1');
      await create('p-bulk-2');
      const items = await Promise.all(
        ['p-bulk-1', 'p-bulk-2'].map(async (id) => {
          const s = (await api.http().get(`/v1/sessions/${id}`).set(admin)).body;
          return { id, revision: s.revision, generation: s.generation };
        }),
      );
      await api.http().post('/v1/sessions/bulk-delete').set(admin).send({ items }).expect(200);
      await settle();
      for (const id of ['p-chain', 'p-chain-2', 'p-bulk-1', 'p-bulk-2']) expect(existsSync(fileOf(id)), id).toBe(false);
    });

    it('[deletion.paths] removes files on an empty discard, an empty sweep, ghost and never-active prunes and retention', async () => {
      await create('p-empty', { source: 'tui' });
      await api.http().delete('/v1/sessions/p-empty?ifEmpty=true').set(admin).set('If-Match', '"1"').expect(200);

      await create('p-sweep');
      await api
        .http()
        .post('/v1/sessions/p-sweep/end')
        .set(admin)
        .set('If-Match', '"1"')
        .send({ reason: 'cli_close' })
        .expect(200);
      await api.http().post('/v1/maintenance/empty-sweep').set(admin).send({ dryRun: false }).expect(200);
      await settle();
      expect(existsSync(fileOf('p-empty'))).toBe(false);
      expect(existsSync(fileOf('p-sweep'))).toBe(false);

      // Paths that look at age: create rows "in the past" by moving their timestamps.
      await create('p-ghost');
      await api
        .http()
        .post('/v1/sessions/p-ghost/end')
        .set(admin)
        .set('If-Match', '"1"')
        .send({ reason: 'agent_close' })
        .expect(200);
      await api
        .http()
        .patch('/v1/sessions/p-ghost')
        .set(admin)
        .set('If-Match', '"2"')
        .send({ archived: true })
        .expect(200);
      await create('p-keyed', { sessionKey: 'agent:files:discord:dm:9' });
      await create('p-old', { messages: [{ role: 'user', content: 'x' }] });
      await api
        .http()
        .post('/v1/sessions/p-old/end')
        .set(admin)
        .set('If-Match', '"1"')
        .send({ reason: 'cli_close' })
        .expect(200);
      const past = Date.now() - 10 * DAY;
      await api.store.db
        .updateTable('sessions')
        .set({ started_at: past, last_activity_at: past, ended_at: past })
        .where('id', 'in', ['p-ghost', 'p-old'])
        .execute();
      await api.store.db
        .updateTable('sessions')
        .set({ started_at: past, last_activity_at: past })
        .where('id', '=', 'p-keyed')
        .execute();

      await api.http().post('/v1/maintenance/ghost-prune').set(admin).send({ dryRun: false }).expect(200);
      await api
        .http()
        .post('/v1/maintenance/never-active-prune')
        .set(admin)
        .send({ olderThanDays: 5, dryRun: false })
        .expect(200);
      await api
        .http()
        .post('/v1/retention/prune')
        .set(admin)
        .send({ olderThanDays: 5, profile: 'files', dryRun: false })
        .expect(200);
      await settle();
      for (const id of ['p-ghost', 'p-keyed', 'p-old']) expect(existsSync(fileOf(id)), id).toBe(false);
    });

    it('[observers.move-is-departure] moves the file — never deletes it — when a profile repair moves the session', async () => {
      await create('p-moved', { messages: [{ role: 'user', content: 'still alive' }] });
      await api.http().post('/v1/profiles').set(admin).send({ name: 'files-repaired' }).expect(201);
      const moved = await api.http().post('/v1/sessions/p-moved/move').set(admin).send({ profile: 'files-repaired' });
      expect(moved.status).toBe(200);
      await settle();
      expect(existsSync(fileOf('p-moved'))).toBe(false);
      expect(existsSync(fileOf('p-moved', 'files-repaired'))).toBe(true);
      expect(JSON.parse(readFileSync(fileOf('p-moved', 'files-repaired'), 'utf8'))).toEqual({
        note: 'state of p-moved',
      });
    });

    it('keeps the file of an archived session', async () => {
      await create('p-archived');
      await api
        .http()
        .patch('/v1/sessions/p-archived')
        .set(admin)
        .set('If-Match', '"1"')
        .send({ archived: true })
        .expect(200);
      await settle();
      expect(existsSync(fileOf('p-archived'))).toBe(true);
    });
  });
}
