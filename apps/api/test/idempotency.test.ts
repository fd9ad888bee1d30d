import { describe, expect, it } from 'vitest';
import { bearer, TEST_DIALECTS, useApi } from './harness.js';

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`Idempotency-Key on ${dialect}`, () => {
    const { api, admin } = useApi(dialect);

    const countSessions = async () =>
      (await api.http().get('/v1/sessions?profile=idem&limit=200&includeChildren=true&archived=include').set(admin))
        .body.items.length;

    it('replays the first response for a retry and creates nothing new', async () => {
      const body = { profile: 'idem', source: 'cli', messages: [{ role: 'user', content: 'hi' }] };
      const first = await api.http().post('/v1/sessions').set(admin).set('Idempotency-Key', 'create-A').send(body);
      expect(first.status).toBe(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const retry = await api.http().post('/v1/sessions').set(admin).set('Idempotency-Key', 'create-A').send(body);
      expect(retry.status).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.body).toEqual(first.body);
      expect(await countSessions()).toBe(1);
    });

    it('answers 422 idempotency_conflict for the same key with a different request', async () => {
      const response = await api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .set('Idempotency-Key', 'create-A')
        .send({ profile: 'idem', source: 'telegram' });
      expect(response.status).toBe(422);
      expect(response.body.code).toBe('idempotency_conflict');
      expect(await countSessions()).toBe(1);
    });

    it('replays appends without a second effect, and keys are per principal', async () => {
      const created = await api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .send({ id: 'idem-append', profile: 'idem', source: 'cli' });
      expect(created.status).toBe(201);
      const body = { messages: [{ role: 'user', content: 'once' }] };
      const first = await api
        .http()
        .post('/v1/sessions/idem-append/messages')
        .set(admin)
        .set('Idempotency-Key', 'k1')
        .send(body);
      const retry = await api
        .http()
        .post('/v1/sessions/idem-append/messages')
        .set(admin)
        .set('Idempotency-Key', 'k1')
        .send(body);
      expect(retry.body).toEqual(first.body);
      const session = await api.http().get('/v1/sessions/idem-append').set(admin);
      expect(session.body.messageCount).toBe(1);

      const other = bearer(await api.memberToken(['idem'], 'other-writer'));
      const sameKeyOtherPrincipal = await api
        .http()
        .post('/v1/sessions/idem-append/messages')
        .set(other)
        .set('Idempotency-Key', 'k1')
        .send(body);
      expect(sameKeyOtherPrincipal.status).toBe(201);
      expect(sameKeyOtherPrincipal.headers['idempotent-replayed']).toBeUndefined();
    });

    it('lets concurrent duplicates take effect exactly once', async () => {
      const body = { profile: 'idem', source: 'cli', title: 'concurrent' };
      const responses = await Promise.all(
        Array.from({ length: 5 }, () =>
          api.http().post('/v1/sessions').set(admin).set('Idempotency-Key', 'race-1').send(body),
        ),
      );
      for (const response of responses) expect(response.status).toBe(201);
      expect(new Set(responses.map((response) => response.body.id)).size).toBe(1);
      const titled = (await api.http().get('/v1/sessions?profile=idem&q=concurrent').set(admin)).body.items;
      expect(titled).toHaveLength(1);
    });

    it('rejects an over-long key', async () => {
      const response = await api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .set('Idempotency-Key', 'k'.repeat(256))
        .send({ profile: 'idem', source: 'cli' });
      expect(response.status).toBe(400);
    });
  });
}
