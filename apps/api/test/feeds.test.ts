import { type SseEvent, sseEvents } from '@statehouse/state/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, TEST_DIALECTS, useApi } from './harness.js';

/** Reads a stream's events until `enough` says so (or the deadline), then closes it. */
async function collect(
  url: string,
  headers: Record<string, string>,
  enough: (events: SseEvent[]) => boolean,
  during?: () => Promise<void>,
): Promise<SseEvent[]> {
  const abort = new AbortController();
  const deadline = setTimeout(() => abort.abort(), 10_000);
  const events: SseEvent[] = [];
  try {
    const response = await fetch(url, { headers, signal: abort.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    let started = false;
    for await (const event of sseEvents(response)) {
      events.push(event);
      // The opening bookmark says the stream is up: what `during` writes now arrives live.
      if (!started && event.event === 'bookmark' && during) {
        started = true;
        await during();
      }
      if (enough(events)) break;
    }
  } catch (error) {
    if (!abort.signal.aborted) throw error;
  } finally {
    clearTimeout(deadline);
    abort.abort();
  }
  return events;
}

const messagesOf = (events: SseEvent[]) => events.filter((event) => event.event === 'message');

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`live feeds over HTTP on ${dialect}`, () => {
    const { api, admin } = useApi(dialect);

    const append = async (sessionId: string, ...texts: string[]) => {
      const response = await api
        .http()
        .post(`/v1/sessions/${sessionId}/messages`)
        .set(admin)
        .send({ messages: texts.map((content) => ({ role: 'user', content })) })
        .expect(201);
      return response.body.ids as number[];
    };

    beforeAll(async () => {
      for (const [id, profile] of [
        ['feed-a', 'alpha'],
        ['feed-b', 'beta'],
        ['feed-c', 'alpha'],
      ]) {
        await api.createSession({ id, profile, source: 'cli' });
      }
    });

    it("[feeds.resume] a session's feed sends appends as they commit, and a reconnect with Last-Event-ID repeats nothing and loses nothing", async () => {
      const base = await api.listening();
      const before = await append('feed-a', 'one', 'two');
      // From the start: the stored rows, then what commits while it is open.
      let live: number[] = [];
      const first = await collect(
        `${base}/v1/sessions/feed-a/messages/watch?after=0`,
        admin,
        (events) => messagesOf(events).length >= 4,
        async () => {
          live = await append('feed-a', 'three', 'four');
        },
      );
      const seen = messagesOf(first);
      expect(seen.map((event) => event.data.id)).toEqual([...before, ...live]);
      expect(seen.map((event) => event.id)).toEqual([...before, ...live].map(String));
      expect(seen.map((event) => event.data.content)).toEqual(['one', 'two', 'three', 'four']);

      // The viewer drops after the third message; two more commit while it is away.
      const lastSeen = seen[2].id!;
      const away = await append('feed-a', 'five', 'six');
      const resumed = await collect(
        `${base}/v1/sessions/feed-a/messages/watch?after=0`,
        { ...admin, 'Last-Event-ID': lastSeen },
        (events) => messagesOf(events).length >= 3,
      );
      expect(messagesOf(resumed).map((event) => event.data.id)).toEqual([live[1], ...away]);
      // Without a cursor, only what commits from now on.
      const fresh = await collect(
        `${base}/v1/sessions/feed-a/messages/watch`,
        admin,
        (events) => messagesOf(events).length >= 1,
        async () => {
          await append('feed-a', 'seven');
        },
      );
      expect(messagesOf(fresh).map((event) => event.data.content)).toEqual(['seven']);
      expect(fresh[0]).toMatchObject({ event: 'bookmark', data: { highWater: away[1] } });
    });

    it("[feeds.resume] the sessions feed names each session that gets messages, within the caller's profiles, and resumes after Last-Event-ID", async () => {
      const base = await api.listening();
      const member = bearer(await api.memberToken(['alpha'], 'feed-viewer'));
      const sessions = (events: SseEvent[]) => events.filter((event) => event.event === 'session');
      let written: number[] = [];
      const first = await collect(
        `${base}/v1/sessions/watch`,
        member,
        (events) => sessions(events).length >= 2,
        async () => {
          written = [
            ...(await append('feed-c', 'c1')),
            ...(await append('feed-b', 'b1')),
            ...(await append('feed-a', 'a1')),
          ];
        },
      );
      // beta's session is not the member's: never named, not even as a gap in the ids.
      expect(sessions(first).map((event) => [event.data.sessionId, event.data.lastMessageId])).toEqual([
        ['feed-c', written[0]],
        ['feed-a', written[2]],
      ]);
      expect(sessions(first)[0].data).toMatchObject({ profile: 'alpha', messageCount: 1 });
      expect(sessions(first)[0].id).toBe(String(written[0]));

      // Resumed after feed-c's event: feed-a (already committed) and what commits next, once each.
      const later = await append('feed-c', 'c2');
      const resumed = await collect(
        `${base}/v1/sessions/watch?profile=alpha`,
        { ...member, 'Last-Event-ID': String(written[0]) },
        (events) => sessions(events).length >= 2,
      );
      expect(sessions(resumed).map((event) => [event.data.sessionId, event.data.lastMessageId])).toEqual([
        ['feed-a', written[2]],
        ['feed-c', later[0]],
      ]);
    });

    // SQLite: the change probe runs exactly while someone listens, so it shows when the last feed let go.
    it.skipIf(dialect !== 'sqlite')(
      'a viewer that goes away ends its feed: nothing keeps listening for it',
      async () => {
        const base = await api.listening();
        let whileOpen = false;
        const events = await collect(
          `${base}/v1/sessions/feed-a/messages/watch`,
          admin,
          (seen) => seen.length >= 1,
          async () => {
            whileOpen = api.store.wakeups.live;
          },
        );
        expect(events[0].event).toBe('bookmark');
        // While the stream was open, its feed listened.
        expect(whileOpen).toBe(true);
        await expect.poll(() => api.store.wakeups.live, { timeout: 5000 }).toBe(false);
      },
    );

    it('[security.owner-fence] a feed of a foreign session or profile answers 404 before any event; a bad Last-Event-ID is a 400', async () => {
      const member = bearer(await api.memberToken(['alpha'], 'feed-fence'));
      const foreign = await api.http().get('/v1/sessions/feed-b/messages/watch').set(member);
      expect(foreign.status).toBe(404);
      expect(foreign.headers['content-type']).toContain('application/problem+json');
      const profile = await api.http().get('/v1/sessions/watch?profile=beta').set(member);
      expect(profile.status).toBe(404);
      const bad = await api
        .http()
        .get('/v1/sessions/feed-a/messages/watch')
        .set({ ...admin, 'Last-Event-ID': 'seven' });
      expect(bad.status).toBe(400);
    });
  });
}
