import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ImportJob } from '@statehouse/contracts';
import { openStore, SYSTEM_PRINCIPAL, silentLogger } from '@statehouse/state';
import { buildHermesBulk, buildHermesScenario, writeSqliteFile } from '@statehouse/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, asText, bearer, bootApi, TEST_DIALECTS } from './harness.js';

const dirs: string[] = [];
function scenarioBytes(version: 21 | 30 = 30): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'api-import-'));
  dirs.push(dir);
  buildHermesScenario(join(dir, 'state.db'), version).close();
  return readFileSync(join(dir, 'state.db'));
}
/** A Hermes store big enough that its import is still running when a watcher connects. */
function bulkBytes(): { bytes: Buffer; messages: number } {
  const dir = mkdtempSync(join(tmpdir(), 'api-import-'));
  dirs.push(dir);
  const { messages } = buildHermesBulk(join(dir, 'state.db'), { conversations: 64, messagesPerSession: 25 });
  return { bytes: readFileSync(join(dir, 'state.db')), messages };
}

/** The events of a server-sent event stream, read to its end. */
async function readEvents(api: ApiHarness, path: string): Promise<{ event: string; data: ImportJob }[]> {
  const response = await api.http().get(path).set(bearer(api.adminToken)).buffer(true).parse(asText);
  return (response.body as string)
    .split('\n\n')
    .filter((block) => block.startsWith('event: '))
    .map((block) => {
      const [head, data] = block.split('\ndata: ');
      return { event: head.slice('event: '.length), data: JSON.parse(data) };
    });
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function waitFinished(api: ApiHarness, id: string) {
  for (let i = 0; i < 200; i++) {
    const job = (await api.http().get(`/v1/imports/${id}`).set(bearer(api.adminToken))).body;
    if (job.state !== 'running') return job;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`import ${id} did not finish`);
}

const upload = (api: ApiHarness, body: Buffer, query = '?profile=gamma', type = 'application/octet-stream') =>
  api.http().post(`/v1/imports${query}`).set(bearer(api.adminToken)).set('Content-Type', type).send(body);

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`POST /v1/imports on ${dialect}`, () => {
    let api: ApiHarness;
    let uploads: string;

    beforeAll(async () => {
      uploads = mkdtempSync(join(tmpdir(), 'api-uploads-'));
      dirs.push(uploads);
      api = await bootApi(dialect, {
        STATEHOUSE_IMPORT_DIR: uploads,
        STATEHOUSE_IMPORT_MAX_BYTES: String(16 * 1024 * 1024),
      });
    });
    afterAll(async () => api?.close());

    it('imports an uploaded file in the background: 202 {id}, then state, counts and the report', async () => {
      const response = await upload(api, scenarioBytes(), '?profile=gamma&fileName=state.db');
      expect(response.status).toBe(202);
      expect(response.body).toEqual({ id: expect.any(String) });
      expect(response.headers.location).toBe(`/v1/imports/${response.body.id}`);
      const job = await waitFinished(api, response.body.id);
      expect(job).toMatchObject({
        state: 'succeeded',
        kind: 'hermes',
        dryRun: false,
        profile: 'gamma',
        onConflict: 'skip',
        fileName: 'state.db',
        progress: { phase: 'done', sessionsTotal: 18, sessionsDone: 18, messagesTotal: 20, messagesDone: 20 },
        report: {
          sessions: { created: 18, updated: 0, skipped: 0, conflicts: 0 },
          messages: { created: 20, skipped: 0 },
          lineage: { compression: 3, branch: 2, reset: 2, delegate: 2 },
          routes: 2,
        },
        error: null,
      });
      expect(job.conversations.map((c: { id: string }) => c.id)).toContain('cmp-root');
      const session = await api.http().get('/v1/sessions/cmp-tip').set(bearer(api.adminToken));
      expect(session.body).toMatchObject({ profile: 'alpha', lineageKind: 'compression', messageCount: 3 });
      // The private copy of the upload is gone once the run ended.
      expect(readdirSync(uploads)).toEqual([]);
      const list = await api.http().get('/v1/imports').set(bearer(api.adminToken));
      expect(list.body.items[0]).toMatchObject({ id: response.body.id, state: 'succeeded' });
    });

    it('streams progress as server-sent events and ends with `done`', async () => {
      const started = await upload(api, scenarioBytes());
      const events = await api
        .http()
        .get(`/v1/imports/${started.body.id}/events`)
        .set(bearer(api.adminToken))
        .buffer(true)
        .parse(asText);
      expect(events.headers['content-type']).toMatch(/text\/event-stream/);
      // As docs/api.md says for every event stream: not stored, not transformed by a proxy.
      expect(events.headers['cache-control']).toBe('no-cache, no-transform');
      expect(readFileSync(join(import.meta.dirname, '../../../docs/api.md'), 'utf8')).toContain(
        '`Cache-Control: no-cache, no-transform`',
      );
      const text = events.body as string;
      const done = text.split('\n\n').find((block) => block.startsWith('event: done'));
      expect(done).toBeDefined();
      const job = JSON.parse(done!.split('\ndata: ')[1]);
      expect(job).toMatchObject({ state: 'succeeded', report: { sessions: { created: 0, skipped: 18 } } });
    });

    it('a run that takes a while streams `progress` as it moves (counts never going back), then one `done`', async () => {
      const bulk = bulkBytes();
      const started = await upload(api, bulk.bytes, '?profile=gamma&fileName=bulk.db');
      expect(started.status).toBe(202);
      const events = await readEvents(api, `/v1/imports/${started.body.id}/events`);
      const progress = events.filter((e) => e.event === 'progress');
      expect(progress.length).toBeGreaterThan(0);
      expect(progress.every((e) => e.data.state === 'running' && e.data.id === started.body.id)).toBe(true);
      const done = progress.map((e) => e.data.progress.messagesDone as number);
      expect(done).toEqual([...done].sort((a, b) => a - b));
      // Seen mid-run, not only at the end.
      expect(done[0]).toBeLessThan(bulk.messages);
      expect(events.at(-1)).toMatchObject({
        event: 'done',
        data: { state: 'succeeded', progress: { phase: 'done', messagesDone: bulk.messages } },
      });
      expect(events.filter((e) => e.event === 'done')).toHaveLength(1);
    });

    it('an Idempotency-Key covers the uploaded file: the same file replays, another file is a 422', async () => {
      const keyed = (body: Buffer, key: string) => upload(api, body).set('Idempotency-Key', key);
      const runs = async () =>
        (await api.http().get('/v1/imports?limit=50').set(bearer(api.adminToken))).body.items.length;
      const before = await runs();
      const file = scenarioBytes();
      const first = await keyed(file, `imp-${dialect}`);
      expect(first.status).toBe(202);
      await waitFinished(api, first.body.id);
      const again = await keyed(file, `imp-${dialect}`);
      expect(again.status).toBe(202);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(again.headers.location).toBe(`/v1/imports/${first.body.id}`);
      // The same query and headers with another file: a different request under the same key.
      const other = Buffer.from(scenarioBytes(21));
      expect(other.equals(file)).toBe(false);
      const clash = await keyed(other, `imp-${dialect}`);
      expect(clash.status).toBe(422);
      expect(clash.body.code).toBe('idempotency_conflict');
      // Neither the replay nor the refusal started a run, or left an upload behind.
      expect(await runs()).toBe(before + 1);
      expect(readdirSync(uploads)).toEqual([]);
    });

    it('a dry run writes nothing and reports what would happen', async () => {
      const before = (await api.http().get('/v1/sessions?limit=200&includeChildren=true').set(bearer(api.adminToken)))
        .body;
      const started = await upload(api, scenarioBytes(), '?profile=gamma&dryRun=true');
      const job = await waitFinished(api, started.body.id);
      expect(job).toMatchObject({ state: 'succeeded', dryRun: true, report: { sessions: { skipped: 18 } } });
      const after = (await api.http().get('/v1/sessions?limit=200&includeChildren=true').set(bearer(api.adminToken)))
        .body;
      expect(after).toEqual(before);
    });

    it('the run is recorded in the store: another replica on the same database answers for it', async () => {
      const started = await upload(api, scenarioBytes());
      await waitFinished(api, started.body.id);
      const replica = await openStore({ url: api.url, logger: silentLogger });
      try {
        const job = await replica.imports.get({ principal: SYSTEM_PRINCIPAL, channel: 'system' }, started.body.id);
        expect(job.state).toBe('succeeded');
      } finally {
        await replica.close();
      }
    });

    it('is admin only, and one import runs at a time', async () => {
      const member = await api.memberToken(['alpha']);
      const refused = await api
        .http()
        .post('/v1/imports')
        .set(bearer(member))
        .set('Content-Type', 'application/octet-stream')
        .send(Buffer.from('x'));
      expect(refused.status).toBe(403);
      expect((await api.http().get('/v1/imports').set(bearer(member))).status).toBe(403);
      expect(
        (await api.http().post('/v1/imports').set('Content-Type', 'application/octet-stream').send('x')).status,
      ).toBe(401);

      await api.store.db
        .insertInto('job_leases')
        .values({ name: 'import', holder: 'elsewhere', expires_at: Date.now() + 60_000 })
        .onConflict((oc) => oc.column('name').doUpdateSet({ holder: 'elsewhere', expires_at: Date.now() + 60_000 }))
        .execute();
      const busy = await upload(api, scenarioBytes());
      expect(busy.status).toBe(409);
      expect(busy.body).toMatchObject({ code: 'conflict', detail: expect.stringMatching(/already running/) });
      await api.store.db.updateTable('job_leases').set({ expires_at: 0 }).where('name', '=', 'import').execute();
    });

    it('refuses what cannot be imported with a problem, keeping nothing of it', async () => {
      const wrongType = await upload(api, scenarioBytes(), '', 'application/json');
      expect(wrongType.status).toBe(400);
      expect(wrongType.body.detail).toMatch(/application\/octet-stream/);
      const empty = await upload(api, Buffer.alloc(0));
      expect(empty.status).toBe(400);
      const notSqlite = await upload(api, Buffer.from('definitely not a database'.repeat(50)));
      expect(notSqlite.status).toBe(400);
      expect(notSqlite.body).toMatchObject({ code: 'validation_failed', detail: 'not a SQLite database' });
      const badQuery = await upload(api, scenarioBytes(), '?onConflict=overwrite');
      expect(badQuery.status).toBe(400);
      const tooLarge = await upload(api, Buffer.alloc(17 * 1024 * 1024, 1));
      expect(tooLarge.status).toBe(413);
      expect(tooLarge.body.code).toBe('payload_too_large');
      expect(readdirSync(uploads)).toEqual([]);
    });

    it('a SQLite file that is not a Hermes store fails its run with the reason', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'api-import-'));
      dirs.push(dir);
      writeSqliteFile(join(dir, 'other.db'), 'create table notes (body text)');
      const started = await upload(api, readFileSync(join(dir, 'other.db')));
      expect(started.status).toBe(202);
      const job = await waitFinished(api, started.body.id);
      expect(job).toMatchObject({ state: 'failed', error: expect.stringMatching(/not a Hermes Agent state\.db/) });
    });
  });
}

describe('the upload is streamed to disk as it arrives', () => {
  let api: ApiHarness;
  let uploads: string;
  beforeAll(async () => {
    uploads = mkdtempSync(join(tmpdir(), 'api-stream-'));
    dirs.push(uploads);
    api = await bootApi('sqlite', { STATEHOUSE_IMPORT_DIR: uploads });
  });
  afterAll(async () => api?.close());

  it('the file grows on disk while the request is still being sent', async () => {
    const bytes = scenarioBytes();
    const half = Math.floor(bytes.length / 2);
    const server = api.app.getHttpServer();
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const result = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/v1/imports',
          headers: {
            ...bearer(api.adminToken),
            'Content-Type': 'application/octet-stream',
            'Content-Length': bytes.length,
          },
        },
        (res) => {
          let body = '';
          res.on('data', (chunk) => {
            body += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.write(bytes.subarray(0, half));
      const deadline = Date.now() + 10_000;
      const poll = () => {
        const dir = readdirSync(uploads).find((name) => name.startsWith('statehouse-upload-'));
        const size = dir ? (statSync(join(uploads, dir, 'state.db'), { throwIfNoEntry: false })?.size ?? 0) : 0;
        if (size >= half) {
          req.end(bytes.subarray(half));
        } else if (Date.now() > deadline) {
          req.destroy(new Error(`only ${size} of the first ${half} bytes reached the disk`));
        } else {
          setTimeout(poll, 20);
        }
      };
      poll();
    });
    const { status, body } = await result;
    expect(status).toBe(202);
    const job = await waitFinished(api, JSON.parse(body).id);
    expect(job.report.sessions.created).toBe(18);
    writeFileSync(join(uploads, '.done'), '');
  });
});
