import { ListSessionsQuerySchema, type SessionListItem, type SessionOrder } from '@statehouse/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.js';
import { ValidationError } from '../shared/errors.js';
import { adminPrincipal, contextOf, memberPrincipal, TEST_DIALECTS } from '../testing/index.js';
import { useTestStore } from '../testing/suites.js';

const admin = contextOf(adminPrincipal);
const PROFILES = ['sort-a', 'sort-b'];
const ROWS = 23;
const T0 = Date.UTC(2026, 5, 1);
const MINUTE = 60_000;

/** Counters with ties (so the id decides), a fractional cost, open and ended rows. */
const rows = Array.from({ length: ROWS }, (_, i) => ({
  id: `sort-${String(i).padStart(3, '0')}`,
  profile: PROFILES[i % 2],
  source: 'cli',
  created_source: 'cli',
  started_at: T0 + i * MINUTE,
  last_activity_at: T0 + i * MINUTE + ((i * 7) % 11) * MINUTE,
  ended_at: i % 3 === 0 ? T0 + i * MINUTE + ((i * 5) % 13) * MINUTE : null,
  message_count: i % 5,
  input_tokens: (i % 4) * 1000,
  output_tokens: (i % 3) * 10,
  estimated_cost_usd: (i % 6) * 0.125 + 0.001,
}));

type Row = (typeof rows)[number];
const key: Record<SessionOrder, (row: Row) => number> = {
  recent: (row) => row.last_activity_at,
  started: (row) => row.started_at,
  messages: (row) => row.message_count,
  tokens: (row) => row.input_tokens + row.output_tokens,
  cost: (row) => row.estimated_cost_usd,
  duration: (row) => (row.ended_at ?? row.last_activity_at) - row.started_at,
};
const expected = (order: SessionOrder, keep: (row: Row) => boolean = () => true) =>
  rows
    .filter(keep)
    .sort((a, b) => key[order](b) - key[order](a) || (a.id < b.id ? 1 : -1))
    .map((row) => row.id);

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`sessions list sorts and counter filters on ${dialect}`, () => {
    const t = useTestStore(dialect, { clock: new ManualClock(T0 + 60 * MINUTE) });
    const list = (ctx: typeof admin, query: Record<string, unknown>) =>
      t.store.sessions.list(ctx, ListSessionsQuerySchema.parse(query));

    /** Every page forward, then every page back from the last: the same rows both ways, none twice. */
    async function walk(ctx: typeof admin, query: Record<string, unknown>): Promise<string[]> {
      const pages: SessionListItem[][] = [];
      let page = await list(ctx, { ...query, limit: 4 });
      pages.push(page.items);
      while (page.nextCursor) {
        page = await list(ctx, { ...query, limit: 4, cursor: page.nextCursor });
        pages.push(page.items);
      }
      const forward = pages.flat().map((item) => item.id);
      const back: string[][] = [pages[pages.length - 1].map((item) => item.id)];
      while (page.prevCursor) {
        page = await list(ctx, { ...query, limit: 4, cursor: page.prevCursor });
        back.unshift(page.items.map((item) => item.id));
      }
      expect(back.flat()).toEqual(forward);
      return forward;
    }

    beforeAll(async () => {
      await t.store.db
        .insertInto('profiles')
        .values(PROFILES.map((name) => ({ name, created_at: T0 })))
        .onConflict((oc) => oc.doNothing())
        .execute();
      await t.store.db.insertInto('sessions').values(rows).execute();
    });

    for (const order of ['recent', 'started', 'messages', 'tokens', 'cost', 'duration'] as const) {
      it(`sorts by ${order}, largest first, ties by id; cursors page both ways (admin and a two-profile member)`, async () => {
        expect(await walk(admin, { order })).toEqual(expected(order));
        const member = contextOf(memberPrincipal(PROFILES));
        expect(await walk(member, { order })).toEqual(expected(order));
        expect(await walk(admin, { order, profile: 'sort-b' })).toEqual(
          expected(order, (row) => row.profile === 'sort-b'),
        );
      });
    }

    it('filters by tokens, cost and message counts, sorted and paged alike', async () => {
      const keep = (row: Row) =>
        row.input_tokens + row.output_tokens >= 1000 &&
        row.input_tokens + row.output_tokens <= 2010 &&
        row.estimated_cost_usd >= 0.25 &&
        row.message_count <= 3;
      const ids = await walk(admin, {
        order: 'cost',
        minTokens: '1000',
        maxTokens: '2010',
        minCostUsd: '0.25',
        maxMessages: '3',
      });
      expect(ids.length).toBeGreaterThan(2);
      expect(ids).toEqual(expected('cost', keep));
      const page = await list(admin, { maxCostUsd: '0.2', minMessages: '2' });
      expect(page.items.map((item) => item.id).sort()).toEqual(
        rows
          .filter((row) => row.estimated_cost_usd <= 0.2 && row.message_count >= 2)
          .map((row) => row.id)
          .sort(),
      );
      expect(page.total).toEqual({ count: page.items.length, exact: true });
    });

    it('refuses a cursor made under another order', async () => {
      const byCost = await list(admin, { order: 'cost', limit: 2 });
      await expect(list(admin, { order: 'tokens', cursor: byCost.nextCursor })).rejects.toBeInstanceOf(ValidationError);
      const byRecent = await list(admin, { order: 'recent', limit: 2 });
      await expect(list(admin, { order: 'messages', cursor: byRecent.nextCursor })).rejects.toBeInstanceOf(
        ValidationError,
      );
    });
  });
}
