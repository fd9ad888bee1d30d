import { UsageQuerySchema } from '@statehouse/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.js';
import { adminPrincipal, contextOf, TEST_DIALECTS } from '../testing/index.js';
import { seededRandom } from '../testing/seeded-random.js';
import { useTestStore } from '../testing/suites.js';

const admin = contextOf(adminPrincipal);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** 2025-10-01 00:00 UTC: the history spans two DST changes in both hemispheres' zones below. */
const START = Date.UTC(2025, 9, 1);
const SPAN_DAYS = 160;
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Week and month buckets fold whole UTC days in SQL and read the days a local midnight cuts by the
 * hour; day buckets lay every row in JavaScript. Both must answer the same figures: a month is the
 * sum of its local days, group by group.
 */
for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`week and month buckets are the sums of their days on ${dialect}`, () => {
    const clock = new ManualClock(START);
    const t = useTestStore(dialect, { clock });
    /** The deletions made, as the hourly rollup counts them. */
    const deleted: { hour: number; origin: string; messages: number }[] = [];

    beforeAll(async () => {
      const random = seededRandom(20261206);
      const sources = ['cli', 'telegram', 'discord'];
      for (let i = 0; i < 40; i++) {
        // Some at the top of a UTC hour near midnight: the hours a local midnight cuts.
        const day = Math.floor(random() * SPAN_DAYS);
        const hour = i % 4 === 0 ? 23 : Math.floor(random() * 24);
        const at = START + day * DAY + hour * HOUR + Math.floor(random() * 50) * 60_000;
        const id = `cal-${i}`;
        clock.set(at);
        await t.store.sessions.create(admin, { id, profile: i % 3 ? 'alpha' : 'beta', source: sources[i % 3] });
        const messages = 1 + Math.floor(random() * 4);
        for (let m = 0; m < messages; m++) {
          clock.set(at + m * 2 * HOUR + 60_000);
          await t.store.messages.append(admin, id, {
            messages: [{ role: m % 2 ? 'assistant' : 'user', content: `message ${m} of ${id}` }],
            usage: { inputTokens: 10 + m, outputTokens: 1, estimatedCostUsd: 0.25 },
          });
        }
      }
      // Deletions every 5 hours from the last day on, at :45 — some in the hour a local midnight cuts
      // (18:45 UTC is 00:15 in Kolkata, whose midnight falls inside the 18:00 UTC hour).
      for (let k = 0; k < 12; k++) {
        const at = START + (SPAN_DAYS + 1) * DAY + k * 5 * HOUR + 45 * 60_000;
        clock.set(at);
        const id = `cal-${k * 3}`;
        const session = await t.store.sessions.get(admin, id);
        const channel = k % 2 ? 'dashboard' : 'api';
        await t.store.deletion.deleteOne(
          { ...admin, channel },
          id,
          { includeCompressionChain: false, ifEmpty: false },
          { ifMatch: session.revision, expectedGeneration: session.generation },
        );
        // A deletion's origin follows the caller's channel (docs/domain.md §5.1).
        const origin = channel === 'dashboard' ? 'user_dashboard' : 'user_api';
        deleted.push({ hour: at - (at % HOUR), origin, messages: session.messageCount });
      }
      clock.set(START + (SPAN_DAYS + 10) * DAY);
    });

    for (const timeZone of ['UTC', 'Asia/Kolkata', 'America/New_York']) {
      for (const bucket of ['hour', 'day', 'week', 'month'] as const) {
        it(`deletions in ${bucket} buckets in ${timeZone} count each hour in the bucket its start falls in`, async () => {
          const from = START + SPAN_DAYS * DAY;
          const to = bucket === 'hour' ? from + 4 * DAY : START + (SPAN_DAYS + 5) * DAY;
          const answer = await t.store.stats.deletionsOverTime(admin, {
            from: iso(from),
            to: iso(to),
            bucket,
            groupBy: 'origin',
            timeZone,
          });
          expect(answer.totals).toEqual({
            operations: deleted.length,
            sessions: deleted.length,
            messages: deleted.reduce((sum, one) => sum + one.messages, 0),
          });
          const starts = answer.buckets.map((b) => Date.parse(b.start));
          const expected = answer.buckets.map((one, index) => {
            const end = index + 1 < starts.length ? starts[index + 1] : Date.parse(answer.to);
            const inside = deleted.filter((d) => d.hour >= starts[index] && d.hour < end);
            const origins = [...new Set(inside.map((d) => d.origin))].sort();
            return {
              start: one.start,
              operations: inside.length,
              groups: origins.map((origin) => ({
                key: origin,
                messages: inside.filter((d) => d.origin === origin).reduce((sum, d) => sum + d.messages, 0),
              })),
            };
          });
          const actual = answer.buckets.map((one) => ({
            start: one.start,
            operations: one.total.operations,
            groups: one.groups.map(({ key, messages }) => ({ key, messages })).sort((a, b) => (a.key < b.key ? -1 : 1)),
          }));
          expect(actual).toEqual(expected);
          expect(actual.filter((one) => one.operations > 0).length).toBeGreaterThan(
            bucket === 'day' || bucket === 'hour' ? 2 : 0,
          );
        });
      }
    }

    for (const timeZone of ['UTC', 'Europe/Paris', 'America/New_York', 'Asia/Kolkata']) {
      for (const bucket of ['week', 'month'] as const) {
        it(`${bucket} buckets in ${timeZone} by source`, async () => {
          const range = { from: iso(START), to: iso(START + (SPAN_DAYS + 5) * DAY), groupBy: 'source', timeZone };
          const long = await t.store.stats.usageOverTime(admin, UsageQuerySchema.parse({ ...range, bucket }));
          const days = await t.store.stats.usageOverTime(
            admin,
            UsageQuerySchema.parse({ ...range, bucket: 'day', from: long.from, to: long.to }),
          );
          expect(long.totals).toEqual(days.totals);
          expect(long.totals.messages).toBeGreaterThan(40);
          const starts = long.buckets.map((b) => Date.parse(b.start));
          for (const [index, one] of long.buckets.entries()) {
            const end = index + 1 < starts.length ? starts[index + 1] : Date.parse(long.to);
            const inside = days.buckets.filter((day) => {
              const at = Date.parse(day.start);
              return at >= starts[index] && at < end;
            });
            const messages = inside.reduce((sum, day) => sum + day.total.messages, 0);
            const cost = inside.reduce((sum, day) => sum + day.total.costUsd, 0);
            expect({ start: one.start, messages: one.total.messages }).toEqual({ start: one.start, messages });
            expect(one.total.costUsd).toBeCloseTo(cost, 9);
            for (const group of one.groups) {
              const fromDays = inside.reduce(
                (sum, day) => sum + (day.groups.find((g) => g.key === group.key)?.messages ?? 0),
                0,
              );
              expect({ start: one.start, key: group.key, messages: group.messages }).toEqual({
                start: one.start,
                key: group.key,
                messages: fromDays,
              });
            }
          }
        });
      }
    }
  });
}
