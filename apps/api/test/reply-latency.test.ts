import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, bearer, bootApi, TEST_DIALECTS } from './harness.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`reply latency and per-message cost over the API on ${dialect}`, () => {
    let api: ApiHarness;
    let admin: Record<string, string>;
    let member: Record<string, string>;
    let range: { from: string; to: string };

    beforeAll(async () => {
      api = await bootApi(dialect);
      admin = bearer(api.adminToken);
      member = bearer(await api.memberToken(['beta']));
      const base = Date.now() - 60_000;
      range = { from: iso(base - DAY), to: iso(base + 2 * HOUR) };
      // Opening messages: the reply 1.5 s after its question.
      await api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .send({
          id: 'lat-tg',
          profile: 'alpha',
          source: 'telegram',
          model: 'sonnet',
          messages: [
            { role: 'user', content: 'first question', timestamp: base },
            { role: 'assistant', content: 'first answer', timestamp: base + 1_500 },
          ],
        })
        .expect(201);
      // Then a question and, in a later append, its answer 2.5 s on with the call's cost.
      await api
        .http()
        .post('/v1/sessions/lat-tg/messages')
        .set(admin)
        .send({ messages: [{ role: 'user', content: 'second question', timestamp: base + 10_000 }] })
        .expect(201);
      await api
        .http()
        .post('/v1/sessions/lat-tg/messages')
        .set(admin)
        .send({
          messages: [{ role: 'assistant', content: 'second answer', timestamp: base + 12_500 }],
          usage: { inputTokens: 900, outputTokens: 80, estimatedCostUsd: 0.0042 },
        })
        .expect(201);
      await api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .send({
          id: 'lat-cli',
          profile: 'alpha',
          source: 'cli',
          model: 'haiku',
          messages: [
            { role: 'user', content: 'quick one', timestamp: base },
            { role: 'assistant', content: 'quick answer', timestamp: base + 800 },
          ],
        })
        .expect(201);
    });
    afterAll(async () => api?.close());

    it('[stats.reply-latency] a transcript carries each reply’s latency and the cost its append reported', async () => {
      const response = await api.http().get('/v1/sessions/lat-tg/messages').set(admin).expect(200);
      expect(
        response.body.items.map((m: { role: string; replyLatencyMs: number | null; costUsd: number | null }) => [
          m.role,
          m.replyLatencyMs,
          m.costUsd,
        ]),
      ).toEqual([
        ['user', null, null],
        ['assistant', 1_500, null],
        ['user', null, null],
        ['assistant', 2_500, 0.0042],
      ]);
    });

    it('[stats.reply-latency] GET /v1/stats/latency: p50 and p95 overall, per model and per surface', async () => {
      const response = await api.http().get('/v1/stats/latency').query(range).set(admin).expect(200);
      expect(response.body.profile).toBeNull();
      expect(response.body.overall).toEqual({ replies: 3, p50Ms: 1_500, p95Ms: 2_500 });
      expect(response.body.byModel).toEqual([
        { key: 'sonnet', replies: 2, p50Ms: 1_500, p95Ms: 2_500 },
        { key: 'haiku', replies: 1, p50Ms: 800, p95Ms: 800 },
      ]);
      expect(response.body.bySource).toEqual([
        { key: 'telegram', replies: 2, p50Ms: 1_500, p95Ms: 2_500 },
        { key: 'cli', replies: 1, p50Ms: 800, p95Ms: 800 },
      ]);
    });

    it('[stats.reply-latency] owner-fenced: a member of another profile sees no replies; a bad range is 400', async () => {
      const theirs = await api.http().get('/v1/stats/latency').query(range).set(member).expect(200);
      expect(theirs.body).toMatchObject({
        overall: { replies: 0, p50Ms: null, p95Ms: null },
        byModel: [],
        bySource: [],
      });
      const alpha = await api
        .http()
        .get('/v1/stats/latency')
        .query({ ...range, profile: 'alpha' })
        .set(member)
        .expect(200);
      expect(alpha.body.overall.replies).toBe(0);
      const backwards = await api.http().get('/v1/stats/latency').query({ from: range.to, to: range.from }).set(admin);
      expect(backwards.status).toBe(400);
      expect(backwards.body.code).toBe('validation_failed');
    });
  });
}
