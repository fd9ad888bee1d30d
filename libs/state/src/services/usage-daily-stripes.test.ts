import { UsageQuerySchema } from '@statehouse/contracts';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationProvider } from '../db/migrator.js';
import { UsageRollupRepository } from '../repositories/usage-rollup.repository.js';
import { ManualClock } from '../shared/clock.js';
import { adminPrincipal, aSession, contextOf, openTestStore, TEST_PG_URL, type TestStore } from '../testing/index.js';
import { INDEX_MAINTENANCE_JOB } from './index-maintenance.service.js';

/**
 * PostgreSQL only: `usage_daily` stripes (migration 2026-12-01T03.10). SQLite has one writer, so
 * appends never waited on each other's rollup row there and the table has no stripes.
 */
const admin = contextOf(adminPrincipal);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Thursday 2026-03-05 00:00 UTC. */
const T0 = Date.UTC(2026, 2, 5);
const iso = (ms: number) => new Date(ms).toISOString();
const STRIPES_MIGRATION = '2026-12-01T03.10-usage-daily-stripes';

const sleep = (ms: number) => new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), ms));

describe.skipIf(!TEST_PG_URL)('usage_daily stripes on postgres', () => {
  let t: TestStore;
  const clock = new ManualClock(T0 + 12 * HOUR);

  beforeAll(async () => {
    t = await openTestStore('postgres', { clock });
  });
  afterAll(async () => t?.close());

  /** A raw connection of its own (the store's pool is not used), closed by the caller. */
  const connect = async () => {
    const client = new pg.Client({ connectionString: t.url });
    await client.connect();
    return client;
  };

  /** usage_daily summed per key against session_usage summed per day (the triggers' invariant). */
  const dailyAgainstSessions = async () => {
    const counters = 'conversations, sessions, messages, input_tokens, output_tokens, reasoning_tokens, cost_usd';
    const sums = counters
      .split(', ')
      .map((c) => `sum(${c})::${c === 'cost_usd' ? 'numeric(20,6)' : 'bigint'}::text as ${c}`)
      .join(', ');
    const { rows: daily } = await sql<Record<string, string>>`
      select day_start::text, profile, source, model, ${sql.raw(sums)}
      from usage_daily group by day_start, profile, source, model
      order by day_start, profile, source, model`.execute(t.store.db);
    const { rows: derived } = await sql<Record<string, string>>`
      select (hour_start - hour_start % ${sql.lit(DAY)})::text as day_start, profile, source, model, ${sql.raw(sums)}
      from session_usage group by 1, profile, source, model
      order by 1, profile, source, model`.execute(t.store.db);
    // A key whose sessions are all gone keeps a row of zeros in usage_daily (as before the stripes).
    const nonZero = (rows: Record<string, string>[]) =>
      rows.filter((row) => counters.split(', ').some((c) => Number(row[c]) !== 0));
    return { daily: nonZero(daily), derived: nonZero(derived) };
  };

  /** Distinct keys and rows of usage_daily. */
  const shape = async () => {
    const { rows } = await sql<{ keys: string; rows: string }>`
      select count(distinct (day_start, profile, source, model))::text as keys, count(*)::text as rows
      from usage_daily`.execute(t.store.db);
    return { keys: Number(rows[0].keys), rows: Number(rows[0].rows) };
  };

  it('an append completes while another transaction holds the rollup row of the same day, profile, surface and model', async () => {
    await aSession(t.store, { id: 'held', profile: 'stripes', model: 'm' });
    await aSession(t.store, { id: 'free', profile: 'stripes', model: 'm' });
    await t.store.messages.append(admin, 'held', { messages: [{ role: 'user', content: 'first' }] });

    // The holder: what an append does to the rollups (the session counters move, the
    // session_usage trigger adds to usage_daily), left uncommitted so its row lock stays held.
    const holder = await connect();
    try {
      await holder.query('begin');
      await holder.query(
        `update sessions set message_count = message_count + 1, revision = revision + 1,
           last_activity_at = $1 where id = 'held'`,
        [clock.now()],
      );
      const held = await holder.query(
        `select count(*)::int as n from usage_daily
         where day_start = $1 and profile = 'stripes' and source = 'cli' and model = 'm'`,
        [T0],
      );
      expect(held.rows[0].n).toBeGreaterThan(0);

      // Before the stripes this append waited for the holder to commit (it upserted the same row).
      const appended = t.store.messages.append(admin, 'free', { messages: [{ role: 'user', content: 'second' }] });
      const first = await Promise.race([appended.then(() => 'appended' as const), sleep(3000)]);
      expect(first).toBe('appended');

      await holder.query('commit');
      await appended;
    } finally {
      await holder.query('rollback').catch(() => undefined);
      await holder.end();
    }
    // The key now has two rows (the holder's and the one the append took), summing to every append.
    const { rows } = await sql<{ stripe: number; messages: string }>`
      select stripe, messages from usage_daily
      where day_start = ${T0} and profile = 'stripes' and source = 'cli' and model = 'm' order by stripe`.execute(
      t.store.db,
    );
    expect(rows.length).toBeGreaterThan(1);
    expect(rows.reduce((sum, row) => sum + Number(row.messages), 0)).toBe(3);
    const usage = await t.store.stats.usageOverTime(
      admin,
      UsageQuerySchema.parse({ from: iso(T0), to: iso(T0 + DAY), profile: 'stripes', groupBy: 'model' }),
    );
    expect(usage.totals).toMatchObject({ messages: 3, sessions: 2 });
  });

  it('keeps every figure equal to its sources under concurrent appends, creates, moves and deletes', async () => {
    const profiles = ['mix-a', 'mix-b'];
    const sources = ['cli', 'telegram'];
    const ids = Array.from({ length: 24 }, (_, i) => `mix-${i}`);
    const profileOf = (i: number) => profiles[i % 2];
    for (const [i, id] of ids.entries()) {
      await aSession(t.store, {
        id,
        profile: profileOf(i),
        source: sources[Math.floor(i / 2) % 2],
        model: i % 3 === 0 ? undefined : 'gpt',
      });
    }
    // A transaction holding one stripe of the busiest key the whole time, so appends spread (it
    // adds tokens the way an append does, without a message).
    const holder = await connect();
    await holder.query('begin');
    await holder.query(
      `update sessions set revision = revision + 1, input_tokens = input_tokens + 5, last_activity_at = $1
       where id = 'mix-0'`,
      [clock.now()],
    );
    const append = (id: string, n: number) =>
      t.store.messages.append(admin, id, {
        messages: [{ role: 'user', content: `append ${n} to ${id}` }],
        usage: { inputTokens: n, outputTokens: 1, estimatedCostUsd: 0.1 },
      });
    const work: Promise<unknown>[] = [];
    for (let round = 0; round < 6; round++) {
      for (const [i, id] of ids.entries()) if (i !== 0) work.push(append(id, round * 10 + i));
      // New sessions appear while the appends run.
      work.push(
        t.store.sessions
          .create(admin, { id: `mix-new-${round}`, profile: profileOf(round), source: 'cli', model: 'gpt' })
          .then(() => append(`mix-new-${round}`, 7)),
      );
    }
    const settled = await Promise.race([Promise.allSettled(work), sleep(20_000)]);
    expect(settled).not.toBe('timeout');
    await holder.query('commit');
    await holder.end();
    expect((settled as PromiseSettledResult<unknown>[]).filter((r) => r.status === 'rejected')).toEqual([]);

    // Profile moves and deletes, concurrently with more appends.
    const removeSession = async (id: string) => {
      const session = await t.store.sessions.get(admin, id);
      await t.store.deletion.deleteOne(
        admin,
        id,
        { includeCompressionChain: false, ifEmpty: false },
        { ifMatch: session.revision, expectedGeneration: session.generation },
      );
    };
    const second: Promise<unknown>[] = [
      t.store.profileAdmin.move(admin, 'mix-2', 'mix-b'),
      t.store.profileAdmin.move(admin, 'mix-5', 'mix-a'),
      removeSession('mix-4'),
      removeSession('mix-7'),
      removeSession('mix-new-1'),
    ];
    for (const [i, id] of ids.entries()) if (![0, 2, 4, 5, 7].includes(i)) second.push(append(id, 100 + i));
    const results = await Promise.allSettled(second);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);

    const before = await shape();
    expect(before.rows).toBeGreaterThan(before.keys);
    const { daily, derived } = await dailyAgainstSessions();
    expect(daily).toEqual(derived);

    // The overview against the messages and sessions themselves.
    const usage = await t.store.stats.usageOverTime(
      admin,
      UsageQuerySchema.parse({ from: iso(T0), to: iso(T0 + DAY), groupBy: 'profile' }),
    );
    const { rows: direct } = await sql<{ profile: string; messages: string; sessions: string; input: string }>`
      select s.profile, count(m.id)::text as messages, count(distinct s.id)::text as sessions,
        (select coalesce(sum(input_tokens), 0) from sessions x where x.profile = s.profile)::text as input
      from sessions s left join messages m on m.session_id = s.id and m.display_kind <> 'hidden'
      where s.profile in ('mix-a', 'mix-b')
      group by s.profile order by s.profile`.execute(t.store.db);
    for (const row of direct) {
      const group = usage.groups.find((g) => g.key === row.profile);
      expect(group, row.profile).toMatchObject({
        messages: Number(row.messages),
        sessions: Number(row.sessions),
        inputTokens: Number(row.input),
      });
    }
    expect(direct.map((row) => row.profile)).toEqual(['mix-a', 'mix-b']);
    const { rows: cost } = await sql<{ profile: string; cost: number }>`
      select profile, coalesce(sum(estimated_cost_usd), 0) as cost from sessions
      where profile in ('mix-a', 'mix-b') group by profile order by profile`.execute(t.store.db);
    for (const row of cost) {
      expect(usage.groups.find((g) => g.key === row.profile)?.costUsd).toBeCloseTo(Number(row.cost), 6);
    }
  });

  it('folds past days into one row per key (maintenance) and down/up keeps the figures', async () => {
    const figures = async () =>
      t.store.stats.usageOverTime(
        admin,
        UsageQuerySchema.parse({ from: iso(T0 - DAY), to: iso(T0 + 2 * DAY), groupBy: 'source' }),
      );
    const dailyAtStart = await dailyAgainstSessions();
    const usageAtStart = await figures();
    expect((await shape()).rows).toBeGreaterThan((await shape()).keys);

    // Down: every key back to one row, the old key and function; the figures are the same.
    const migrations = await migrationProvider('postgres').getMigrations();
    await migrations[STRIPES_MIGRATION].down!(t.store.db);
    const { rows: columns } = await sql<{ n: number }>`
      select count(*)::int as n from information_schema.columns
      where table_name = 'usage_daily' and column_name = 'stripe'`.execute(t.store.db);
    expect(columns[0].n).toBe(0);
    const single = await shape();
    expect(single.rows).toBe(single.keys);
    expect(await dailyAgainstSessions()).toEqual(dailyAtStart);
    expect(await figures()).toEqual(usageAtStart);
    // The old single-row trigger works again.
    await t.store.messages.append(admin, 'free', { messages: [{ role: 'user', content: 'while down' }] });
    const down = await dailyAgainstSessions();
    expect(down.daily).toEqual(down.derived);

    // Up again (the migration's own up: later migrations are recorded after it, so the migrator
    // would refuse to run it out of order), then appends spread again; figures still match.
    await migrations[STRIPES_MIGRATION].up(t.store.db);
    const holder = await connect();
    try {
      await holder.query('begin');
      await holder.query(
        `update sessions set message_count = message_count + 1, revision = revision + 1,
           last_activity_at = $1 where id = 'held'`,
        [clock.now()],
      );
      await t.store.messages.append(admin, 'free', { messages: [{ role: 'user', content: 'after up' }] });
      await holder.query('commit');
    } finally {
      await holder.end();
    }
    const up = await dailyAgainstSessions();
    expect(up.daily).toEqual(up.derived);
    expect((await shape()).rows).toBeGreaterThan((await shape()).keys);
    const usageAfterUp = await figures();
    expect(usageAfterUp.totals.messages).toBe(usageAtStart.totals.messages + 3);

    // Maintenance two days later folds the day into one row per key, figures unchanged.
    clock.set(T0 + 2 * DAY + HOUR);
    t.store.jobs.configure(INDEX_MAINTENANCE_JOB, 60 * 60 * 1000);
    const report = await t.store.jobs.runNow(INDEX_MAINTENANCE_JOB, 'fold');
    expect(report.outcome).toBe('ran');
    expect(Number(report.summary?.usageStripesFolded)).toBeGreaterThan(0);
    const folded = await shape();
    expect(folded.rows).toBe(folded.keys);
    expect(await figures()).toEqual(usageAfterUp);
    const after = await dailyAgainstSessions();
    expect(after.daily).toEqual(after.derived);
    // Nothing left to fold.
    expect(await new UsageRollupRepository().foldStripes(t.store.db, T0 + DAY, 100)).toBe(0);
  });
});
