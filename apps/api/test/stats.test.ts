import { clearOfUtcMidnight } from '@statehouse/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, bearer, bootApi, TEST_DIALECTS } from './harness.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Longer than this file runs; its set-up waits out a UTC midnight closer than that. */
const FILE_SPAN_MS = 2 * 60_000;
/** The set-up's own time box (apps/api/vitest.config.ts's hookTimeout). */
const SETUP_MS = 60_000;

/** Day buckets of the last three UTC days, ending with today. */
function lastDays(now: number) {
  const today = Math.floor(now / DAY) * DAY;
  return { from: new Date(today - 2 * DAY).toISOString(), to: new Date(today + DAY).toISOString(), today };
}

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`stats API on ${dialect}`, () => {
    let api: ApiHarness;
    let admin: Record<string, string>;
    let member: Record<string, string>;
    let now: number;
    let range: ReturnType<typeof lastDays>;

    beforeAll(async () => {
      // "Today" is read here and by the server on every append: both must fall on one UTC day.
      await clearOfUtcMidnight(FILE_SPAN_MS);
      now = Date.now();
      range = lastDays(now);
      api = await bootApi(dialect);
      admin = bearer(api.adminToken);
      member = bearer(await api.memberToken(['beta']));
      const yesterday = now - DAY;
      for (const [id, profile, source, model] of [
        ['s-alpha-cli', 'alpha', 'cli', 'gpt-5'],
        ['s-alpha-tg', 'alpha', 'telegram', 'claude-5'],
        ['s-beta-cli', 'beta', 'cli', 'gpt-5'],
      ] as const) {
        await api
          .http()
          .post('/v1/sessions')
          .set(admin)
          .send({
            id,
            profile,
            source,
            model,
            messages: [{ role: 'user', content: `hello from ${id}`, timestamp: yesterday }],
          })
          .expect(201);
        await api
          .http()
          .post(`/v1/sessions/${id}/messages`)
          .set(admin)
          .send({
            messages: [{ role: 'assistant', content: 'an answer' }],
            usage: { inputTokens: 1000, outputTokens: 200, cacheReadTokens: 50, estimatedCostUsd: 0.01 },
          })
          .expect(201);
      }
      await api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .send({ id: 's-beta-gone', profile: 'beta', source: 'slack', messages: [{ role: 'user', content: 'bye' }] })
        .expect(201);
      const tokens = await api.tokensOf('s-beta-gone');
      await api.http().delete('/v1/sessions/s-beta-gone').set(admin).set(tokens).expect(200);
    }, FILE_SPAN_MS + SETUP_MS);
    afterAll(async () => api?.close());

    it('answers usage per day grouped by source, with every bucket and the totals', async () => {
      const response = await api
        .http()
        .get('/v1/stats/usage')
        .query({ ...range, groupBy: 'source' })
        .set(admin);
      expect(response.status).toBe(200);
      const body = response.body;
      expect(body).toMatchObject({ bucket: 'day', groupBy: 'source', profile: null, from: range.from, to: range.to });
      expect(body.buckets).toHaveLength(3);
      expect(body.totals).toMatchObject({
        sessions: 3,
        conversations: 3,
        messages: 6,
        inputTokens: 3000,
        outputTokens: 600,
        cacheReadTokens: 150,
        totalTokens: 3600,
        costUsd: 0.03,
      });
      expect(body.groups.map((g: { key: string; messages: number }) => [g.key, g.messages])).toEqual([
        ['cli', 4],
        ['telegram', 2],
      ]);
      const today = body.buckets.find((b: { start: string }) => b.start === new Date(range.today).toISOString());
      expect(today.total.inputTokens).toBe(3000);
    });

    it('groups by model and by profile, and narrows to one profile', async () => {
      const byModel = await api
        .http()
        .get('/v1/stats/usage')
        .query({ ...range, groupBy: 'model' })
        .set(admin);
      expect(byModel.body.groups.map((g: { key: string; sessions: number }) => [g.key, g.sessions])).toEqual([
        ['gpt-5', 2],
        ['claude-5', 1],
      ]);
      const alpha = await api
        .http()
        .get('/v1/stats/usage')
        .query({ ...range, groupBy: 'profile', profile: 'alpha' })
        .set(admin);
      expect(alpha.body.profile).toBe('alpha');
      expect(alpha.body.groups.map((g: { key: string }) => g.key)).toEqual(['alpha']);
    });

    it('[security.owner-fence] fences a member: its own profiles only, and a foreign profile answers as empty (never 403/404)', async () => {
      const own = await api
        .http()
        .get('/v1/stats/usage')
        .query({ ...range, groupBy: 'profile' })
        .set(member);
      expect(own.status).toBe(200);
      expect(own.body.groups.map((g: { key: string }) => g.key)).toEqual(['beta']);
      expect(own.body.totals.messages).toBe(2);
      const foreign = await api
        .http()
        .get('/v1/stats/usage')
        .query({ ...range, profile: 'alpha' })
        .set(member);
      expect(foreign.status).toBe(200);
      expect(foreign.body.totals.messages).toBe(0);
      const summary = await api.http().get('/v1/stats/summary').query({ from: range.from, to: range.to }).set(member);
      expect(summary.body.usage.messages).toBe(2);
      expect(summary.body.deletions).toEqual({ operations: 1, sessions: 1, messages: 1 });
      expect((await api.http().get('/v1/stats/receipt-lag').set(member)).status).toBe(403);
    });

    it('answers an empty range with zero buckets, and hour buckets', async () => {
      const past = await api.http().get('/v1/stats/usage').query({ from: '2020-01-01', to: '2020-01-08' }).set(admin);
      expect(past.status).toBe(200);
      expect(past.body.buckets).toHaveLength(7);
      expect(past.body.totals.messages).toBe(0);
      expect(past.body.groups).toEqual([]);
      const hours = await api.http().get('/v1/stats/usage').query({ bucket: 'hour' }).set(admin);
      expect(hours.status).toBe(200);
      expect(hours.body.buckets.length).toBeGreaterThanOrEqual(24);
      expect(hours.body.buckets.length).toBeLessThanOrEqual(25);
      expect(hours.body.totals.inputTokens).toBe(3000);
    });

    it('refuses hostile parameters with 400 validation_failed and a readable detail', async () => {
      const bad: Record<string, string>[] = [
        { from: '2026-11-02', to: '2026-11-01' },
        { from: '2026-11-01', to: '2026-11-01' },
        { from: '2020-01-01', to: '2026-01-01' },
        { bucket: 'hour', from: '2026-01-01', to: '2026-03-01' },
        { bucket: 'year' },
        { timeZone: 'Mars/Olympus' },
        { bucket: 'week', from: '2000-01-01', to: '2026-01-01' },
        { groupBy: 'title' },
        { from: 'yesterday' },
        { from: '2026-02-30' },
        { to: '9'.repeat(400) },
        { profile: 'Not A Profile' },
        { from: '1969-12-31T23:00:00Z\u0000' },
        { from: '-001000-01-01' },
        { from: '1000-01-01' },
      ];
      for (const query of bad) {
        const response = await api.http().get('/v1/stats/usage').query(query).set(admin);
        expect(response.status, JSON.stringify(query)).toBe(400);
        expect(response.body.code).toBe('validation_failed');
        expect(response.body.detail).not.toMatch(/Error|at .*\.ts/);
      }
      // Only `from`, far back: the default `to` (now) makes the range too long.
      expect((await api.http().get('/v1/stats/usage').query({ from: '2001-01-01' }).set(admin)).status).toBe(400);
      expect((await api.http().get('/v1/stats/deletions').query({ groupBy: 'source' }).set(admin)).status).toBe(400);
      expect(
        (await api.http().get('/v1/stats/summary').query({ from: '2026-11-02', to: '2026-11-01' }).set(admin)).status,
      ).toBe(400);
      expect((await api.http().get('/v1/stats/usage').set({})).status).toBe(401);
    });

    it('charts deletions by origin and by profile from the receipts', async () => {
      const byOrigin = await api.http().get('/v1/stats/deletions').query(range).set(admin);
      expect(byOrigin.status).toBe(200);
      expect(byOrigin.body.groupBy).toBe('origin');
      expect(byOrigin.body.totals).toEqual({ operations: 1, sessions: 1, messages: 1 });
      expect(byOrigin.body.groups).toEqual([{ key: 'user_api', operations: 1, sessions: 1, messages: 1 }]);
      const byProfile = await api
        .http()
        .get('/v1/stats/deletions')
        .query({ ...range, groupBy: 'profile' })
        .set(admin);
      expect(byProfile.body.groups.map((g: { key: string }) => g.key)).toEqual(['beta']);
      const alpha = await api
        .http()
        .get('/v1/stats/deletions')
        .query({ ...range, profile: 'alpha' })
        .set(admin);
      expect(alpha.body.totals.operations).toBe(0);
    });

    it('summarises a period for the overview cards, with activity right now', async () => {
      const response = await api.http().get('/v1/stats/summary').set(admin);
      expect(response.status).toBe(200);
      expect(response.body.usage).toMatchObject({ sessions: 3, messages: 6, inputTokens: 3000, costUsd: 0.03 });
      expect(response.body.deletions).toEqual({ operations: 1, sessions: 1, messages: 1 });
      expect(response.body.activeNow).toMatchObject({ sessions: 3, busy: 0, windowMinutes: 15 });
      const alpha = await api.http().get('/v1/stats/summary').query({ profile: 'alpha' }).set(admin);
      expect(alpha.body).toMatchObject({ profile: 'alpha', usage: { sessions: 2 }, activeNow: { sessions: 2 } });
    });

    it('reports each receipt consumer’s lag (admin)', async () => {
      await api.http().put('/v1/receipt-consumers/cleanup').set(admin).send({ cursor: 0 }).expect(200);
      const lag = await api.http().get('/v1/stats/receipt-lag').set(admin);
      expect(lag.status).toBe(200);
      expect(lag.body.highWater).toBe(1);
      expect(lag.body.consumers).toEqual([
        expect.objectContaining({ name: 'cleanup', cursor: 0, behind: 1, oldestPendingAt: expect.any(String) }),
      ]);
      expect(lag.body.consumers[0].lagSeconds).toBeGreaterThanOrEqual(0);
      await api.http().put('/v1/receipt-consumers/cleanup').set(admin).send({ cursor: 1 }).expect(200);
      const caughtUp = await api.http().get('/v1/stats/receipt-lag').set(admin);
      expect(caughtUp.body.consumers[0]).toMatchObject({ behind: 0, oldestPendingAt: null, lagSeconds: null });
    });

    it('lists known sources and models for the list filters, fenced', async () => {
      const facets = await api.http().get('/v1/sessions/facets').set(admin);
      expect(facets.status).toBe(200);
      expect(facets.body.sources).toEqual([
        { value: 'cli', sessions: 2 },
        { value: 'telegram', sessions: 1 },
      ]);
      expect(facets.body.models).toEqual([
        { value: 'gpt-5', sessions: 2 },
        { value: 'claude-5', sessions: 1 },
      ]);
      expect(facets.body.truncated).toBe(false);
      const scoped = await api.http().get('/v1/sessions/facets').set(member);
      expect(scoped.body.sources).toEqual([{ value: 'cli', sessions: 1 }]);
    });
  });
}
