import { sql } from 'kysely';
import type { BenchConfig } from './lib/config.js';
import { fmtCount, fmtMs, log, type Report } from './lib/report.js';
import { ADMIN_CTX, type BenchStore, openSqliteStore } from './lib/stores.js';
import { sample, summarize } from './lib/timing.js';

const PROFILE = 'bench-schedules';
const GATEWAYS = 10;
const SCHEDULES_PER_SESSION = 5;
/** One schedule in this many is due when the measurement starts (the rest fall due over the next day). */
const DUE_ONE_IN = 10;
const CLAIM_LIMIT = 10;
const TARGET_P50_MS = 10;

/**
 * Claiming due wake-ups at size (docs/domain.md §13.4): `schedules` stored in one profile — the
 * worst case for the due index, which leads with the profile — over sessions owned round-robin by
 * ten gateways. Most sessions are routed and open; some are unroutable, archived or closed
 * deliberately, so the claim walks past due ticks it may not take, as it would in a real store.
 * A tenth of the schedules are due; each timed call is one gateway claiming up to 10 of its due
 * ticks (the gateways take turns, so every call finds work), and a completion of each claimed tick
 * follows, timed on its own.
 */
async function claimAtSize(report: Report, dialect: string, bench: BenchStore, schedules: number, iterations: number) {
  const { store } = bench;
  const sessions = Math.ceil(schedules / SCHEDULES_PER_SESSION);
  log(`building ${fmtCount(schedules)} schedules over ${fmtCount(sessions)} sessions (${dialect})`);
  await store.profiles.create(ADMIN_CTX, PROFILE);
  const now = Date.now();
  for (let g = 0; g < GATEWAYS; g++) {
    await store.gateways.heartbeat(ADMIN_CTX, `gw-${g}`, { profile: PROFILE, host: 'bench', pid: g, startedAt: now });
  }
  const sessionRows: Record<string, unknown>[] = [];
  const routeRows: Record<string, unknown>[] = [];
  const scheduleRows: Record<string, unknown>[] = [];
  // Sessions first: a schedule names its session (foreign key).
  const flush = async (force = false) => {
    if (scheduleRows.length < 500 && !force) return;
    if (sessionRows.length)
      await store.db
        .insertInto('sessions')
        .values(sessionRows.splice(0) as never)
        .execute();
    if (routeRows.length)
      await store.db
        .insertInto('routes')
        .values(routeRows.splice(0) as never)
        .execute();
    if (scheduleRows.length)
      await store.db
        .insertInto('schedules')
        .values(scheduleRows.splice(0) as never)
        .execute();
  };
  let made = 0;
  for (let s = 0; s < sessions; s++) {
    const id = `s${s}`;
    const key = `agent:${PROFILE}:telegram:dm:chat-${s}`;
    // 3 % unroutable, 2 % archived, 2 % closed deliberately (drawn apart from the gateway); the rest routed and open.
    const kind = draw(s) % 100;
    sessionRows.push({
      id,
      profile: PROFILE,
      source: 'telegram',
      created_source: 'telegram',
      session_key: key,
      chat_id: `chat-${s}`,
      chat_type: 'dm',
      started_at: now - 86_400_000,
      last_activity_at: now - 60_000,
      gateway_id: `gw-${s % GATEWAYS}`,
      gateway_started_at: now,
      archived: kind >= 95 && kind < 97 ? 1 : 0,
      ended_at: kind >= 97 ? now - 60_000 : null,
      end_reason: kind >= 97 ? 'cli_close' : null,
    });
    if (kind >= 3) {
      routeRows.push({
        profile: PROFILE,
        session_key: key,
        session_id: id,
        suspended: 0,
        created_at: now,
        updated_at: now,
      });
    }
    for (let k = 0; k < SCHEDULES_PER_SESSION && made < schedules; k++, made++) {
      // Spread over the next day; one in DUE_ONE_IN is due now, over the last ten minutes.
      const due =
        draw(made + 1_000_003) % DUE_ONE_IN === 0
          ? now - 600_000 + (made % 600_000)
          : now + 1 + ((made * 7919) % 86_400_000);
      scheduleRows.push({
        id: `sc${made}`,
        profile: PROFILE,
        session_id: id,
        kind: 'interval',
        interval_seconds: 60 * (1 + (made % 30)),
        payload: '{"prompt":"heartbeat"}',
        enabled: 1,
        next_due_at: due,
        wake_at: due,
        created_at: now,
        updated_at: now,
      });
    }
    await flush();
  }
  await flush(true);
  if (dialect === 'PostgreSQL') await sql`analyze`.execute(store.db);

  const claimed: { id: string; generation: number }[] = [];
  const claim = async (i: number) => {
    const page = await store.schedules.claim(ADMIN_CTX, {
      gatewayId: `gw-${i % GATEWAYS}`,
      leaseSeconds: 60,
      limit: CLAIM_LIMIT,
    });
    for (const item of page.items) claimed.push({ id: item.id, generation: item.claim!.generation });
    return page.items.length;
  };
  const probe = await claim(0);
  if (probe !== CLAIM_LIMIT) throw new Error(`a claim took ${probe} ticks, expected ${CLAIM_LIMIT}`);
  const claims = summarize(await sample(iterations, claim));
  const takenPerCall = claimed.length / (iterations + Math.min(20, Math.ceil(iterations / 10)) + 1);
  const toComplete = claimed.splice(0, iterations);
  const completes = summarize(
    await sample(
      toComplete.length,
      (i) => store.schedules.complete(ADMIN_CTX, toComplete[i].id, { generation: toComplete[i].generation }),
      0,
    ),
  );
  const due = summarize(
    await sample(Math.min(iterations, 200), (i) =>
      store.schedules.due(ADMIN_CTX, { profile: PROFILE, gatewayId: `gw-${i % GATEWAYS}`, limit: 50 }),
    ),
  );
  // Paused and unroutable due ticks stay in the due range (their sessions may come back): a claim
  // walks past them. Measured with a tenth of the store's sessions archived and all their ticks due.
  const parkedSessions = Array.from({ length: Math.floor(sessions / 10) }, (_, i) => `s${i * 10 + 5}`);
  for (let i = 0; i < parkedSessions.length; i += 500) {
    const part = parkedSessions.slice(i, i + 500);
    await store.db.updateTable('sessions').set({ archived: 1 }).where('id', 'in', part).execute();
    await store.db
      .updateTable('schedules')
      .set({ next_due_at: now - 3_600_000, wake_at: now - 3_600_000 })
      .where('session_id', 'in', part)
      .execute();
  }
  const parked = Number(
    (
      await store.db
        .selectFrom('schedules as sc')
        .innerJoin('sessions as s', 's.id', 'sc.session_id')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('sc.wake_at', '<=', Date.now())
        .where((eb) => eb.or([eb('s.archived', '=', 1), eb('s.ended_at', 'is not', null)]))
        .executeTakeFirstOrThrow()
    ).n,
  );
  if (dialect === 'PostgreSQL') await sql`analyze`.execute(store.db);
  // Untimed first: the claims that set the paused ticks aside (up to 50 each; docs/domain.md §13.4.1).
  const settling = Math.ceil(parked / 50) + 10;
  const crowded = summarize(await sample(Math.min(iterations, 200), (i) => claim(i + 1), settling));
  const row = report.table(
    `Scheduled wake-ups at ${fmtCount(schedules)} schedules (${dialect})`,
    ['operation', 'p50', 'p95', 'calls'],
    `${fmtCount(schedules)} schedules in one profile over ${fmtCount(sessions)} sessions of ${GATEWAYS} gateways ` +
      `(3 % unroutable, 2 % archived, 2 % closed deliberately); one in ${DUE_ONE_IN} due. A claim takes up to ` +
      `${CLAIM_LIMIT} due ticks of one gateway (${takenPerCall.toFixed(1)} per call on average).`,
  );
  row([`claim due ticks (limit ${CLAIM_LIMIT})`, fmtMs(claims.p50), fmtMs(claims.p95), claims.n]);
  row(['complete a claimed tick', fmtMs(completes.p50), fmtMs(completes.p95), completes.n]);
  row(["due query (a gateway's, first page of 50)", fmtMs(due.p50), fmtMs(due.p95), due.n]);
  row([
    `claim due ticks with ${fmtCount(parked)} paused ticks due (archived or closed sessions; after the ${settling} claims that set them aside)`,
    fmtMs(crowded.p50),
    fmtMs(crowded.p95),
    crowded.n,
  ]);
  report.target({
    figure: `17. claim due wake-ups (limit ${CLAIM_LIMIT}) with ${fmtCount(schedules)} schedules stored, ${dialect}`,
    ours: fmtMs(claims.p50),
    ceiling: '—',
    ratio: '—',
    target: `≤ ${TARGET_P50_MS} ms p50`,
    met: claims.p50 <= TARGET_P50_MS,
  });
}

export async function schedulesSqlite(report: Report, config: BenchConfig): Promise<void> {
  report.section(
    'Scheduled wake-ups',
    'A gateway claiming the due heartbeats and loops of the chats it owns (docs/domain.md §13).',
  );
  const bench = await openSqliteStore('schedules');
  try {
    await claimAtSize(report, 'SQLite', bench, config.quick ? 10_000 : 100_000, config.quick ? 60 : 600);
  } finally {
    await bench.close();
  }
}

export async function schedulesPg(report: Report, config: BenchConfig, open: () => Promise<BenchStore>): Promise<void> {
  const bench = await open();
  try {
    await claimAtSize(report, 'PostgreSQL', bench, config.quick ? 10_000 : 100_000, config.quick ? 60 : 600);
  } finally {
    await bench.close();
  }
}

/** A fixed pseudo-random draw per index (an integer hash), so every run stores the same schedules. */
function draw(i: number): number {
  let h = Math.imul(i ^ (i >>> 16), 0x45d9f3b);
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b);
  return (h ^ (h >>> 16)) >>> 0;
}
