import { describe, expect, it } from 'vitest';
import { TEST_DIALECTS, useApi } from './harness.js';

/** docs/domain.md §6.3.5 over HTTP: `claimRoute` makes concurrent first turns of a chat meet on one row. */
for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`a chat's first turn on ${dialect}`, () => {
    const { api, admin } = useApi(dialect);

    const firstTurn = (text: string) =>
      api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .send({
          profile: 'ft',
          source: 'telegram',
          sessionKey: 'agent:ft:telegram:dm:77',
          chatType: 'dm',
          chatId: '77',
          claimRoute: true,
          messages: [{ role: 'user', content: text }],
        });

    it('[sessions.first-turn-converges] the first creates (201), concurrent and later ones join it (200)', async () => {
      const answers = await Promise.all([firstTurn('one'), firstTurn('two'), firstTurn('three')]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 201]);
      expect(new Set(answers.map((answer) => answer.body.id)).size).toBe(1);
      const resolved = await api
        .http()
        .post('/v1/routes/resolve')
        .set(admin)
        .send({ profile: 'ft', source: 'telegram', chatType: 'dm', chatId: '77' })
        .expect(200);
      expect(resolved.body).toMatchObject({ sessionId: answers[0].body.id, via: 'route' });
    });

    it('refuses claimRoute without a sessionKey', async () => {
      const response = await api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .send({ profile: 'ft', source: 'telegram', claimRoute: true });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('validation_failed');
    });
  });
}
