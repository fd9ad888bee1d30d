import { ReplyLatencyQuerySchema } from '@statehouse/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latencyBucket, percentile, replyLatencies } from '../domain/reply-latency.js';
import { ManualClock } from '../shared/clock.js';
import {
  adminPrincipal,
  aSession,
  contextOf,
  memberPrincipal,
  openTestStore,
  TEST_DIALECTS,
  type TestStore,
} from '../testing/index.js';

const admin = contextOf(adminPrincipal);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Monday 2026-03-02 00:00 UTC. */
const T0 = Date.UTC(2026, 2, 2);
const iso = (ms: number) => new Date(ms).toISOString();
const latencyQuery = (query: Record<string, string>) => ReplyLatencyQuerySchema.parse(query);

describe('reply latency: the rule and the histogram', () => {
  it('[stats.reply-latency] a reply answers the latest visible, addressed user message before it', async () => {
    const rows = [
      { role: 'assistant', timestamp: 900, display_kind: 'visible' }, // answers the session's earlier message
      { role: 'user', timestamp: 1_000, display_kind: 'visible' },
      { role: 'user', timestamp: 1_200, display_kind: 'visible', observed: true }, // seen, not addressed
      { role: 'user', timestamp: 1_300, display_kind: 'hidden' }, // scaffolding
      { role: 'assistant', timestamp: 2_500, display_kind: 'visible' },
      { role: 'tool', timestamp: 2_600, display_kind: 'visible' },
      { role: 'assistant', timestamp: 4_000, display_kind: 'hidden' },
      { role: 'assistant', timestamp: 5_000, display_kind: 'visible' },
      { role: 'user', timestamp: 6_000, display_kind: 'visible' },
      { role: 'assistant', timestamp: 5_500, display_kind: 'visible' }, // stamped before its question
    ];
    let reads = 0;
    const latencies = await replyLatencies(rows, async () => {
      reads++;
      return 400;
    });
    expect(latencies).toEqual([500, null, null, null, 1_500, null, null, 4_000, null, null]);
    expect(reads).toBe(1);
    // Nothing earlier to answer: no latency, and the session is read only when a reply needs it.
    expect(
      await replyLatencies([{ role: 'assistant', timestamp: 1, display_kind: 'visible' }], async () => null),
    ).toEqual([null]);
  });

  it('[stats.reply-latency] buckets grow by 2^(1/4); percentiles are nearest-rank, placed between a bucket’s min and max', () => {
    expect(latencyBucket(0)).toBe(0);
    expect(latencyBucket(1)).toBe(1);
    expect(latencyBucket(1000)).toBe(40);
    // Bucket 40 is [2^(39/4), 2^10) ms: 861.08… to 1023 ms.
    expect(latencyBucket(861)).toBe(39);
    expect(latencyBucket(862)).toBe(40);
    expect(latencyBucket(1023)).toBe(40);
    expect(latencyBucket(1024)).toBe(41);
    const histogram = [
      { bucket: 40, replies: 3, minMs: 1_000, maxMs: 1_100 },
      { bucket: 54, replies: 1, minMs: 10_000, maxMs: 10_000 },
    ];
    expect(percentile(histogram, 0.25)).toBe(1_000);
    expect(percentile(histogram, 0.5)).toBe(1_050);
    expect(percentile(histogram, 0.75)).toBe(1_100);
    expect(percentile(histogram, 0.95)).toBe(10_000);
    expect(percentile([], 0.5)).toBeNull();
  });
});

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`reply latency and per-message cost on ${dialect}`, () => {
    let t: TestStore;
    const clock = new ManualClock(T0);

    /** A user message at `at`, then the assistant's reply `latency` ms later, each its own append. */
    const exchange = async (sessionId: string, at: number, latency: number, costUsd?: number) => {
      clock.set(at);
      await t.store.messages.append(admin, sessionId, { messages: [{ role: 'user', content: `question at ${at}` }] });
      clock.set(at + latency);
      await t.store.messages.append(admin, sessionId, {
        messages: [{ role: 'assistant', content: `answer after ${latency} ms` }],
        usage: costUsd === undefined ? { outputTokens: 10 } : { outputTokens: 10, estimatedCostUsd: costUsd },
      });
    };

    beforeAll(async () => {
      t = await openTestStore(dialect, { clock });
      await aSession(t.store, { id: 'tg', profile: 'alpha', source: 'telegram', model: 'sonnet' });
      await aSession(t.store, { id: 'cli', profile: 'alpha', source: 'cli', model: 'haiku' });
      await aSession(t.store, { id: 'beta', profile: 'beta', source: 'cli', model: 'haiku' });
      // Day 0 from 10:00 and day 1 from 10:00: sonnet on telegram 1, 2, 3, 4 and 10 s.
      await exchange('tg', T0 + 10 * HOUR, 1_000, 0.0125);
      await exchange('tg', T0 + 11 * HOUR, 2_000);
      await exchange('tg', T0 + 12 * HOUR, 3_000);
      await exchange('tg', T0 + DAY + 10 * HOUR, 4_000);
      await exchange('tg', T0 + DAY + 11 * HOUR, 10_000);
      // haiku on cli: 0.5, 0.5 and 0.8 s.
      await exchange('cli', T0 + 10 * HOUR, 500);
      await exchange('cli', T0 + 13 * HOUR, 500);
      await exchange('cli', T0 + DAY + 13 * HOUR, 800);
      // Another profile: a slow reply only its readers count.
      await exchange('beta', T0 + 10 * HOUR, 60_000);
    });
    afterAll(async () => t?.close());

    it('[stats.reply-latency] each reply carries its latency and the cost its append reported', async () => {
      const page = await t.store.messages.list(admin, 'tg', {
        limit: 4,
        includeCompacted: true,
        includeHidden: false,
        includeInactive: false,
        order: 'oldest',
      });
      expect(page.items.map((m) => [m.role, m.replyLatencyMs, m.costUsd])).toEqual([
        ['user', null, null],
        ['assistant', 1_000, 0.0125],
        ['user', null, null],
        ['assistant', 2_000, null],
      ]);
    });

    it('[stats.reply-latency] a reply written alone looks back past the messages only observed to the one it answers', async () => {
      await aSession(t.store, { id: 'lookback', profile: 'alpha', source: 'telegram', model: 'sonnet' });
      clock.set(T0 + 6 * DAY);
      const at = clock.now();
      const write = (message: Record<string, unknown>) =>
        t.store.messages.append(admin, 'lookback', { messages: [message as never] });
      await write({ role: 'user', content: 'can you check the logs?', timestamp: at });
      await write({ role: 'user', content: 'brb', timestamp: at + 1_000, observed: true });
      await write({ role: 'user', content: 'anyone?', timestamp: at + 2_000, observed: true });
      await write({ role: 'assistant', content: 'The logs are clean.', timestamp: at + 7_000 });
      const page = await t.store.messages.list(admin, 'lookback', {
        limit: 10,
        includeCompacted: true,
        includeHidden: false,
        includeInactive: false,
        order: 'oldest',
      });
      expect(page.items.map((m) => m.replyLatencyMs)).toEqual([null, null, null, 7_000]);

      // Nothing but observed messages before it: no question, no latency.
      await aSession(t.store, { id: 'lookback-none', profile: 'alpha', source: 'telegram' });
      await t.store.messages.append(admin, 'lookback-none', {
        messages: [{ role: 'user', content: 'just chatting', timestamp: at, observed: true }],
      });
      await t.store.messages.append(admin, 'lookback-none', {
        messages: [{ role: 'assistant', content: 'noted', timestamp: at + 500 }],
      });
      const none = await t.store.messages.list(admin, 'lookback-none', {
        limit: 10,
        includeCompacted: true,
        includeHidden: false,
        includeInactive: false,
        order: 'oldest',
      });
      expect(none.items.map((m) => m.replyLatencyMs)).toEqual([null, null]);
    });

    it('[stats.reply-latency] a batch: every reply from the user message it answers, the cost on the last reply', async () => {
      await aSession(t.store, { id: 'batch', profile: 'alpha', source: 'telegram', model: 'sonnet' });
      clock.set(T0 + 5 * DAY);
      const at = clock.now();
      await t.store.messages.append(admin, 'batch', {
        messages: [
          { role: 'user', content: 'what is the weather?', timestamp: at - 5_000 },
          { role: 'user', content: 'lunch?', timestamp: at - 4_000, observed: true },
          { role: 'assistant', content: '', toolCalls: [{ id: 'c1' }], timestamp: at - 3_500 },
          { role: 'tool', content: 'sunny', toolCallId: 'c1', timestamp: at - 3_000 },
          { role: 'assistant', content: 'Sunny.', timestamp: at - 2_600 },
        ],
        usage: { inputTokens: 40, estimatedCostUsd: 0.002 },
      });
      const page = await t.store.messages.list(admin, 'batch', {
        limit: 10,
        includeCompacted: true,
        includeHidden: false,
        includeInactive: false,
        order: 'oldest',
      });
      expect(page.items.map((m) => [m.role, m.replyLatencyMs, m.costUsd])).toEqual([
        ['user', null, null],
        ['user', null, null],
        ['assistant', 1_500, null],
        ['tool', null, null],
        ['assistant', 2_400, 0.002],
      ]);
      // A later append answers the same question until a new one is asked.
      clock.set(at + 1_000);
      await t.store.messages.append(admin, 'batch', { messages: [{ role: 'assistant', content: 'Anything else?' }] });
      const last = await t.store.messages.list(admin, 'batch', {
        limit: 1,
        includeCompacted: true,
        includeHidden: false,
        includeInactive: false,
        order: 'latest',
      });
      expect(last.items[0].replyLatencyMs).toBe(6_000);
    });

    it('[stats.reply-latency] p50 and p95 per model and per source over the period', async () => {
      const stats = await t.store.stats.replyLatency(admin, latencyQuery({ from: iso(T0), to: iso(T0 + 2 * DAY) }));
      expect(stats.from).toBe(iso(T0));
      expect(stats.to).toBe(iso(T0 + 2 * DAY));
      // Sonnet: 1, 2, 3, 4, 10 s → rank 3 and rank 5; haiku: 0.5, 0.5, 0.8 s; beta's 60 s.
      expect(stats.byModel).toEqual([
        { key: 'sonnet', replies: 5, p50Ms: 3_000, p95Ms: 10_000 },
        { key: 'haiku', replies: 4, p50Ms: 500, p95Ms: 60_000 },
      ]);
      expect(stats.bySource).toEqual([
        { key: 'telegram', replies: 5, p50Ms: 3_000, p95Ms: 10_000 },
        { key: 'cli', replies: 4, p50Ms: 500, p95Ms: 60_000 },
      ]);
      // All nine: 0.5, 0.5, 0.8, 1, 2, 3, 4, 10, 60 s → rank 5 and rank 9.
      expect(stats.overall).toEqual({ replies: 9, p50Ms: 2_000, p95Ms: 60_000 });
    });

    it('[stats.reply-latency] owner-fenced and narrowed to a profile, like every figure', async () => {
      const member = contextOf(memberPrincipal(['alpha']));
      const range = { from: iso(T0), to: iso(T0 + 2 * DAY) };
      const mine = await t.store.stats.replyLatency(member, latencyQuery(range));
      expect(mine.overall).toEqual({ replies: 8, p50Ms: 1_000, p95Ms: 10_000 });
      expect(mine.byModel.find((g) => g.key === 'haiku')).toEqual({ key: 'haiku', replies: 3, p50Ms: 500, p95Ms: 800 });
      const theirs = await t.store.stats.replyLatency(member, latencyQuery({ ...range, profile: 'beta' }));
      expect(theirs).toMatchObject({ profile: 'beta', overall: { replies: 0, p50Ms: null, p95Ms: null }, byModel: [] });
      const beta = await t.store.stats.replyLatency(admin, latencyQuery({ ...range, profile: 'beta' }));
      expect(beta.overall).toEqual({ replies: 1, p50Ms: 60_000, p95Ms: 60_000 });
    });

    it('[stats.reply-latency] a period that cuts days reads their hours: only the replies inside it count', async () => {
      // From day 0 12:00 to day 1 12:00: sonnet 3 s and 4 s, haiku 0.5 s (13:00) — not 10:00/11:00 of day 0, nor 13:00 of day 1.
      const stats = await t.store.stats.replyLatency(
        admin,
        latencyQuery({ from: iso(T0 + 12 * HOUR), to: iso(T0 + DAY + 12 * HOUR), profile: 'alpha' }),
      );
      expect(stats.byModel).toEqual([
        { key: 'sonnet', replies: 3, p50Ms: 4_000, p95Ms: 10_000 },
        { key: 'haiku', replies: 1, p50Ms: 500, p95Ms: 500 },
      ]);
      // Whole days only (the daily histogram): day 1.
      const day1 = await t.store.stats.replyLatency(
        admin,
        latencyQuery({ from: iso(T0 + DAY), to: iso(T0 + 2 * DAY), profile: 'alpha' }),
      );
      expect(day1.overall).toEqual({ replies: 3, p50Ms: 4_000, p95Ms: 10_000 });
    });

    it('[stats.reply-latency] the figures follow a profile rename', async () => {
      await t.store.profileAdmin.rename(admin, 'beta', 'gamma');
      const gamma = await t.store.stats.replyLatency(
        admin,
        latencyQuery({ from: iso(T0), to: iso(T0 + 2 * DAY), profile: 'gamma' }),
      );
      expect(gamma.overall).toEqual({ replies: 1, p50Ms: 60_000, p95Ms: 60_000 });
    });
  });
}
