import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.js';
import { SessionClosedError } from '../shared/errors.js';
import { adminPrincipal, aSession, contextOf, EVERY_MESSAGE, TEST_DIALECTS } from '../testing/index.js';
import { useTestStore } from '../testing/suites.js';

const admin = contextOf(adminPrincipal);
const transcriptQuery = { limit: 1000, ...EVERY_MESSAGE } as const;

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`messages on ${dialect}`, () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
    const t = useTestStore(dialect, { clock });

    beforeAll(async () => {
      await aSession(t.store, { id: 's' });
    });

    it('[messages.id-order] keeps ids monotonic as the only order, whatever the timestamps say', async () => {
      const result = await t.store.messages.append(admin, 's', {
        messages: [
          { role: 'user', content: 'later', timestamp: '2026-06-01T12:00:00Z' },
          { role: 'assistant', content: 'earlier', timestamp: '2026-05-01T12:00:00Z' },
        ],
      });
      const page = await t.store.messages.list(admin, 's', transcriptQuery);
      expect(page.items.map((m) => m.id)).toEqual(result.ids);
      expect(page.items.map((m) => m.content)).toEqual(['later', 'earlier']);
    });

    it('numbers messages per session (not by store-wide id), the same in every view and page', async () => {
      // Another session's rows interleave with this one's ids: ordinals must not see them.
      await aSession(t.store, { id: 'ord' });
      await aSession(t.store, { id: 'ord-other' });
      for (const [index, role] of ['user', 'assistant', 'user', 'assistant'].entries()) {
        await t.store.messages.append(admin, 'ord-other', { messages: [{ role: 'user', content: `x${index}` }] });
        await t.store.messages.append(admin, 'ord', {
          messages: [
            { role: role as 'user' | 'assistant', content: `m${index}` },
            ...(index === 1 ? [{ role: 'system' as const, content: 'scaffold', displayKind: 'hidden' as const }] : []),
          ],
        });
      }
      const all = await t.store.messages.list(admin, 'ord', transcriptQuery);
      expect(all.items.map((m) => m.ordinal)).toEqual([1, 2, 3, 4, 5]);
      const visible = await t.store.messages.list(admin, 'ord', { ...transcriptQuery, includeHidden: false });
      expect(visible.items.map((m) => [m.content, m.ordinal])).toEqual([
        ['m0', 1],
        ['m1', 2],
        ['m2', 4],
        ['m3', 5],
      ]);
      const secondPage = await t.store.messages.list(admin, 'ord', {
        ...transcriptQuery,
        includeHidden: false,
        limit: 2,
        after: visible.items[1].id,
      });
      expect(secondPage.items.map((m) => m.ordinal)).toEqual([4, 5]);
      const latest = await t.store.messages.list(admin, 'ord', { ...transcriptQuery, order: 'latest', limit: 2 });
      expect(latest.items.map((m) => m.ordinal)).toEqual([5, 4]);
    });

    it('[messages.timestamp-clamped] clamps timestamps into a sane window', async () => {
      await t.store.messages.append(admin, 's', {
        messages: [
          { role: 'user', content: 'epoch zero', timestamp: 0 },
          { role: 'user', content: 'far future', timestamp: '2999-01-01T00:00:00Z' },
        ],
      });
      const page = await t.store.messages.list(admin, 's', { ...transcriptQuery, order: 'latest', limit: 2 });
      for (const message of page.items) expect(message.timestamp).toBe(new Date(clock.now()).toISOString());
    });

    it('replaces NUL so both dialects store the same text', async () => {
      // The API's body parser does this for HTTP callers; the store must not depend on it.
      const result = await t.store.messages.append(admin, 's', {
        messages: [{ role: 'user', content: 'nul\u0000here', toolName: 'x\u0000y', platformMessageId: 'p\u0000' }],
      });
      const page = await t.store.messages.list(admin, 's', { ...transcriptQuery, order: 'latest', limit: 1 });
      expect(page.items[0]).toMatchObject({ id: result.ids[0], content: 'nul\uFFFDhere', toolName: 'x\uFFFDy' });
    });

    it('[session.counters-visible] counts tool calls and visible messages only', async () => {
      await aSession(t.store, { id: 'counts' });
      await t.store.messages.append(admin, 'counts', {
        messages: [
          { role: 'system', content: 'x', displayKind: 'hidden' },
          { role: 'assistant', content: '', toolCalls: [{ id: 'a' }, { id: 'b' }, { id: 'c' }] },
          { role: 'tool', content: 'result', toolCallId: 'a', toolName: 'web' },
        ],
      });
      expect(await t.store.sessions.get(admin, 'counts')).toMatchObject({
        messageCount: 2,
        toolCallCount: 3,
        revision: 2,
      });
    });

    it('[session.revision-generation] serialises concurrent appends: counters and revision add up exactly', async () => {
      await aSession(t.store, { id: 'busy' });
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          t.store.messages.append(admin, 'busy', {
            messages: [
              { role: 'user', content: `m${i}` },
              { role: 'assistant', content: `r${i}` },
            ],
          }),
        ),
      );
      expect(await t.store.sessions.get(admin, 'busy')).toMatchObject({ messageCount: 40, revision: 21 });
      const page = await t.store.messages.list(admin, 'busy', transcriptQuery);
      expect(new Set(page.items.map((m) => m.id)).size).toBe(40);
    });

    it('[messages.platform-dedupe] concurrent appends of one platformMessageId store one row and all answer its id', async () => {
      await aSession(t.store, { id: 'dup-race', source: 'telegram' });
      const results = await Promise.all(
        Array.from({ length: 6 }, () =>
          t.store.messages.append(admin, 'dup-race', {
            messages: [{ role: 'user', content: 'once', platformMessageId: 'tg-1' }],
          }),
        ),
      );
      expect(new Set(results.map((result) => result.ids[0])).size).toBe(1);
      expect(results.filter((result) => result.created === 1)).toHaveLength(1);
      expect(await t.store.sessions.get(admin, 'dup-race')).toMatchObject({ messageCount: 1, revision: 2 });
    });

    it('refuses appends to a session closed by compression', async () => {
      await aSession(t.store, { id: 'closed' });
      await t.store.sessions.stampEndForSeed('closed', clock.now(), 'compression');
      await expect(
        t.store.messages.append(admin, 'closed', { messages: [{ role: 'user', content: 'too late' }] }),
      ).rejects.toBeInstanceOf(SessionClosedError);
    });

    it('rolls back the whole batch when one row fails', async () => {
      await aSession(t.store, { id: 'atomic' });
      const before = await t.store.sessions.get(admin, 'atomic');
      await expect(
        t.store.messages.append(admin, 'atomic', {
          messages: [
            { role: 'user', content: 'ok' },
            // Past the contract's validation only by force: the NOT NULL constraint fails mid-batch.
            { role: null as never, content: 'boom' },
          ],
        }),
      ).rejects.toThrow();
      const after = await t.store.sessions.get(admin, 'atomic');
      expect(after).toMatchObject({ revision: before.revision, messageCount: 0 });
      expect((await t.store.messages.list(admin, 'atomic', transcriptQuery)).items).toEqual([]);
    });
  });
}
