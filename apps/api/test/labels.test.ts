import { beforeAll, describe, expect, it } from 'vitest';
import { asText, bearer, TEST_DIALECTS, useApi } from './harness.js';

/** Labels people tag conversations with (docs/domain.md §15, docs/api.md "Labels"). */
for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`labels on ${dialect}`, () => {
    const { api, admin } = useApi(dialect);
    const labels = (profile: string, label?: string) =>
      `/v1/profiles/${profile}/labels${label === undefined ? '' : `/${encodeURIComponent(label)}`}`;
    const session = (id: string, profile: string, extra: Record<string, unknown> = {}) =>
      api.createSession({
        id,
        profile,
        source: 'cli',
        messages: [
          { role: 'user', content: `opening of ${id}` },
          { role: 'assistant', content: 'reply' },
        ],
        ...extra,
      });
    const createLabel = (profile: string, body: Record<string, unknown>, headers = admin) =>
      api.http().post(labels(profile)).set(headers).send(body);
    const apply = (profile: string, label: string, sessionIds: string[], headers = admin) =>
      api
        .http()
        .post(`${labels(profile, label)}/apply`)
        .set(headers)
        .send({ sessionIds });
    const listed = async (query: string) => (await api.http().get(`/v1/sessions?${query}`).set(admin)).body;
    const revisionOf = async (id: string) => (await api.http().get(`/v1/sessions/${id}`).set(admin)).body.revision;

    beforeAll(async () => {
      for (const name of ['lb', 'lb-other']) await api.http().post('/v1/profiles').set(admin).send({ name });
    });

    it('[labels.profile-scoped] a profile keeps its own labels, owner-fenced, colours from the palette only', async () => {
      const created = await createLabel('lb', { name: 'Needs review', colour: 'orange' });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ name: 'Needs review', colour: 'orange', sessionCount: 0, revision: 1 });
      expect(created.headers.etag).toBe('"1"');
      expect((await createLabel('lb', { name: 'plain' })).body.colour).toBe('grey');
      expect((await createLabel('lb', { name: 'red-ish', colour: '#ff0000' })).status).toBe(400);
      expect((await createLabel('lb', { name: 'a,b' })).status).toBe(400);
      expect((await createLabel('lb', { name: ' padded' })).status).toBe(400);
      const list = await api.http().get(labels('lb')).set(admin);
      expect(list.body.items.map((label: { name: string }) => label.name)).toEqual(['Needs review', 'plain']);
      // Another profile has none of them.
      expect((await api.http().get(labels('lb-other')).set(admin)).body.items).toEqual([]);
      const member = bearer(await api.memberToken(['lb-other']));
      expect((await api.http().get(labels('lb')).set(member)).status).toBe(404);
      await session('p-1', 'lb');
      expect((await api.http().get('/v1/sessions/p-1/labels').set(member)).status).toBe(404);
      expect((await api.http().get('/v1/sessions/p-1/labels').set(admin)).body).toEqual({ items: [] });
      expect((await createLabel('lb', { name: 'sneaky' }, member)).status).toBe(404);
      expect((await api.http().get(labels('nowhere')).set(admin)).status).toBe(404);
    });

    it('[labels.name-unique] one label per name in a profile regardless of case; found in any case', async () => {
      expect((await createLabel('lb', { name: 'Urgent', colour: 'red' })).status).toBe(201);
      const twin = await createLabel('lb', { name: 'URGENT' });
      expect(twin.status).toBe(409);
      expect(twin.body.code).toBe('conflict');
      // The same name in another profile is another label.
      expect((await createLabel('lb-other', { name: 'urgent' })).status).toBe(201);
      await createLabel('lb', { name: 'later' });
      const clash = await api
        .http()
        .patch(labels('lb', 'later'))
        .set(admin)
        .set('If-Match', '"1"')
        .send({ name: 'uRgEnT' });
      expect(clash.status).toBe(409);
      await session('u-1', 'lb');
      expect((await apply('lb', 'urgent', ['u-1'])).body.changed).toBe(1);
    });

    it('[labels.revision] rename and recolour under If-Match keep the label on its sessions; delete takes it off', async () => {
      await createLabel('lb', { name: 'draft', colour: 'blue' });
      await session('r-1', 'lb');
      await apply('lb', 'draft', ['r-1']);
      const sessionRevision = await revisionOf('r-1');
      const path = labels('lb', 'draft');
      expect((await api.http().patch(path).set(admin).send({ colour: 'green' })).status).toBe(428);
      expect((await api.http().patch(path).set(admin).set('If-Match', '"7"').send({ colour: 'green' })).status).toBe(
        412,
      );
      const renamed = await api
        .http()
        .patch(path)
        .set(admin)
        .set('If-Match', '"1"')
        .send({ name: 'Final', colour: 'green' });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toMatchObject({ name: 'Final', colour: 'green', revision: 2, sessionCount: 1 });
      expect(renamed.headers.etag).toBe('"2"');
      // A rename changes the case only, too.
      const recased = await api
        .http()
        .patch(labels('lb', 'final'))
        .set(admin)
        .set('If-Match', '"2"')
        .send({ name: 'FINAL' });
      expect(recased.body.name).toBe('FINAL');
      const row = (await listed('profile=lb&idPrefix=r-1')).items[0];
      expect(row.labels).toEqual([{ name: 'FINAL', colour: 'green' }]);
      expect((await api.http().get('/v1/sessions/r-1/labels').set(admin)).body).toEqual({
        items: [{ name: 'FINAL', colour: 'green' }],
      });
      expect((await api.http().delete(labels('lb', 'final')).set(admin)).status).toBe(428);
      expect((await api.http().delete(labels('lb', 'final')).set(admin).set('If-Match', '"2"')).status).toBe(412);
      expect((await api.http().delete(labels('lb', 'final')).set(admin).set('If-Match', '"3"')).status).toBe(204);
      expect((await listed('profile=lb&idPrefix=r-1')).items[0].labels).toEqual([]);
      expect(await revisionOf('r-1')).toBe(sessionRevision);
      expect((await api.http().patch(path).set(admin).set('If-Match', '"3"').send({ colour: 'red' })).status).toBe(404);
    });

    it('[labels.bulk] applies to many sessions of its profile at once, all or none', async () => {
      await createLabel('lb', { name: 'batch', colour: 'purple' });
      for (const id of ['b-1', 'b-2', 'b-3']) await session(id, 'lb');
      await session('b-x', 'lb-other');
      const before = await revisionOf('b-1');
      const first = await apply('lb', 'batch', ['b-1', 'b-2']);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ changed: 2, label: { name: 'batch', sessionCount: 2 } });
      // Again with one more: only the new one changes.
      expect((await apply('lb', 'BATCH', ['b-1', 'b-2', 'b-3'])).body.changed).toBe(1);
      expect(await revisionOf('b-1')).toBe(before);
      // A session of another profile: nothing changes.
      const crossed = await api
        .http()
        .post(`${labels('lb', 'batch')}/remove`)
        .set(admin)
        .send({ sessionIds: ['b-1', 'b-x'] });
      expect(crossed.status).toBe(400);
      expect(crossed.body.code).toBe('validation_failed');
      const missing = await api
        .http()
        .post(`${labels('lb', 'batch')}/remove`)
        .set(admin)
        .send({ sessionIds: ['b-1', 'nope'] });
      expect(missing.status).toBe(404);
      expect(
        (await api.http().get(labels('lb')).set(admin)).body.items.find((l: { name: string }) => l.name === 'batch')
          .sessionCount,
      ).toBe(3);
      const removed = await api
        .http()
        .post(`${labels('lb', 'batch')}/remove`)
        .set(admin)
        .send({ sessionIds: ['b-1', 'b-1'] });
      expect(removed.body).toMatchObject({ changed: 1, label: { sessionCount: 2 } });
      expect((await apply('lb', 'no-such-label', ['b-1'])).status).toBe(404);
      const member = bearer(await api.memberToken(['lb-other']));
      expect((await apply('lb-other', 'urgent', ['b-1'], member)).status).toBe(404);
      expect((await apply('lb-other', 'urgent', ['b-x'], member)).body.changed).toBe(1);
    });

    it('[labels.list] list rows carry their labels; the label filter keeps rows carrying every named one', async () => {
      await createLabel('lb', { name: 'alpha', colour: 'teal' });
      await createLabel('lb', { name: 'beta', colour: 'pink' });
      for (const id of ['f-1', 'f-2', 'f-3']) await session(id, 'lb');
      await apply('lb', 'alpha', ['f-1', 'f-2']);
      await apply('lb', 'beta', ['f-2', 'f-3']);
      const both = await listed('profile=lb&label=ALPHA,beta');
      expect(both.items.map((row: { id: string }) => row.id)).toEqual(['f-2']);
      expect(both.items[0].labels).toEqual([
        { name: 'alpha', colour: 'teal' },
        { name: 'beta', colour: 'pink' },
      ]);
      expect(both.total).toEqual({ count: 1, exact: true });
      const alpha = await listed('profile=lb&label=alpha');
      expect(alpha.items.map((row: { id: string }) => row.id).sort()).toEqual(['f-1', 'f-2']);
      expect((await listed('profile=lb&label=nobody-has-this')).items).toEqual([]);
      // Across profiles, a name means each profile's label of that name.
      const urgent = await listed('label=urgent');
      expect(urgent.items.map((row: { id: string }) => row.id).sort()).toEqual(['b-x', 'u-1']);
      expect((await api.http().get('/v1/sessions?label=a/b').set(admin)).status).toBe(400);
    });

    it('[labels.search] search keeps the hits of sessions carrying every named label', async () => {
      const search = async (query: string) => (await api.http().get(`/v1/search?${query}`).set(admin)).body;
      const alpha = await search('q=opening&profile=lb&label=Alpha');
      expect([...new Set(alpha.items.map((hit: { sessionId: string }) => hit.sessionId))].sort()).toEqual([
        'f-1',
        'f-2',
      ]);
      const both = await search('q=opening&label=alpha,beta');
      expect(both.items.map((hit: { sessionId: string }) => hit.sessionId)).toEqual(['f-2']);
      expect((await search('q=opening&label=nobody-has-this')).items).toEqual([]);
      // Substring search takes the same filter.
      const substring = await search('q=pening&mode=substring&profile=lb&label=beta');
      expect([...new Set(substring.items.map((hit: { sessionId: string }) => hit.sessionId))].sort()).toEqual([
        'f-2',
        'f-3',
      ]);
    });

    it('[labels.session-life] a compression child carries the labels; a move leaves them; a delete takes them', async () => {
      await createLabel('lb', { name: 'keep', colour: 'yellow' });
      await session('c-1', 'lb');
      await apply('lb', 'keep', ['c-1']);
      const compressed = await api
        .http()
        .post('/v1/sessions/c-1/compress')
        .set(admin)
        .set(await api.tokensOf('c-1'))
        .send({ summary: 'summary', keepLastMessages: 1, childId: 'c-1b' });
      expect(compressed.status).toBe(201);
      const tip = (await listed('profile=lb&label=keep')).items.map((row: { id: string }) => row.id);
      expect(tip).toEqual(['c-1b']);
      const branched = await session('c-br', 'lb', { parentSessionId: 'c-1b', lineageKind: 'branch' });
      expect(branched.id).toBe('c-br');
      expect((await listed('profile=lb&idPrefix=c-br')).items[0].labels).toEqual([]);

      await session('m-1', 'lb');
      await apply('lb', 'keep', ['m-1']);
      expect((await api.http().post('/v1/sessions/m-1/move').set(admin).send({ profile: 'lb-other' })).status).toBe(
        200,
      );
      const moved = (await listed('profile=lb-other&idPrefix=m-1')).items[0];
      expect(moved.labels).toEqual([]);

      await session('d-1', 'lb');
      await apply('lb', 'keep', ['d-1']);
      const deleted = await api
        .http()
        .delete('/v1/sessions/d-1')
        .set(admin)
        .set(await api.tokensOf('d-1'));
      expect(deleted.status).toBe(200);
      const receipt = await api.http().get(`/v1/deletion-receipts/${deleted.body.receipt.operationId}`).set(admin);
      expect(receipt.body.counts).toMatchObject({ sessions: 1 });
      expect(receipt.body.counts).not.toHaveProperty('labels');
      const left = await api.store.db
        .selectFrom('session_labels')
        .selectAll()
        .where('session_id', 'in', ['d-1', 'm-1'])
        .execute();
      expect(left).toEqual([]);
    });

    it('[labels.profile-scoped] labels follow a profile rename and go with the profile', async () => {
      await api.http().post('/v1/profiles').set(admin).send({ name: 'lb-move' });
      await createLabel('lb-move', { name: 'travels', colour: 'blue' });
      await session('pm-1', 'lb-move');
      await apply('lb-move', 'travels', ['pm-1']);
      expect(
        (await api.http().post('/v1/profiles/lb-move/rename').set(admin).send({ newName: 'lb-moved' })).status,
      ).toBe(200);
      expect((await api.http().get(labels('lb-moved')).set(admin)).body.items).toMatchObject([
        { name: 'travels', sessionCount: 1 },
      ]);
      expect((await listed('profile=lb-moved&label=travels')).items.map((row: { id: string }) => row.id)).toEqual([
        'pm-1',
      ]);
      expect((await api.http().delete('/v1/profiles/lb-moved').set(admin)).status).toBe(200);
      const left = await api.store.db.selectFrom('labels').selectAll().where('profile', '=', 'lb-moved').execute();
      expect(left).toEqual([]);
      expect((await listed('profile=lb-moved')).items[0].labels).toEqual([]);
    });

    it('[labels.export] an export carries the session labels after the session line', async () => {
      await createLabel('lb', { name: 'exported', colour: 'red' });
      await session('x-1', 'lb');
      await apply('lb', 'exported', ['x-1']);
      await apply('lb', 'alpha', ['x-1']);
      const response = await api.http().get('/v1/sessions/x-1/export').set(admin).buffer(true).parse(asText);
      expect(response.status).toBe(200);
      const lines = (response.body as string)
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(lines.map((line) => line.type)).toEqual(['session', 'label', 'label', 'message', 'message']);
      expect(lines.slice(1, 3)).toEqual([
        { type: 'label', label: { name: 'alpha', colour: 'teal' } },
        { type: 'label', label: { name: 'exported', colour: 'red' } },
      ]);
    });
  });
}
