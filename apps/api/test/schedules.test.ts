import { ManualClock } from '@statehouse/state';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, TEST_DIALECTS, useApi } from './harness.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const START = Date.UTC(2026, 10, 2, 8, 0, 0);

/** Per-session scheduled wake-ups over HTTP (docs/api.md, Schedules; docs/domain.md §13). */
for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`schedules over HTTP on ${dialect}`, () => {
    const clock = new ManualClock(START);
    const { api, admin } = useApi(dialect, {}, { clock });

    /** A routed session of profile `sk`, owned by gateway `gw-1`. */
    const chat = async (id: string) => {
      const sessionKey = `agent:sk:telegram:dm:${id}`;
      await api.createSession({
        id,
        profile: 'sk',
        source: 'telegram',
        sessionKey,
        chatId: id,
        chatType: 'dm',
        gatewayId: 'gw-1',
      });
      await api.http().put('/v1/routes').set(admin).send({ profile: 'sk', sessionKey, sessionId: id }).expect(200);
    };
    const schedule = (sessionId: string, body: Record<string, unknown>) =>
      api.http().post(`/v1/sessions/${sessionId}/schedules`).set(admin).send(body);

    beforeAll(async () => {
      await api.http().post('/v1/profiles').set(admin).send({ name: 'sk' }).expect(201);
      await api
        .http()
        .put('/v1/gateways/gw-1/heartbeat')
        .set(admin)
        .send({ profile: 'sk', host: 'host-1', pid: 10, startedAt: START - MINUTE })
        .expect(200);
    });

    it('[schedules.definition] creates, reads (ETag), changes and deletes under If-Match', async () => {
      clock.set(START);
      await chat('h-crud');
      const created = await schedule('h-crud', {
        id: 'h-crud-hb',
        kind: 'interval',
        intervalSeconds: 90,
        payload: { prompt: 'check the build' },
      });
      expect(created.status).toBe(201);
      expect(created.headers.etag).toBe('"1"');
      expect(created.body).toMatchObject({
        id: 'h-crud-hb',
        sessionId: 'h-crud',
        kind: 'interval',
        intervalSeconds: 90,
        enabled: true,
        nextDueAt: new Date(START + 90 * SECOND).toISOString(),
        lastFiredAt: null,
        active: true,
        owner: { ownership: 'owned', gatewayId: 'gw-1' },
        claim: null,
      });
      const read = await api.http().get('/v1/sessions/h-crud/schedules/h-crud-hb').set(admin).expect(200);
      expect(read.headers.etag).toBe('"1"');
      const list = await api.http().get('/v1/sessions/h-crud/schedules').set(admin).expect(200);
      expect(list.body).toMatchObject({ items: [{ id: 'h-crud-hb' }], nextCursor: null });

      const unconditional = await api
        .http()
        .patch('/v1/sessions/h-crud/schedules/h-crud-hb')
        .set(admin)
        .send({ enabled: false });
      expect(unconditional.status).toBe(428);
      expect(unconditional.body.code).toBe('precondition_required');
      const stale = await api
        .http()
        .patch('/v1/sessions/h-crud/schedules/h-crud-hb')
        .set(admin)
        .set('If-Match', '"9"')
        .send({ enabled: false });
      expect(stale.status).toBe(412);
      expect(stale.body).toMatchObject({ code: 'revision_conflict', currentRevision: 1 });
      const patched = await api
        .http()
        .patch('/v1/sessions/h-crud/schedules/h-crud-hb')
        .set(admin)
        .set('If-Match', '"1"')
        .send({ enabled: false, cron: '30 6 * * *', kind: 'cron', timeZone: 'America/New_York' });
      expect(patched.status).toBe(200);
      expect(patched.headers.etag).toBe('"2"');
      expect(patched.body).toMatchObject({
        kind: 'cron',
        intervalSeconds: null,
        timeZone: 'America/New_York',
        enabled: false,
        active: false,
        inactiveReason: 'disabled',
        // 08:00 UTC on 2 November 2026 is 03:00 in New York (EST, UTC−5 since 1 November): 06:30 is 11:30 UTC.
        nextDueAt: '2026-11-02T11:30:00.000Z',
      });

      const wrongSession = await api.http().get('/v1/sessions/h-other/schedules/h-crud-hb').set(admin);
      expect(wrongSession.status).toBe(404);
      await api.http().delete('/v1/sessions/h-crud/schedules/h-crud-hb').set(admin).set('If-Match', '"1"').expect(412);
      await api.http().delete('/v1/sessions/h-crud/schedules/h-crud-hb').set(admin).set('If-Match', '"2"').expect(204);
      await api.http().get('/v1/sessions/h-crud/schedules/h-crud-hb').set(admin).expect(404);
    });

    it('[schedules.probes] HEAD answers 200 or 404 without a body, for a schedule and for a session’s schedules', async () => {
      clock.set(START);
      await chat('h-probe');
      const none = await api.http().head('/v1/sessions/h-probe/schedules').set(admin);
      expect(none.status).toBe(404);
      expect(none.text ?? '').toBe('');
      await schedule('h-probe', { id: 'h-probe-hb', kind: 'interval', intervalSeconds: 60 }).expect(201);
      const some = await api.http().head('/v1/sessions/h-probe/schedules').set(admin);
      expect(some.status).toBe(200);
      expect(some.headers['x-schedule-count']).toBe('1');
      expect(some.text ?? '').toBe('');
      const one = await api.http().head('/v1/sessions/h-probe/schedules/h-probe-hb').set(admin);
      expect(one.status).toBe(200);
      expect(one.headers.etag).toBe('"1"');
      expect(one.text ?? '').toBe('');
      expect((await api.http().head('/v1/sessions/h-probe/schedules/nope').set(admin)).status).toBe(404);
      expect((await api.http().head('/v1/sessions/nope/schedules').set(admin)).status).toBe(404);
      // The owner fence answers like a missing row.
      const outsider = bearer(await api.memberToken(['elsewhere'], 'outsider'));
      expect((await api.http().head('/v1/sessions/h-probe/schedules/h-probe-hb').set(outsider)).status).toBe(404);
      expect((await api.http().head('/v1/sessions/h-probe/schedules').set(outsider)).status).toBe(404);
      expect((await api.http().head('/v1/sessions/h-probe/schedules')).status).toBe(401);
    });

    it('[schedules.definition] refuses bad input with 400 validation_failed', async () => {
      await chat('h-bad');
      const cases: Record<string, unknown>[] = [
        { kind: 'cron', cron: 'every minute' },
        { kind: 'cron', cron: '99 * * * *' },
        { kind: 'cron', cron: '* * * * *', timeZone: 'Mars/Olympus' },
        { kind: 'interval', intervalSeconds: 0 },
        { kind: 'interval', intervalSeconds: 60, timeZone: 'UTC' },
        { kind: 'interval', intervalSeconds: 60, payload: { blob: 'x'.repeat(17 * 1024) } },
        { kind: 'interval', intervalSeconds: 60, payload: ['not', 'an', 'object'] },
        { kind: 'interval', intervalSeconds: 60, extra: true },
      ];
      for (const body of cases) {
        const response = await schedule('h-bad', body);
        expect({ body, status: response.status, code: response.body.code }).toEqual({
          body,
          status: 400,
          code: 'validation_failed',
        });
      }
      expect((await schedule('h-missing', { kind: 'interval', intervalSeconds: 60 })).status).toBe(404);
    });

    it('[schedules.claim-fenced] a gateway claims its due ticks, completes them, and a taken-over claim is refused', async () => {
      clock.set(START);
      await chat('h-claim');
      await schedule('h-claim', { id: 'h-claim-hb', kind: 'interval', intervalSeconds: 60 }).expect(201);
      clock.set(START + 3 * MINUTE + 10 * SECOND);
      const due = await api.http().get('/v1/schedules/due').query({ profile: 'sk', gatewayId: 'gw-1' }).set(admin);
      expect(due.status).toBe(200);
      expect(due.body.items.map((s: { id: string }) => s.id)).toContain('h-claim-hb');

      const claim = async () =>
        (
          await api
            .http()
            .post('/v1/schedules/claim')
            .set(admin)
            .send({ gatewayId: 'gw-1', leaseSeconds: 20, limit: 50 })
            .expect(200)
        ).body.items.find((s: { id: string }) => s.id === 'h-claim-hb');
      const first = await claim();
      expect(first.claim).toMatchObject({
        generation: 1,
        holder: 'gw-1',
        dueAt: new Date(START + MINUTE).toISOString(),
      });
      expect(await claim()).toBeUndefined();
      clock.advance(21 * SECOND);
      const second = await claim();
      expect(second.claim.generation).toBe(2);
      const stale = await api.http().post('/v1/schedules/h-claim-hb/complete').set(admin).send({ generation: 1 });
      expect(stale.status).toBe(409);
      expect(stale.body.code).toBe('claim_expired');
      const done = await api.http().post('/v1/schedules/h-claim-hb/complete').set(admin).send({ generation: 2 });
      expect(done.status).toBe(200);
      // Missed ticks are skipped: due at 1 min, fired at 3 min 31 s, next at 4 min.
      expect(done.body).toMatchObject({
        claim: null,
        lastFiredAt: new Date(START + 3 * MINUTE + 31 * SECOND).toISOString(),
        nextDueAt: new Date(START + 4 * MINUTE).toISOString(),
      });
      const unknownGateway = await api.http().post('/v1/schedules/claim').set(admin).send({ gatewayId: 'gw-none' });
      expect(unknownGateway.status).toBe(400);
      const owned = await api.http().get('/v1/schedules').query({ profile: 'sk', gatewayId: 'gw-1' }).set(admin);
      expect(owned.body.items.map((s: { id: string }) => s.id)).toContain('h-claim-hb');
    });

    it('[schedules.owner-follows-route] the due query reports unroutable ticks; a member sees only its profiles', async () => {
      clock.set(START);
      await api.createSession({ id: 'h-lost', profile: 'sk', source: 'cli', gatewayId: 'gw-1' });
      await schedule('h-lost', { id: 'h-lost-hb', kind: 'interval', intervalSeconds: 30 }).expect(201);
      clock.advance(MINUTE);
      const unroutable = await api
        .http()
        .get('/v1/schedules/due')
        .query({ profile: 'sk', ownership: 'unroutable' })
        .set(admin)
        .expect(200);
      expect(unroutable.body.items).toContainEqual(
        expect.objectContaining({ id: 'h-lost-hb', owner: { ownership: 'unroutable', gatewayId: null } }),
      );
      const outsider = bearer(await api.memberToken(['elsewhere'], 'outsider-2'));
      const fenced = await api.http().get('/v1/schedules/due').query({ profile: 'sk' }).set(outsider).expect(200);
      expect(fenced.body).toEqual({ items: [], nextCursor: null });
      const metrics = await api.http().get('/metrics').set(admin).expect(200);
      expect(metrics.text).toMatch(/statehouse_schedules_unroutable_due\{profile="sk"\} [1-9]/);
    });

    it('[schedules.deleted-with-session] deleting the session deletes its schedules; the receipt names none of them', async () => {
      clock.set(START);
      await chat('h-del');
      await schedule('h-del', {
        id: 'h-del-hb',
        kind: 'interval',
        intervalSeconds: 60,
        payload: { note: 'private-xyz' },
      }).expect(201);
      const deleted = await api
        .http()
        .delete('/v1/sessions/h-del')
        .set(admin)
        .set(await api.tokensOf('h-del'));
      expect(deleted.status).toBe(200);
      const receipt = await api.http().get(`/v1/deletion-receipts/${deleted.body.receipt.operationId}`).set(admin);
      expect(receipt.status).toBe(200);
      expect(JSON.stringify(receipt.body)).not.toMatch(/private-xyz|h-del-hb/);
      await api.http().post('/v1/schedules/h-del-hb/complete').set(admin).send({ generation: 1 }).expect(404);
    });
  });
}
