import { ManualClock } from '@statehouse/state';
import { describe, expect, it } from 'vitest';
import { TEST_DIALECTS, useApi } from './harness.js';

const DAY = 86_400_000;

/**
 * The data-loss sequence as a gateway drives it over REST (docs/domain.md §6.3, §5.1.5): a chat
 * that ended by accident is resolved (`recovered`), written to without a turn, and then a
 * retention pass runs with a window of 0 and of 1 day. It once stayed ended — out of "open"
 * lists, ended in the dashboard — and retention deleted it while people were talking in it.
 */
for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`a revived chat is open and kept, over REST, on ${dialect}`, () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 1));
    const { api, admin } = useApi(dialect, {}, { clock });
    const chat = { profile: 'keep', source: 'telegram', chatType: 'dm', chatId: '4242' };

    it('[resolve.revive-reopens] resolve recovered → append without a turn → retention 0 and 1 keeps the conversation', async () => {
      const created = await api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .send({
          id: 'talking',
          ...chat,
          sessionKey: 'agent:keep:telegram:dm:4242',
          messages: [{ role: 'user', content: 'hi' }],
        });
      expect(created.status).toBe(201);
      const ended = await api
        .http()
        .post('/v1/sessions/talking/end')
        .set({ ...admin, 'If-Match': `"${created.body.revision}"` })
        .send({ reason: 'ws_orphan_reap' });
      expect(ended.body).toMatchObject({ endReason: 'ws_orphan_reap' });
      clock.advance(3 * DAY);

      const resolved = await api
        .http()
        .post('/v1/routes/resolve')
        .set(admin)
        .send({ ...chat, transportProfile: 'bot-a' });
      expect(resolved.body).toMatchObject({ sessionId: 'talking', via: 'recovered' });
      const read = await api.http().get('/v1/sessions/talking').set(admin);
      expect(read.body).toMatchObject({ endedAt: null, endReason: null, transportProfile: 'bot-a' });
      expect(read.headers.etag).toBe(`"${ended.body.revision + 1}"`);

      const appended = await api
        .http()
        .post('/v1/sessions/talking/messages')
        .set(admin)
        .send({ messages: [{ role: 'user', content: 'still talking' }] });
      expect(appended.status).toBe(201);
      const open = await api.http().get('/v1/sessions?status=open&profile=keep').set(admin);
      expect(open.body.items.map((item: { id: string }) => item.id)).toContain('talking');

      for (const olderThanDays of [0, 1]) {
        const pruned = await api
          .http()
          .post('/v1/retention/prune')
          .set(admin)
          .send({ olderThanDays, profile: 'keep', dryRun: false });
        expect(pruned.status).toBe(200);
        expect(pruned.body.deletedIds).toEqual([]);
      }
      expect((await api.http().get('/v1/sessions/talking').set(admin)).status).toBe(200);
    });

    it('[append.revives-recoverable] an append to an accidentally ended chat reopens it and says so', async () => {
      const created = await api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .send({ id: 'appended', profile: 'keep', source: 'telegram', messages: [{ role: 'user', content: 'hi' }] });
      await api
        .http()
        .post('/v1/sessions/appended/end')
        .set({ ...admin, 'If-Match': `"${created.body.revision}"` })
        .send({ reason: 'agent_close' });
      const appended = await api
        .http()
        .post('/v1/sessions/appended/messages')
        .set(admin)
        .send({ messages: [{ role: 'assistant', content: 'answer after the close' }] });
      expect(appended.status).toBe(201);
      expect(appended.body.reopened).toEqual({ endReason: 'agent_close' });
      expect((await api.http().get('/v1/sessions/appended').set(admin)).body).toMatchObject({ endedAt: null });
    });
  });
}
