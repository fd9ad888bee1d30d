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
      clock.set(START + (SPAN_DAYS + 10) * DAY);
    });

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
