import { DeletionStatsQuerySchema, StatsSummaryQuerySchema, UsageQuerySchema } from '@statehouse/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.js';
import { ValidationError } from '../shared/errors.js';
import { adminPrincipal, contextOf, memberPrincipal, TEST_DIALECTS } from '../testing/index.js';
import { useTestStore } from '../testing/suites.js';

const admin = contextOf(adminPrincipal);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Monday 2026-03-02 00:00 UTC (01:00 in Paris). */
const T0 = Date.UTC(2026, 2, 2);
/** Imported history: 2024-11-04, more than a year before T0. */
const OLD = Date.UTC(2024, 10, 4, 10);
const iso = (ms: number) => new Date(ms).toISOString();
const usageQuery = (query: Record<string, string>) => UsageQuerySchema.parse(query);

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`stats periods in a time zone on ${dialect}`, () => {
    const clock = new ManualClock(T0);
    const t = useTestStore(dialect, { clock });

    const conversation = async (id: string, profile: string, at: number, messages: number) => {
      clock.set(at);
      await t.store.sessions.create(admin, { id, profile, source: 'cli' });
      for (let i = 0; i < messages; i++) {
        clock.set(at + i * HOUR + 60_000);
        await t.store.messages.append(admin, id, {
          messages: [{ role: i % 2 ? 'assistant' : 'user', content: `message ${i} of ${id}` }],
          usage: { inputTokens: 10, outputTokens: 1, estimatedCostUsd: 0.5 },
        });
      }
    };

    beforeAll(async () => {
      // 2 messages at 09:01 and 10:01 UTC on Monday; 2 at 23:01 (Tuesday 00:01 in Paris) and 00:01 Tuesday.
      await conversation('p1', 'alpha', T0 + 9 * HOUR, 2);
      await conversation('p2', 'alpha', T0 + 23 * HOUR, 2);
      // The only figures of profile "old": written more than a year before, as an import would.
      await conversation('o1', 'old', OLD, 3);
      clock.set(T0 + 3 * DAY);
    });

    it('lays day buckets at local midnight: 23:00 UTC counts on the next Paris day', async () => {
      const utc = await t.store.stats.usageOverTime(
        admin,
        usageQuery({ from: iso(T0), to: iso(T0 + 2 * DAY), profile: 'alpha' }),
      );
      expect(utc.timeZone).toBe('UTC');
      expect(utc.buckets.map((b) => b.total.messages)).toEqual([3, 1]);
      const paris = await t.store.stats.usageOverTime(
        admin,
        usageQuery({ from: iso(T0), to: iso(T0 + 47 * HOUR), profile: 'alpha', timeZone: 'Europe/Paris' }),
      );
      expect(paris.timeZone).toBe('Europe/Paris');
      expect(paris.from).toBe(iso(T0 - HOUR));
      expect(paris.buckets.map((b) => b.start)).toEqual([iso(T0 - HOUR), iso(T0 + 23 * HOUR)]);
      expect(paris.buckets.map((b) => [b.total.sessions, b.total.messages])).toEqual([
        [1, 2],
        [1, 2],
      ]);
      expect(paris.totals).toMatchObject({ messages: 4, sessions: 2, inputTokens: 40, costUsd: 2 });
    });

    it('answers week and month buckets with the same totals as the days they cover', async () => {
      for (const timeZone of ['UTC', 'Europe/Paris', 'Asia/Kolkata']) {
        const week = await t.store.stats.usageOverTime(
          admin,
          usageQuery({ bucket: 'week', from: iso(T0 + HOUR), to: iso(T0 + 2 * HOUR), profile: 'alpha', timeZone }),
        );
        expect(week.buckets).toHaveLength(1);
        expect(week.totals.messages).toBe(4);
        const month = await t.store.stats.usageOverTime(
          admin,
          usageQuery({ bucket: 'month', from: iso(T0 + 5 * DAY), to: iso(T0 + 6 * DAY), profile: 'alpha', timeZone }),
        );
        expect(month.buckets).toHaveLength(1);
        expect(month.buckets[0].total.messages).toBe(4);
        // Thirty days of days: every day cut in Paris and Kolkata, read as one range of hours.
        const days = await t.store.stats.usageOverTime(
          admin,
          usageQuery({ from: iso(T0 - 20 * DAY), to: iso(T0 + 10 * DAY), profile: 'alpha', timeZone }),
        );
        expect(days.buckets.length).toBeGreaterThanOrEqual(30);
        expect(days.totals.messages).toBe(4);
      }
      const paris = await t.store.stats.usageOverTime(
        admin,
        usageQuery({ bucket: 'month', from: iso(T0), to: iso(T0 + DAY), timeZone: 'Europe/Paris' }),
      );
      // March in Paris: from March 1, 00:00 (UTC+1) to April 1, 00:00 (UTC+2, after the switch).
      expect(paris.from).toBe('2026-02-28T23:00:00.000Z');
      expect(paris.to).toBe('2026-03-31T22:00:00.000Z');
    });

    it('shows a store whose only figures are more than a year old over all time (extent, month buckets)', async () => {
      const member = contextOf(memberPrincipal(['old']));
      const extent = await t.store.stats.extent(member, {});
      expect(extent.first).toBe(iso(Date.UTC(2024, 10, 4)));
      expect(extent.last).toBe(iso(Date.UTC(2024, 10, 5)));
      const all = await t.store.stats.usageOverTime(
        member,
        usageQuery({ bucket: 'month', from: extent.first!, to: iso(T0 + 3 * DAY), timeZone: 'Europe/Paris' }),
      );
      expect(all.buckets.length).toBe(17);
      expect(all.buckets[0].start).toBe('2024-10-31T23:00:00.000Z');
      expect(all.buckets[0].total).toMatchObject({ sessions: 1, messages: 3 });
      expect(all.totals.messages).toBe(3);
      const summary = await t.store.stats.summary(
        member,
        StatsSummaryQuerySchema.parse({ from: extent.first!, to: iso(T0 + 3 * DAY) }),
      );
      expect(summary.usage.messages).toBe(3);
      const deletions = await t.store.stats.deletionsOverTime(
        member,
        DeletionStatsQuerySchema.parse({ bucket: 'week', from: extent.first!, to: iso(T0), timeZone: 'Europe/Paris' }),
      );
      expect(deletions.buckets.length).toBeGreaterThan(60);
      expect(deletions.totals.operations).toBe(0);
      // A profile without figures, and one the member may not read, have no extent.
      expect(await t.store.stats.extent(member, { profile: 'alpha' })).toEqual({
        profile: 'alpha',
        first: null,
        last: null,
      });
    });

    it('refuses unknown zones and ranges too long for the bucket', () => {
      expect(UsageQuerySchema.safeParse({ timeZone: 'Mars/Olympus' }).success).toBe(false);
      expect(UsageQuerySchema.safeParse({ bucket: 'week', from: iso(T0 - 4000 * DAY), to: iso(T0) }).success).toBe(
        false,
      );
      expect(UsageQuerySchema.safeParse({ bucket: 'month', from: iso(T0 - 4000 * DAY), to: iso(T0) }).success).toBe(
        true,
      );
      return expect(
        t.store.stats.usageOverTime(admin, {
          bucket: 'week',
          groupBy: 'source',
          timeZone: 'UTC',
          from: iso(T0 - 4000 * DAY),
        }),
      ).rejects.toBeInstanceOf(ValidationError);
    });
  });
}
