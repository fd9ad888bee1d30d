import type { MessageInput } from '@statehouse/contracts';
import { ManualClock, type OperationContext, openStore, type StateStore, silentLogger } from '@statehouse/state';
import { sql } from 'kysely';
import type { BenchConfig } from './lib/config.js';
import { MessageFactory, PROFILES } from './lib/data.js';
import { fmtCount, fmtMs, fmtRatio, log, type Report } from './lib/report.js';
import { Rng } from './lib/rng.js';
import { ADMIN, ADMIN_CTX, type BenchStore, createPgDatabase, scratchDir } from './lib/stores.js';
import { msSince, nowNs, type Summary, sample, settle, summarize } from './lib/timing.js';

const DAY = 86_400_000;
const MINUTE = 60_000;
const SOURCES = ['cli', 'telegram', 'discord', 'slack', 'api_server'];
const MODELS = ['gpt-5', 'claude-sonnet-4.5', 'gemini-2.5-pro', 'llama-3.3-70b'];

export interface StatsTarget {
  dialect: 'SQLite' | 'PostgreSQL';
  figure: string;
  /** Opens a fresh store whose clock the build moves through the past 90 days. */
  open(clock: ManualClock): Promise<BenchStore>;
  analyze?(store: StateStore): Promise<void>;
}

export const statsSqliteTarget: StatsTarget = {
  dialect: 'SQLite',
  figure: '11',
  async open(clock) {
    const path = `${scratchDir()}/stats.db`;
    const store = await openStore({ url: `file:${path}`, logger: silentLogger, clock });
    return { store, location: path, close: () => store.close() };
  },
};

export function statsPgTarget(serverUrl: string): StatsTarget {
  return {
    dialect: 'PostgreSQL',
    figure: '11',
    async open(clock) {
      const database = await createPgDatabase(serverUrl, 'stats');
      const store = await openStore({ url: database.url, logger: silentLogger, clock });
      return {
        store,
        location: database.url,
        async close() {
          await store.close();
          await database.drop();
        },
      };
    },
    analyze: async (store) => {
      await sql`analyze`.execute(store.db);
    },
  };
}

/**
 * Sessions created and written through the store the way agents write it — one append of
 * `messagesPerSession` messages with usage each, at times drawn over `[from, now)` (the store's clock
 * moved to each write's time) — then 5 % deleted one by one (receipts; their usage leaves the rollups).
 */
async function writeHistory(
  store: StateStore,
  clock: ManualClock,
  plan: { sessions: number; messagesPerSession: number; from: number; now: number },
): Promise<{ ids: string[]; doomed: string[]; buildSeconds: number }> {
  const { sessions, messagesPerSession, from, now } = plan;
  const window = now - messagesPerSession * MINUTE - from;
  const rng = new Rng(11);
  const text = new MessageFactory(12);
  const started = nowNs();
  const ids: string[] = [];
  for (let i = 0; i < sessions; i++) {
    const at = from + Math.floor(rng.next() * window);
    clock.set(at);
    const id = `st-${i.toString(36).padStart(5, '0')}`;
    const model = rng.pick(MODELS);
    await store.sessions.create(ADMIN_CTX, {
      id,
      profile: PROFILES[rng.next() < 0.6 ? 0 : rng.next() < 0.5 ? 1 : 2],
      source: rng.pick(SOURCES),
      model,
    });
    const batch: MessageInput[] = text.messages(messagesPerSession).map((message, n) => ({
      ...message,
      timestamp: at + n * MINUTE,
    }));
    clock.set(at + messagesPerSession * MINUTE);
    await store.messages.append(ADMIN_CTX, id, {
      messages: batch,
      usage: {
        inputTokens: rng.int(2_000, 200_000),
        outputTokens: rng.int(200, 20_000),
        cacheReadTokens: rng.int(0, 100_000),
        estimatedCostUsd: rng.int(1, 5000) / 1000,
      },
    });
    ids.push(id);
    if ((i + 1) % Math.max(1, Math.floor(sessions / 10)) === 0) {
      log(`  ${fmtCount((i + 1) * messagesPerSession)} messages written (${(msSince(started) / 1000).toFixed(0)} s)`);
    }
  }
  const buildSeconds = msSince(started) / 1000;
  const doomed = ids.filter(() => rng.chance(0.05));
  for (const id of doomed) {
    const session = await store.sessions.get(ADMIN_CTX, id);
    clock.set(Date.parse(session.lastActivityAt) + rng.int(1, 5 * DAY));
    if (clock.now() > now) clock.set(now - MINUTE);
    await store.deletion.deleteOne(
      rng.chance(0.5) ? ADMIN_CTX : { ...ADMIN_CTX, channel: 'dashboard' },
      id,
      { includeCompressionChain: false, ifEmpty: false },
      { ifMatch: session.revision, expectedGeneration: session.generation },
    );
  }
  return { ids, doomed, buildSeconds };
}

/**
 * Figure 11 (SQLite and PostgreSQL): the overview's usage query over 90 days of daily buckets at 10⁶
 * messages, read from the rollups the appends maintained. The store is written the way agents
 * write it — sessions created and messages appended through the store, with usage, at times spread
 * over 90 days (the store's clock is moved to each write's time) — then a share of the sessions is
 * deleted one by one, so the deletions chart has receipts and the usage rollups have removals.
 */
export async function statsOverview(report: Report, config: BenchConfig, target: StatsTarget): Promise<void> {
  const { messages: totalMessages, messagesPerSession, iterations } = config.stats;
  const sessions = Math.round(totalMessages / messagesPerSession);
  const now = Date.UTC(2026, 10, 30, 12);
  const clock = new ManualClock(now - 90 * DAY);
  report.section(
    `Usage overview at ${fmtCount(totalMessages)} messages (${target.dialect})`,
    `${fmtCount(sessions)} sessions in ${PROFILES.length} profiles on ${SOURCES.length} surfaces with ` +
      `${MODELS.length} models, each created and then written by one append of ${messagesPerSession} messages ` +
      'with its usage (the append path that keeps the rollups), at a time drawn over the last 90 days; then 5 % of ' +
      'the sessions are deleted one by one (receipts, and their usage leaves the rollups). The queries are the ' +
      'services behind `GET /v1/stats/usage`, `/summary` and `/deletions`, timed call by call after warm-up.',
  );
  const file = await target.open(clock);
  const store = file.store;
  try {
    // 90 whole UTC days, the last one today's; every write falls inside them.
    const from = new Date(Math.floor(now / DAY) * DAY - 89 * DAY).toISOString();
    const to = new Date(Math.floor(now / DAY) * DAY + DAY).toISOString();
    const { doomed, buildSeconds } = await writeHistory(store, clock, {
      sessions,
      messagesPerSession,
      from: Date.parse(from),
      now,
    });
    clock.set(now);
    await target.analyze?.(store);
    const rollupRows = async (table: 'session_usage' | 'usage_daily' | 'deletion_rollups') =>
      Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(store.db)).rows[0].n);
    const sizes = {
      sessionUsage: await rollupRows('session_usage'),
      daily: await rollupRows('usage_daily'),
      deletions: await rollupRows('deletion_rollups'),
    };
    log(
      `  built in ${buildSeconds.toFixed(0)} s; ${fmtCount(doomed.length)} sessions deleted; rollup rows: ` +
        `session_usage ${fmtCount(sizes.sessionUsage)}, usage_daily ${fmtCount(sizes.daily)}, deletion_rollups ${fmtCount(sizes.deletions)}`,
    );

    const member: OperationContext = {
      principal: { ...ADMIN, id: 'bench-member', role: 'member', profiles: ['work'] },
      channel: 'api',
    };
    const check = await store.stats.usageOverTime(ADMIN_CTX, {
      from,
      to,
      bucket: 'day',
      groupBy: 'source',
      timeZone: 'UTC',
    });
    const expectedMessages = (sessions - doomed.length) * messagesPerSession;
    const visible = check.totals.messages;
    // Tool rows and hidden rows are not counted as messages; every session wrote the same mix.
    if (check.buckets.length !== 90 || visible <= 0 || visible > expectedMessages) {
      throw new Error(`usage check failed: ${check.buckets.length} buckets, ${visible} messages`);
    }
    if (check.totals.sessions !== sessions - doomed.length) {
      throw new Error(`usage check failed: ${check.totals.sessions} sessions, expected ${sessions - doomed.length}`);
    }
    await settle();
    const time = async (fn: () => Promise<unknown>): Promise<Summary> => summarize(await sample(iterations, fn));
    const add = report.table(
      `Overview queries at ${fmtCount(totalMessages)} messages (${target.dialect})`,
      ['query', 'p50', 'p95', 'answer'],
      `Rollup rows after the build: \`session_usage\` ${fmtCount(sizes.sessionUsage)}, \`usage_daily\` ` +
        `${fmtCount(sizes.daily)}, \`deletion_rollups\` ${fmtCount(sizes.deletions)}. Build (through the store): ` +
        `${buildSeconds.toFixed(0)} s.`,
    );
    const figures: { name: string; summary: Summary; answer: string }[] = [];
    const measure = async (name: string, fn: () => Promise<unknown>, answer: (result: unknown) => string) => {
      const summary = await time(fn);
      const result = await fn();
      figures.push({ name, summary, answer: answer(result) });
      add([name, fmtMs(summary.p50), fmtMs(summary.p95), answer(result)]);
      return summary;
    };
    type Usage = Awaited<ReturnType<StateStore['stats']['usageOverTime']>>;
    const usageAnswer = (result: unknown) => {
      const usage = result as Usage;
      return `${usage.buckets.length} buckets × ${usage.groups.length} groups, ${fmtCount(usage.totals.messages)} messages`;
    };
    const headline = await measure(
      '90 days, day buckets, by source (admin)',
      () => store.stats.usageOverTime(ADMIN_CTX, { from, to, bucket: 'day', groupBy: 'source', timeZone: 'UTC' }),
      usageAnswer,
    );
    await measure(
      '90 days, day buckets, by model (admin)',
      () => store.stats.usageOverTime(ADMIN_CTX, { from, to, bucket: 'day', groupBy: 'model', timeZone: 'UTC' }),
      usageAnswer,
    );
    await measure(
      '90 days, day buckets, by profile (admin)',
      () => store.stats.usageOverTime(ADMIN_CTX, { from, to, bucket: 'day', groupBy: 'profile', timeZone: 'UTC' }),
      usageAnswer,
    );
    await measure(
      '90 days, day buckets, by source (member of one profile)',
      () => store.stats.usageOverTime(member, { from, to, bucket: 'day', groupBy: 'source', timeZone: 'UTC' }),
      usageAnswer,
    );
    await measure(
      '7 days, hour buckets, by model (admin)',
      () =>
        store.stats.usageOverTime(ADMIN_CTX, {
          from: new Date(now - 7 * DAY).toISOString(),
          to,
          bucket: 'hour',
          groupBy: 'model',
          timeZone: 'UTC',
        }),
      usageAnswer,
    );
    await measure(
      'summary cards, 30 days (admin)',
      () => store.stats.summary(ADMIN_CTX, { from: new Date(now - 30 * DAY + 7 * 3_600_000).toISOString(), to }),
      (result) => `${fmtCount((result as { usage: { messages: number } }).usage.messages)} messages`,
    );
    type Latency = Awaited<ReturnType<StateStore['stats']['replyLatency']>>;
    const latencyAnswer = (result: unknown) => {
      const latency = result as Latency;
      return (
        `${fmtCount(latency.overall.replies)} replies, ${latency.byModel.length} models × ` +
        `${latency.bySource.length} sources; p50 ${latency.overall.p50Ms} ms, p95 ${latency.overall.p95Ms} ms`
      );
    };
    await measure(
      'reply latency p50/p95 by model and source, 90 days (admin)',
      () => store.stats.replyLatency(ADMIN_CTX, { from, to }),
      latencyAnswer,
    );
    await measure(
      'reply latency p50/p95, 30 days from 07:00 (days and edge hours, admin)',
      () => store.stats.replyLatency(ADMIN_CTX, { from: new Date(now - 30 * DAY + 7 * 3_600_000).toISOString(), to }),
      latencyAnswer,
    );
    await measure(
      '90 days of deletions, day buckets, by origin (admin)',
      () => store.stats.deletionsOverTime(ADMIN_CTX, { from, to, bucket: 'day', groupBy: 'origin', timeZone: 'UTC' }),
      (result) => `${fmtCount((result as { totals: { operations: number } }).totals.operations)} receipts`,
    );
    // What the chart would cost without rollups: the same figure aggregated from the messages.
    const rawSql = sql<{ day: number; source: string; n: number }>`
      select m.timestamp - m.timestamp % ${sql.lit(DAY)} as day, s.source, count(*) as n
      from messages m join sessions s on s.id = m.session_id
      where m.timestamp >= ${Date.parse(from)} and m.timestamp < ${Date.parse(to)} and m.display_kind = 'visible'
      group by m.timestamp - m.timestamp % ${sql.lit(DAY)}, s.source`;
    const raw = summarize(await sample(Math.min(5, iterations), () => rawSql.execute(store.db), 1));
    add([
      'without rollups: messages per day and source aggregated from `messages` (for comparison)',
      fmtMs(raw.p50),
      fmtMs(raw.p95),
      `${fmtRatio(raw.p50 / headline.p50)} the rollup query`,
    ]);
    const sqlite = target.dialect === 'SQLite';
    report.target({
      figure: `${target.figure}. usage query, 90 days of day buckets by source, ${fmtCount(totalMessages)} messages, ${target.dialect}`,
      ours: `${fmtMs(headline.p50)} p50 (${fmtMs(headline.p95)} p95)`,
      ceiling: `${fmtMs(raw.p50)} (aggregating messages)`,
      ratio: fmtRatio(headline.p50 / raw.p50),
      target: sqlite ? '≤ 50 ms p50 (issue)' : 'report only',
      met: sqlite ? headline.p50 <= 50 : null,
    });
    report.note(
      `**Usage overview (${target.figure}, ${target.dialect})**: the chart reads \`usage_daily\` (one row per day, ` +
        'profile, surface and model, kept by triggers from the per-session `session_usage` rows the appends write in ' +
        `their transaction): ${fmtMs(headline.p50)} p50 for 90 day buckets at ${fmtCount(totalMessages)} messages, ` +
        `against ${fmtMs(raw.p50)} to aggregate the same figure from the messages themselves.`,
    );
  } finally {
    await file.close();
  }
}

/**
 * Figure 11b (SQLite): the overview over all time — years of history, as an import brings — at 10⁶
 * messages, in a time zone whose midnights are not UTC's (Europe/Paris, with its summer time). The
 * same writes as figure 11, spread over three years instead of 90 days; the queries are what the
 * dashboard's "all time" period asks: the extent, then month (or week) buckets from its first day.
 */
export async function statsAllTime(report: Report, config: BenchConfig, target: StatsTarget): Promise<void> {
  const { messages: totalMessages, messagesPerSession, iterations } = config.stats;
  const sessions = Math.round(totalMessages / messagesPerSession);
  const years = 3;
  const now = Date.UTC(2026, 10, 30, 12);
  const start = now - years * 365 * DAY;
  const clock = new ManualClock(start);
  report.section(
    `Usage overview over all time at ${fmtCount(totalMessages)} messages (${target.dialect})`,
    `The writes of the usage overview part (${fmtCount(sessions)} sessions of ${messagesPerSession} messages with ` +
      `usage, through the store; then 5 % deleted), spread over ${years} years instead of 90 days. The queries are ` +
      'what the dashboard\u2019s "all time" period asks, in the time zone Europe/Paris (local midnights are 23:00 or ' +
      '22:00 UTC): `GET /v1/stats/extent`, then usage and deletions from its first day in month or week buckets, ' +
      'and the summary cards over the same range. Timed call by call after warm-up.',
  );
  const file = await target.open(clock);
  const store = file.store;
  try {
    const { doomed, buildSeconds } = await writeHistory(store, clock, {
      sessions,
      messagesPerSession,
      from: start,
      now,
    });
    clock.set(now);
    await target.analyze?.(store);
    const extent = await store.stats.extent(ADMIN_CTX, {});
    if (!extent.first) throw new Error('all-time check failed: no extent');
    const from = extent.first;
    const to = new Date(now).toISOString();
    const timeZone = 'Europe/Paris';
    const check = await store.stats.usageOverTime(ADMIN_CTX, {
      from,
      to,
      bucket: 'month',
      groupBy: 'source',
      timeZone,
    });
    if (check.totals.sessions !== sessions - doomed.length || check.buckets.length < years * 12) {
      throw new Error(`all-time check failed: ${check.totals.sessions} sessions in ${check.buckets.length} buckets`);
    }
    log(`  built in ${buildSeconds.toFixed(0)} s; extent ${extent.first} → ${extent.last}`);
    await settle();
    const add = report.table(
      `All-time overview queries at ${fmtCount(totalMessages)} messages, Europe/Paris (${target.dialect})`,
      ['query', 'p50', 'p95', 'answer'],
      `History from ${extent.first.slice(0, 10)} to ${extent.last?.slice(0, 10)}. Build (through the store): ${buildSeconds.toFixed(0)} s.`,
    );
    type Usage = Awaited<ReturnType<StateStore['stats']['usageOverTime']>>;
    const usageAnswer = (result: unknown) => {
      const usage = result as Usage;
      return `${usage.buckets.length} buckets × ${usage.groups.length} groups, ${fmtCount(usage.totals.messages)} messages`;
    };
    const measure = async (name: string, fn: () => Promise<unknown>, answer: (result: unknown) => string) => {
      const summary = summarize(await sample(iterations, fn));
      add([name, fmtMs(summary.p50), fmtMs(summary.p95), answer(await fn())]);
      return summary;
    };
    await measure(
      'extent (where "all time" begins)',
      () => store.stats.extent(ADMIN_CTX, {}),
      (result) => String((result as { first: string }).first),
    );
    const headline = await measure(
      'all time, month buckets, by source (admin)',
      () => store.stats.usageOverTime(ADMIN_CTX, { from, to, bucket: 'month', groupBy: 'source', timeZone }),
      usageAnswer,
    );
    await measure(
      'all time, month buckets, by source, UTC (admin)',
      () => store.stats.usageOverTime(ADMIN_CTX, { from, to, bucket: 'month', groupBy: 'source', timeZone: 'UTC' }),
      usageAnswer,
    );
    await measure(
      'all time, week buckets, by model (admin)',
      () => store.stats.usageOverTime(ADMIN_CTX, { from, to, bucket: 'week', groupBy: 'model', timeZone }),
      usageAnswer,
    );
    const member: OperationContext = {
      principal: { ...ADMIN, id: 'bench-member', role: 'member', profiles: ['work'] },
      channel: 'api',
    };
    await measure(
      'all time, month buckets, by source (member of one profile)',
      () => store.stats.usageOverTime(member, { from, to, bucket: 'month', groupBy: 'source', timeZone }),
      usageAnswer,
    );
    await measure(
      'last 90 days, day buckets, by source (admin; every day read by the hour)',
      () =>
        store.stats.usageOverTime(ADMIN_CTX, {
          from: new Date(now - 90 * DAY).toISOString(),
          to,
          bucket: 'day',
          groupBy: 'source',
          timeZone,
        }),
      usageAnswer,
    );
    await measure(
      'summary cards, all time (admin)',
      () => store.stats.summary(ADMIN_CTX, { from, to }),
      (result) => `${fmtCount((result as { usage: { messages: number } }).usage.messages)} messages`,
    );
    await measure(
      'all time of deletions, month buckets, by origin (admin)',
      () => store.stats.deletionsOverTime(ADMIN_CTX, { from, to, bucket: 'month', groupBy: 'origin', timeZone }),
      (result) => `${fmtCount((result as { totals: { operations: number } }).totals.operations)} receipts`,
    );
    const sqlite = target.dialect === 'SQLite';
    report.target({
      figure: `${target.figure}b. usage query, all time (${years} years) of month buckets in Europe/Paris by source, ${fmtCount(totalMessages)} messages, ${target.dialect}`,
      ours: `${fmtMs(headline.p50)} p50 (${fmtMs(headline.p95)} p95)`,
      ceiling: '—',
      ratio: '—',
      target: sqlite ? '≤ 50 ms p50 (as figure 11)' : 'report only',
      met: sqlite ? headline.p50 <= 50 : null,
    });
  } finally {
    await file.close();
  }
}
