import type { ResolveRequest } from '@statehouse/contracts';
import { routingKey } from '@statehouse/state';
import { sql } from 'kysely';
import pg from 'pg';
import type { BenchConfig } from './lib/config.js';
import { fmtCount, fmtMs, log, type Report } from './lib/report.js';
import { ADMIN_CTX, type BenchStore, openRawSqlite, openSqliteStore } from './lib/stores.js';
import { type Summary, sample, sampleAlternating, summarize } from './lib/timing.js';

/** Sessions per chat: a few resets and accidents of one peer, the newest open or recoverable. */
const ROWS_PER_CHAT = 5;
const PROFILE = 'bench-resolve';

/**
 * `POST /v1/routes/resolve` at size (docs/domain.md §6.3): the route hit, recovery by exact key,
 * recovery by the chat tuple of rows that carry no key (the peer index), and a chat with no
 * history — each p50/p95 over many chats of a store of `sessions` rows.
 */
/**
 * The revival's write alone, on a connection of its own with no store code: one auto-committed
 * UPDATE of what `SessionRepository.revive` writes (the end cleared, activity moved to now, the
 * revision bumped). What no resolve that revives can go below.
 */
interface RevivalFloor {
  revive(id: string): unknown;
  close(): Promise<void>;
}
const FLOOR_WARMUP = 20;

const REVIVE_SQL = {
  sqlite:
    'update sessions set ended_at = null, end_reason = null, end_reason_detail = null, ' +
    'last_activity_at = max(last_activity_at, ?), revision = revision + 1 where id = ? and hidden_for is null',
  postgres:
    'update sessions set ended_at = null, end_reason = null, end_reason_detail = null, ' +
    'last_activity_at = greatest(last_activity_at, $1), revision = revision + 1 where id = $2 and hidden_for is null',
};

async function resolveAtSize(
  report: Report,
  dialect: string,
  bench: BenchStore,
  sessions: number,
  iterations: number,
  openFloor: () => Promise<RevivalFloor>,
) {
  const { store } = bench;
  const chats = Math.floor(sessions / ROWS_PER_CHAT);
  log(`building ${fmtCount(chats * ROWS_PER_CHAT)} sessions over ${fmtCount(chats)} chats (${dialect})`);
  await store.profiles.create(ADMIN_CTX, PROFILE);
  const now = Date.now();
  const batch: Record<string, unknown>[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    await store.db
      .insertInto('sessions')
      .values(batch as never)
      .execute();
    batch.length = 0;
  };
  for (let chat = 0; chat < chats; chat++) {
    // Even chats carry their key; odd ones only the tuple (written before keys, or by another writer).
    const keyed = chat % 2 === 0;
    for (let row = 0; row < ROWS_PER_CHAT; row++) {
      const at = now - (chats - chat) * 1000 - (ROWS_PER_CHAT - row) * 10;
      const last = row === ROWS_PER_CHAT - 1;
      batch.push({
        id: `c${chat}-${row}`,
        profile: PROFILE,
        source: 'telegram',
        created_source: 'telegram',
        session_key: keyed ? routingKey(PROFILE, 'telegram', 'dm', `chat-${chat}`) : null,
        user_id: `user-${chat}`,
        chat_id: `chat-${chat}`,
        chat_type: 'dm',
        started_at: at,
        last_activity_at: at,
        ended_at: at + 5,
        end_reason: last ? 'agent_close' : 'cli_close',
      });
      if (batch.length >= 500) await flush();
    }
  }
  await flush();
  const routed = Math.min(chats, 1000);
  for (let chat = 0; chat < routed; chat += 2) {
    await store.db
      .updateTable('sessions')
      .set({ ended_at: null, end_reason: null })
      .where('id', '=', `c${chat}-${ROWS_PER_CHAT - 1}`)
      .execute();
    await store.routes.set(ADMIN_CTX, {
      profile: PROFILE,
      sessionKey: routingKey(PROFILE, 'telegram', 'dm', `chat-${chat}`),
      sessionId: `c${chat}-${ROWS_PER_CHAT - 1}`,
    });
  }
  if (dialect === 'PostgreSQL') await sql`analyze`.execute(store.db);
  const peer = (chat: number): ResolveRequest => ({
    profile: PROFILE,
    source: 'telegram',
    chatType: 'dm',
    chatId: `chat-${chat}`,
    userId: `user-${chat}`,
  });
  // Routed chats are the even ones below `routed`; keyed chats the even ones above; odd ones carry no key.
  // Every unrouted chat's newest row ended by accident: its first resolve revives it (one write),
  // later ones find it open (a read). Each revival takes a chat not resolved before.
  const keyedChats = Math.floor((chats - routed) / 2) - 1;
  const tupleChats = Math.floor(chats / 2) - 1;
  const cursors = { keyed: 0, tuple: 0 };
  const nextKeyed = () => routed + 2 * (cursors.keyed++ % keyedChats);
  const nextTuple = () => 2 * (cursors.tuple++ % tupleChats) + 1;
  const spread = (i: number, n: number) => (i * 7919) % Math.max(1, n);
  const row = report.table(
    `Resolve a chat at ${fmtCount(chats * ROWS_PER_CHAT)} sessions (${dialect})`,
    ['case', 'p50', 'p95', 'calls'],
    `${fmtCount(chats)} chats with ${ROWS_PER_CHAT} sessions each (half keyed, half carrying only the chat tuple). ` +
      'A revival is the first resolve of a chat whose newest row ended by accident: it reopens the row in the ' +
      'decision’s transaction (docs/domain.md §6.3.1); the plain resolve right after it, of the same chat, finds ' +
      'the row open and writes nothing (the two alternate, so they share the machine’s state).',
  );
  const expectVia = async (label: string, call: Promise<unknown>, via: string) => {
    const answer = (await call) as { via: string };
    if (answer.via !== via) throw new Error(`${label}: resolved via ${answer.via}, expected ${via}`);
  };
  await expectVia('route hit', store.routes.resolve(ADMIN_CTX, peer(0)), 'route');
  const route = summarize(
    await sample(iterations, (i) => store.routes.resolve(ADMIN_CTX, peer(2 * spread(i, routed / 2)))),
  );
  row(['route hit', fmtMs(route.p50), fmtMs(route.p95), route.n]);
  const plainByPair: Summary[] = [];
  const extraByPair: string[] = [];
  const pairs: [string, () => number][] = [
    ['by key', nextKeyed],
    ['by chat tuple (no key)', nextTuple],
  ];
  let last = -1;
  for (const [how, next] of pairs) {
    const probe = next();
    await expectVia(`revival ${how}`, store.routes.resolve(ADMIN_CTX, peer(probe)), 'recovered');
    const [revive, plain] = await sampleAlternating(iterations, [
      () => {
        last = next();
        return store.routes.resolve(ADMIN_CTX, peer(last));
      },
      () => store.routes.resolve(ADMIN_CTX, peer(last)),
    ]);
    const revival = summarize(revive);
    const again = summarize(plain);
    plainByPair.push(again);
    extraByPair.push(`${fmtMs(revival.p50 - again.p50)} ${how}`);
    row([`revival ${how} (reopens the row)`, fmtMs(revival.p50), fmtMs(revival.p95), revival.n]);
    row([`recovery ${how}, row open (plain)`, fmtMs(again.p50), fmtMs(again.p95), again.n]);
    report.target({
      figure: `resolve that revives a chat ${how}, against a plain resolve of it (${dialect})`,
      ours: `${fmtMs(revival.p50)} p50`,
      ceiling: `${fmtMs(again.p50)} p50`,
      ratio: `${(revival.p50 / again.p50).toFixed(2)}×`,
      target: '≤ 1.2×',
      met: revival.p50 <= 1.2 * again.p50,
    });
  }
  // The floor under the two targets above: the write alone, on ended rows nobody resolved (keyed
  // chats from the top of the range, the other end from the pairs' walk), each write alternating
  // with a plain resolve as the revivals did — a write in a tight loop of writes finds every page
  // it needs hot, and would understate it.
  const floorIds = Array.from(
    { length: iterations + FLOOR_WARMUP },
    (_, k) => `c${routed + 2 * (keyedChats - 1 - k)}-${ROWS_PER_CHAT - 1}`,
  );
  const writer = await openFloor();
  let floorAt = 0;
  let writes: number[];
  try {
    [, writes] = await sampleAlternating(
      iterations,
      [() => store.routes.resolve(ADMIN_CTX, peer(last)), () => writer.revive(floorIds[floorAt++])],
      FLOOR_WARMUP,
    );
  } finally {
    await writer.close();
  }
  const floor = summarize(writes);
  row([
    'the revival’s write alone (one UPDATE, auto-committed, no store code)',
    fmtMs(floor.p50),
    fmtMs(floor.p95),
    floor.n,
  ]);
  const plainest = Math.min(...plainByPair.map((plain) => plain.p50));
  report.note(
    `Resolve revival (${dialect}): the write a revival must make — one UPDATE that clears the end and moves the row's ` +
      `last activity to now, in every last-activity index (docs/domain.md §6.3.1: a revival is activity) — costs ` +
      `${fmtMs(floor.p50)} p50 on its own, without the decision or any store code (alternating with plain resolves, ` +
      `as the revivals do); 1.2× the plain resolve (${fmtMs(plainest)} p50, which writes nothing) leaves ` +
      `${fmtMs(0.2 * plainest)} for it. Over their plain resolves the revivals cost ${extraByPair.join(', ')}. ` +
      (floor.p50 > 0.2 * plainest
        ? 'The write alone is over that allowance: no revival that commits before it answers can meet the read-only target.'
        : 'The write fits in that allowance: what is over it is the store’s own cost.'),
  );
  // What a gateway does when a chat comes back after its old gateway died: resolve naming itself, so
  // the row taken is stamped with its owner either way — a write with or without the revival. The
  // revival adds two columns to that statement; both sides take chats nobody resolved before (odd,
  // keyless chats from the top of the range: the revival's still ended, the other's opened here).
  const gatewayId = 'gw-bench';
  await store.gateways.heartbeat(ADMIN_CTX, gatewayId, {
    profile: PROFILE,
    host: 'bench',
    pid: process.pid,
    startedAt: new Date(Date.now() - 1000).toISOString(),
  });
  const band = iterations + 50;
  const reviveChats = Array.from({ length: band }, (_, k) => 2 * (tupleChats - 1 - k) + 1);
  const stampChats = Array.from({ length: band }, (_, k) => 2 * (tupleChats - 1 - band - k) + 1);
  for (let i = 0; i < stampChats.length; i += 500) {
    await store.db
      .updateTable('sessions')
      .set({ ended_at: null, end_reason: null })
      .where(
        'id',
        'in',
        stampChats.slice(i, i + 500).map((chat) => `c${chat}-${ROWS_PER_CHAT - 1}`),
      )
      .execute();
  }
  let reviveAt = 0;
  let stampAt = 0;
  const asGateway = (chat: number): ResolveRequest => ({ ...peer(chat), gatewayId, transportProfile: 'bot-bench' });
  const [takeRevive, takeOnly] = await sampleAlternating(iterations, [
    () => store.routes.resolve(ADMIN_CTX, asGateway(reviveChats[reviveAt++ % band])),
    () => store.routes.resolve(ADMIN_CTX, asGateway(stampChats[stampAt++ % band])),
  ]);
  const gatewayRevival = summarize(takeRevive);
  const gatewayTake = summarize(takeOnly);
  row(['gateway takes a chat and revives it', fmtMs(gatewayRevival.p50), fmtMs(gatewayRevival.p95), gatewayRevival.n]);
  row(['gateway takes an open chat (stamps its owner)', fmtMs(gatewayTake.p50), fmtMs(gatewayTake.p95), gatewayTake.n]);
  report.target({
    figure: `resolve by a gateway that revives the chat it takes, against one that takes an open chat (${dialect})`,
    ours: `${fmtMs(gatewayRevival.p50)} p50`,
    ceiling: `${fmtMs(gatewayTake.p50)} p50`,
    ratio: `${(gatewayRevival.p50 / gatewayTake.p50).toFixed(2)}×`,
    target: '≤ 1.2×',
    met: gatewayRevival.p50 <= 1.2 * gatewayTake.p50,
  });
  const none = summarize(await sample(iterations, (i) => store.routes.resolve(ADMIN_CTX, peer(chats + 10 + i))));
  row(['no history', fmtMs(none.p50), fmtMs(none.p95), none.n]);
}

export async function resolveSqlite(report: Report, config: BenchConfig): Promise<void> {
  report.section('Gateway resolve', 'Which session does this chat belong to: one call per inbound message.');
  const bench = await openSqliteStore('resolve');
  try {
    const floor = async (): Promise<RevivalFloor> => {
      const raw = openRawSqlite(bench.path);
      const revive = raw.prepare(REVIVE_SQL.sqlite);
      return { revive: (id) => revive.run(Date.now(), id), close: async () => void raw.close() };
    };
    await resolveAtSize(report, 'SQLite', bench, config.quick ? 10_000 : 100_000, config.quick ? 200 : 1000, floor);
  } finally {
    await bench.close();
  }
}

export async function resolvePg(report: Report, config: BenchConfig, open: () => Promise<BenchStore>): Promise<void> {
  const bench = await open();
  try {
    const floor = async (): Promise<RevivalFloor> => {
      const raw = new pg.Client({ connectionString: bench.location });
      await raw.connect();
      const revive = { name: 'bench-revive', text: REVIVE_SQL.postgres };
      return { revive: (id) => raw.query({ ...revive, values: [Date.now(), id] }), close: () => raw.end() };
    };
    await resolveAtSize(report, 'PostgreSQL', bench, config.quick ? 10_000 : 100_000, config.quick ? 200 : 1000, floor);
  } finally {
    await bench.close();
  }
}
