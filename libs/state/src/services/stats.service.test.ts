import { UsageQuerySchema } from '@statehouse/contracts';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../db/migrator.js';
import { ManualClock } from '../shared/clock.js';
import { ValidationError } from '../shared/errors.js';
import {
  adminPrincipal,
  aSession,
  contextOf,
  memberPrincipal,
  TEST_DIALECTS,
  type TestStore,
  tokensOf,
} from '../testing/index.js';
import { useTestStore } from '../testing/suites.js';

const admin = contextOf(adminPrincipal);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Monday 2026-03-02 00:00 UTC: day buckets start here. */
const T0 = Date.UTC(2026, 2, 2);
const iso = (ms: number) => new Date(ms).toISOString();
const usageQuery = (query: Record<string, string>) => UsageQuerySchema.parse(query);

/** usage_daily must always equal session_usage summed per day (the triggers' invariant). */
async function assertDailyMatchesSessions(t: TestStore) {
  const { rows: daily } = await sql<Record<string, number | string>>`
    select day_start, profile, source, model, sum(messages) as messages, sum(sessions) as sessions,
      sum(conversations) as conversations, sum(input_tokens) as input_tokens, sum(cost_usd) as cost_usd
    from usage_daily group by day_start, profile, source, model
    having sum(messages) <> 0 or sum(sessions) <> 0 or sum(conversations) <> 0 or sum(input_tokens) <> 0 or sum(cost_usd) <> 0
    order by day_start, profile, source, model`.execute(t.store.db);
  const { rows: derived } = await sql<Record<string, number | string>>`
    select hour_start - hour_start % ${sql.lit(DAY)} as day_start, profile, source, model, sum(messages) as messages,
      sum(sessions) as sessions, sum(conversations) as conversations, sum(input_tokens) as input_tokens,
      sum(cost_usd) as cost_usd
    from session_usage group by hour_start - hour_start % ${sql.lit(DAY)}, profile, source, model
    having sum(messages) <> 0 or sum(sessions) <> 0 or sum(conversations) <> 0 or sum(input_tokens) <> 0 or sum(cost_usd) <> 0
    order by day_start, profile, source, model`.execute(t.store.db);
  const normalize = (rows: Record<string, number | string>[]) =>
    rows.map((row) =>
      Object.fromEntries(
        Object.entries(row).map(([k, v]) => [
          k,
          typeof v === 'string' && k !== 'profile' && k !== 'source' && k !== 'model'
            ? Number(v)
            : k.endsWith('usd')
              ? Math.round(Number(v) * 1e6)
              : v,
        ]),
      ),
    );
  expect(normalize(daily)).toEqual(normalize(derived));
}

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`usage and deletion stats on ${dialect}`, () => {
    const clock = new ManualClock(T0 + 9 * HOUR);
    const t = useTestStore(dialect, { clock });

    /** Creates a session at `at` with `count` user/assistant messages, one an hour apart from `at`. */
    const conversation = async (
      id: string,
      options: { profile: string; source: string; model?: string; at: number; messages: number; tokens?: number },
    ) => {
      clock.set(options.at);
      await aSession(t.store, {
        id,
        profile: options.profile,
        source: options.source,
        model: options.model,
      });
      for (let i = 0; i < options.messages; i++) {
        clock.set(options.at + i * HOUR + 60_000);
        await t.store.messages.append(admin, id, {
          messages: [{ role: i % 2 ? 'assistant' : 'user', content: `message ${i} of ${id}` }],
          usage: options.tokens ? { inputTokens: options.tokens, outputTokens: 1, estimatedCostUsd: 0.25 } : undefined,
        });
      }
    };

    beforeAll(async () => {
      // Day 0: alpha/cli/gpt 3 messages from 09:00; alpha/telegram/claude 2 messages from 23:00 (crosses midnight).
      await conversation('a1', {
        profile: 'alpha',
        source: 'cli',
        model: 'gpt',
        at: T0 + 9 * HOUR,
        messages: 3,
        tokens: 100,
      });
      await conversation('a2', {
        profile: 'alpha',
        source: 'telegram',
        model: 'claude',
        at: T0 + 23 * HOUR,
        messages: 2,
        tokens: 10,
      });
      // Day 2: beta/cli, no model, 4 messages.
      await conversation('b1', { profile: 'beta', source: 'cli', at: T0 + 2 * DAY + 5 * HOUR, messages: 4 });
      clock.set(T0 + 3 * DAY);
    });

    it('counts sessions, conversations, messages, tokens and cost in day buckets grouped by source', async () => {
      const usage = await t.store.stats.usageOverTime(
        admin,
        usageQuery({ from: iso(T0), to: iso(T0 + 3 * DAY), groupBy: 'source' }),
      );
      expect(usage.from).toBe(iso(T0));
      expect(usage.to).toBe(iso(T0 + 3 * DAY));
      expect(usage.buckets.map((b) => b.start)).toEqual([iso(T0), iso(T0 + DAY), iso(T0 + 2 * DAY)]);
      expect(usage.totals).toMatchObject({
        sessions: 3,
        conversations: 3,
        messages: 9,
        inputTokens: 3 * 100 + 2 * 10,
        outputTokens: 5,
        totalTokens: 325,
        costUsd: 1.25,
      });
      const [day0, day1, day2] = usage.buckets;
      // a2's second message is at 00:01 the next day.
      expect(day0.total).toMatchObject({ sessions: 2, messages: 4, inputTokens: 310 });
      expect(day1.total).toMatchObject({ sessions: 0, messages: 1, inputTokens: 10 });
      expect(day2.total).toMatchObject({ sessions: 1, messages: 4, inputTokens: 0 });
      expect(usage.groups.map((g) => [g.key, g.messages])).toEqual([
        ['cli', 7],
        ['telegram', 2],
      ]);
      expect(day0.groups.map((g) => [g.key, g.messages])).toEqual([
        ['cli', 3],
        ['telegram', 1],
      ]);
    });

    it('groups by model (null: none recorded) and by profile', async () => {
      const byModel = await t.store.stats.usageOverTime(
        admin,
        usageQuery({ from: iso(T0), to: iso(T0 + 3 * DAY), groupBy: 'model' }),
      );
      expect(byModel.groups.map((g) => [g.key, g.messages, g.inputTokens])).toEqual([
        [null, 4, 0],
        ['gpt', 3, 300],
        ['claude', 2, 20],
      ]);
      const byProfile = await t.store.stats.usageOverTime(
        admin,
        usageQuery({ from: iso(T0), to: iso(T0 + 3 * DAY), groupBy: 'profile' }),
      );
      expect(byProfile.groups.map((g) => [g.key, g.sessions, g.messages])).toEqual([
        ['alpha', 2, 5],
        ['beta', 1, 4],
      ]);
    });

    it('answers hour buckets, widening the range to whole hours', async () => {
      const usage = await t.store.stats.usageOverTime(
        admin,
        usageQuery({ bucket: 'hour', from: iso(T0 + 9 * HOUR + 30 * 60_000), to: iso(T0 + 12 * HOUR) }),
      );
      expect(usage.from).toBe(iso(T0 + 9 * HOUR));
      expect(usage.buckets.map((b) => b.total.messages)).toEqual([1, 1, 1]);
      expect(usage.buckets[0].total).toMatchObject({ sessions: 1, conversations: 1, inputTokens: 100 });
    });

    it('fences a member to its profiles; a foreign profile reads as empty', async () => {
      const member = contextOf(memberPrincipal(['beta']));
      const usage = await t.store.stats.usageOverTime(
        member,
        usageQuery({ from: iso(T0), to: iso(T0 + 3 * DAY), groupBy: 'profile' }),
      );
      expect(usage.groups.map((g) => g.key)).toEqual(['beta']);
      expect(usage.totals.messages).toBe(4);
      const foreign = await t.store.stats.usageOverTime(
        member,
        usageQuery({ from: iso(T0), to: iso(T0 + 3 * DAY), profile: 'alpha' }),
      );
      expect(foreign.totals.messages).toBe(0);
      expect(foreign.groups).toEqual([]);
      const summary = await t.store.stats.summary(member, { from: iso(T0), to: iso(T0 + 3 * DAY) });
      expect(summary.usage.messages).toBe(4);
    });

    it('answers an empty range with every bucket at zero', async () => {
      const usage = await t.store.stats.usageOverTime(
        admin,
        usageQuery({ from: iso(T0 - 10 * DAY), to: iso(T0 - 3 * DAY) }),
      );
      expect(usage.buckets).toHaveLength(7);
      expect(usage.buckets.every((b) => b.total.messages === 0 && b.groups.length === 0)).toBe(true);
      expect(usage.groups).toEqual([]);
      expect(usage.totals.sessions).toBe(0);
    });

    it('refuses ranges that are inverted or too long once defaults apply', async () => {
      await expect(
        t.store.stats.usageOverTime(admin, { bucket: 'day', groupBy: 'source', from: iso(T0 - 800 * DAY) }),
      ).rejects.toBeInstanceOf(ValidationError);
      await expect(
        t.store.stats.usageOverTime(admin, { bucket: 'hour', groupBy: 'source', from: iso(T0 - 40 * DAY) }),
      ).rejects.toBeInstanceOf(ValidationError);
      await expect(
        t.store.stats.usageOverTime(admin, { bucket: 'day', groupBy: 'source', to: iso(T0), from: iso(T0 + DAY) }),
      ).rejects.toBeInstanceOf(ValidationError);
    });

    it('sums a summary over whole days and the hours around them alike', async () => {
      // 09:00 day 0 → 01:00 day 1: a1's 3 messages, a2's 2 (23:01 and 00:01).
      const summary = await t.store.stats.summary(admin, { from: iso(T0 + 9 * HOUR), to: iso(T0 + DAY + HOUR) });
      expect(summary.usage).toMatchObject({ sessions: 2, messages: 5, inputTokens: 320 });
      // Whole days 0–2 plus edge hours on both sides.
      const wide = await t.store.stats.summary(admin, { from: iso(T0 - 5 * HOUR), to: iso(T0 + 2 * DAY + 7 * HOUR) });
      expect(wide.usage).toMatchObject({ sessions: 3, messages: 7 });
      expect(wide.activeNow.windowMinutes).toBe(15);
    });

    it('counts open sessions active in the last minutes and the busy ones', async () => {
      clock.set(T0 + 3 * DAY + HOUR);
      await aSession(t.store, { id: 'live', profile: 'alpha' });
      await t.store.turns.begin(admin, 'live', { holder: 'worker-1', ttlSeconds: 60 });
      const summary = await t.store.stats.summary(admin, {});
      expect(summary.activeNow).toMatchObject({ sessions: 1, busy: 1 });
      clock.advance(20 * 60_000);
      const later = await t.store.stats.summary(admin, {});
      expect(later.activeNow).toMatchObject({ sessions: 0, busy: 0 });
    });

    it('does not count copies made by branch and compression; counts their sessions', async () => {
      clock.set(T0 + 4 * DAY);
      await aSession(t.store, {
        id: 'copy-src',
        profile: 'gamma',
        messages: [
          { role: 'user', content: 'one' },
          { role: 'assistant', content: 'two' },
          { role: 'user', content: 'three' },
          { role: 'system', content: 'scaffolding', displayKind: 'hidden' },
        ],
      });
      await t.store.lineage.branch(admin, 'copy-src', { childId: 'copy-branch' }, await tokensOf(t.store, 'copy-src'));
      await t.store.lineage.compress(
        admin,
        'copy-src',
        { summary: 'summary', keepLastMessages: 2, childId: 'copy-cont' },
        await tokensOf(t.store, 'copy-src'),
      );
      const usage = await t.store.stats.usageOverTime(
        admin,
        usageQuery({ from: iso(T0 + 4 * DAY), to: iso(T0 + 5 * DAY), profile: 'gamma' }),
      );
      expect(usage.totals).toMatchObject({ messages: 3, sessions: 3, conversations: 2 });
    });

    it('removes a deleted session’s usage and charts the deletion by origin; reclaiming keeps the chart', async () => {
      clock.set(T0 + 6 * DAY + 2 * HOUR);
      await aSession(t.store, {
        id: 'doomed',
        profile: 'delta',
        source: 'slack',
        messages: [
          { role: 'user', content: 'short-lived' },
          { role: 'assistant', content: 'indeed' },
        ],
      });
      await t.store.messages.append(admin, 'doomed', {
        messages: [{ role: 'user', content: 'more' }],
        usage: { inputTokens: 50 },
      });
      const range = usageQuery({ from: iso(T0 + 6 * DAY), to: iso(T0 + 7 * DAY), profile: 'delta' });
      expect((await t.store.stats.usageOverTime(admin, range)).totals).toMatchObject({ messages: 3, inputTokens: 50 });
      const s = await t.store.sessions.get(admin, 'doomed');
      const deleted = await t.store.deletion.deleteOne(
        { ...admin, channel: 'dashboard' },
        'doomed',
        { includeCompressionChain: false, ifEmpty: false },
        { ifMatch: s.revision, expectedGeneration: s.generation },
      );
      const after = await t.store.stats.usageOverTime(admin, range);
      expect(after.totals).toMatchObject({ messages: 0, sessions: 0, inputTokens: 0 });
      expect(after.groups).toEqual([]);

      const deletions = await t.store.stats.deletionsOverTime(admin, {
        from: iso(T0 + 6 * DAY),
        to: iso(T0 + 7 * DAY),
        bucket: 'day',
        groupBy: 'origin',
      });
      expect(deletions.totals).toEqual({ operations: 1, sessions: 1, messages: 3 });
      expect(deletions.groups).toEqual([{ key: 'user_dashboard', operations: 1, sessions: 1, messages: 3 }]);
      expect(deletions.buckets[0].groups[0].key).toBe('user_dashboard');
      const byProfile = await t.store.stats.deletionsOverTime(admin, {
        from: iso(T0 + 6 * DAY),
        to: iso(T0 + 7 * DAY),
        bucket: 'hour',
        groupBy: 'profile',
      });
      expect(byProfile.buckets[2].groups).toEqual([{ key: 'delta', operations: 1, sessions: 1, messages: 3 }]);
      const member = contextOf(memberPrincipal(['alpha']));
      expect(
        (
          await t.store.stats.deletionsOverTime(member, {
            from: iso(T0 + 6 * DAY),
            to: iso(T0 + 7 * DAY),
            bucket: 'day',
            groupBy: 'origin',
          })
        ).totals.operations,
      ).toBe(0);

      await t.store.receipts.reclaim(admin, { throughSequence: deleted.receipt!.sequence, mode: 'force' });
      const kept = await t.store.stats.summary(admin, { from: iso(T0 + 6 * DAY), to: iso(T0 + 7 * DAY) });
      expect(kept.deletions).toEqual({ operations: 1, sessions: 1, messages: 3 });
      await assertDailyMatchesSessions(t);
    });

    it('[profiles.rename] moves usage with a profile rename and a session moved to another profile', async () => {
      clock.set(T0 + 8 * DAY);
      await conversation('r1', { profile: 'old-name', source: 'cli', at: T0 + 8 * DAY, messages: 2, tokens: 7 });
      await conversation('r2', { profile: 'old-name', source: 'cli', at: T0 + 8 * DAY + HOUR, messages: 1 });
      await t.store.profileAdmin.rename(admin, 'old-name', 'new-name');
      const range = { from: iso(T0 + 8 * DAY), to: iso(T0 + 9 * DAY), groupBy: 'profile' };
      let usage = await t.store.stats.usageOverTime(admin, usageQuery(range));
      expect(usage.groups.map((g) => [g.key, g.messages, g.inputTokens])).toEqual([['new-name', 3, 14]]);
      await aSession(t.store, { id: 'other-seed', profile: 'other' });
      await t.store.profileAdmin.move(admin, 'r2', 'other');
      usage = await t.store.stats.usageOverTime(admin, usageQuery(range));
      expect(usage.groups.map((g) => [g.key, g.messages, g.sessions])).toEqual([
        ['new-name', 2, 1],
        ['other', 1, 2],
      ]);
      await assertDailyMatchesSessions(t);
    });

    it('folds groups beyond the limit into "(other)"', async () => {
      clock.set(T0 + 10 * DAY);
      for (let i = 0; i < 15; i++) {
        await aSession(t.store, {
          id: `many-${i}`,
          profile: 'many',
          source: `src-${String(i).padStart(2, '0')}`,
          messages: Array.from({ length: 15 - i }, (_, n) => ({ role: 'user' as const, content: `m${n}` })),
        });
      }
      const usage = await t.store.stats.usageOverTime(
        admin,
        usageQuery({ from: iso(T0 + 10 * DAY), to: iso(T0 + 11 * DAY), profile: 'many' }),
      );
      expect(usage.groups).toHaveLength(13);
      expect(usage.groups.slice(0, 12).map((g) => g.key)).toEqual(
        Array.from({ length: 12 }, (_, i) => `src-${String(i).padStart(2, '0')}`),
      );
      expect(usage.groups[12]).toMatchObject({ key: '(other)', sessions: 3, messages: 3 + 2 + 1 });
      expect(usage.totals.messages).toBe((15 * 16) / 2);
    });

    it('lists known sources and models as facets, fenced', async () => {
      const facets = await t.store.stats.facets(admin, { profile: 'alpha' });
      expect(facets.sources).toEqual([
        { value: 'cli', sessions: 2 },
        { value: 'telegram', sessions: 1 },
      ]);
      expect(facets.models.map((m) => m.value).sort()).toEqual(['claude', 'gpt', null].sort());
      const member = contextOf(memberPrincipal(['beta']));
      expect((await t.store.stats.facets(member, {})).sources).toEqual([{ value: 'cli', sessions: 1 }]);
      expect((await t.store.stats.facets(member, { profile: 'alpha' })).sources).toEqual([]);
    });

    it('counts messages sent with older timestamps in their own hours, not in the hour they were written', async () => {
      clock.set(T0 + 20 * DAY + 12 * HOUR + 30 * 60_000);
      await aSession(t.store, { id: 'late', profile: 'late', model: 'gpt' });
      await t.store.messages.append(admin, 'late', {
        messages: [
          { role: 'user', content: 'from the night before', timestamp: T0 + 19 * DAY + 23 * HOUR },
          { role: 'assistant', content: 'still the night before', timestamp: T0 + 19 * DAY + 23 * HOUR + 60_000 },
          { role: 'user', content: 'this morning', timestamp: T0 + 20 * DAY + 8 * HOUR },
          { role: 'system', content: 'scaffolding', displayKind: 'hidden', timestamp: T0 + 20 * DAY + 9 * HOUR },
        ],
        usage: { inputTokens: 40, outputTokens: 4, estimatedCostUsd: 0.5 },
      });
      // One more, written now with no timestamp: counted in the write's hour.
      await t.store.messages.append(admin, 'late', { messages: [{ role: 'assistant', content: 'now' }] });
      const usage = await t.store.stats.usageOverTime(
        admin,
        usageQuery({ bucket: 'hour', from: iso(T0 + 19 * DAY), to: iso(T0 + 21 * DAY), profile: 'late' }),
      );
      const byHour = Object.fromEntries(
        usage.buckets
          .filter((b) => b.total.messages || b.total.inputTokens || b.total.sessions)
          .map((b) => [b.start, [b.total.messages, b.total.inputTokens, b.total.sessions]]),
      );
      expect(byHour).toEqual({
        [iso(T0 + 19 * DAY + 23 * HOUR)]: [2, 0, 0],
        // The usage goes with the append's last message (the hidden one at 09:00 is not a message).
        [iso(T0 + 20 * DAY + 8 * HOUR)]: [1, 0, 0],
        [iso(T0 + 20 * DAY + 9 * HOUR)]: [0, 40, 0],
        [iso(T0 + 20 * DAY + 12 * HOUR)]: [1, 0, 1],
      });
      await assertDailyMatchesSessions(t);
    });

    it('backfills the rollups of a store written before them: the same counts per day, the same token totals', async () => {
      const norm = (value: unknown) => Math.round(Number(value) * 1e6) / 1e6;
      const snapshot = async () => {
        const { rows: days } = await sql<Record<string, unknown>>`
          select day_start, profile, source, model, sum(sessions) as sessions, sum(conversations) as conversations,
            sum(messages) as messages from usage_daily group by day_start, profile, source, model
          having sum(sessions) <> 0 or sum(messages) <> 0 order by day_start, profile, source, model`.execute(
          t.store.db,
        );
        const { rows: tokens } = await sql<Record<string, unknown>>`
          select profile, sum(input_tokens) as input_tokens, sum(output_tokens) as output_tokens,
            sum(cost_usd) as cost_usd from usage_daily group by profile
          having sum(input_tokens) <> 0 order by profile`.execute(t.store.db);
        return {
          days: days.map((row) => [
            Number(row.day_start),
            row.profile,
            row.source,
            row.model,
            norm(row.sessions),
            norm(row.conversations),
            norm(row.messages),
          ]),
          tokens: tokens.map((row) => [
            row.profile,
            norm(row.input_tokens),
            norm(row.output_tokens),
            norm(row.cost_usd),
          ]),
        };
      };
      // Data without copies (the backfill tells a copy by its time, older than the segment holding it).
      await sql`delete from sessions where id in ('copy-branch', 'copy-cont', 'copy-src')`.execute(t.store.db);
      const recorded = await snapshot();
      expect(recorded.days.length).toBeGreaterThan(5);
      // Back to the schema before the rollups (what a store of the previous release has) …
      const { Migrator } = await import('kysely');
      const { migrationProvider } = await import('../db/migrator.js');
      const migrator = new Migrator({ db: t.store.db, provider: migrationProvider(dialect) });
      const down = await migrator.migrateTo('2026-11-29T23.00-search-trigger-when');
      expect(down.error).toBeUndefined();
      // … and forward again: the backfill rebuilds the rollups from sessions, messages and receipts.
      await migrateToLatest(t.store.db, dialect);
      expect(await snapshot()).toEqual(recorded);
      // The deletion chart is rebuilt from the receipts still there: the reclaimed delete is gone,
      // the profile-repair move's receipt remains.
      const { rows } = await sql<{ origin: string; operations: number; sessions: number }>`
        select origin, operations, sessions from deletion_rollups`.execute(t.store.db);
      expect(rows.map((row) => [row.origin, Number(row.operations), Number(row.sessions)])).toEqual([
        ['profile_repair', 1, 1],
      ]);
      await assertDailyMatchesSessions(t);
    });
  });
}
