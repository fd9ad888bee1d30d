import type { ResolveRequest } from '@statehouse/contracts';
import { routingKey } from '@statehouse/state';
import { sql } from 'kysely';
import type { BenchConfig } from './lib/config.js';
import { fmtCount, fmtMs, log, type Report } from './lib/report.js';
import { ADMIN_CTX, type BenchStore, openSqliteStore } from './lib/stores.js';
import { sample, summarize } from './lib/timing.js';

/** Sessions per chat: a few resets and accidents of one peer, the newest open or recoverable. */
const ROWS_PER_CHAT = 5;
const PROFILE = 'bench-resolve';

/**
 * `POST /v1/routes/resolve` at size (docs/domain.md §6.3): the route hit, recovery by exact key,
 * recovery by the chat tuple of rows that carry no key (the peer index), and a chat with no
 * history — each p50/p95 over many chats of a store of `sessions` rows.
 */
async function resolveAtSize(report: Report, dialect: string, bench: BenchStore, sessions: number, iterations: number) {
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
  // Routed chats are the even ones below `routed`; keyed recovery the even ones above; odd ones carry no key.
  const spread = (i: number, n: number) => (i * 7919) % Math.max(1, n);
  const cases: [string, (i: number) => Promise<unknown>, string][] = [
    ['route hit', (i) => store.routes.resolve(ADMIN_CTX, peer(2 * spread(i, routed / 2))), 'route'],
    [
      'recovery by key',
      (i) => store.routes.resolve(ADMIN_CTX, peer(routed + 2 * spread(i, (chats - routed) / 2 - 1))),
      'recovered',
    ],
    [
      'recovery by chat tuple (no key)',
      (i) => store.routes.resolve(ADMIN_CTX, peer(2 * spread(i, chats / 2 - 1) + 1)),
      'recovered',
    ],
    ['no history', (i) => store.routes.resolve(ADMIN_CTX, peer(chats + 10 + i)), 'none'],
  ];
  const row = report.table(
    `Resolve a chat at ${fmtCount(chats * ROWS_PER_CHAT)} sessions (${dialect})`,
    ['case', 'p50', 'p95', 'calls'],
    `${fmtCount(chats)} chats with ${ROWS_PER_CHAT} sessions each (half keyed, half carrying only the chat tuple).`,
  );
  for (const [label, run, via] of cases) {
    const probe = (await run(1)) as { via: string };
    if (probe.via !== via) throw new Error(`${label}: resolved via ${probe.via}, expected ${via}`);
    const summary = summarize(await sample(iterations, run));
    row([label, fmtMs(summary.p50), fmtMs(summary.p95), summary.n]);
  }
}

export async function resolveSqlite(report: Report, config: BenchConfig): Promise<void> {
  report.section('Gateway resolve', 'Which session does this chat belong to: one call per inbound message.');
  const bench = await openSqliteStore('resolve');
  try {
    await resolveAtSize(report, 'SQLite', bench, config.quick ? 10_000 : 100_000, config.quick ? 200 : 1000);
  } finally {
    await bench.close();
  }
}

export async function resolvePg(report: Report, config: BenchConfig, open: () => Promise<BenchStore>): Promise<void> {
  const bench = await open();
  try {
    await resolveAtSize(report, 'PostgreSQL', bench, config.quick ? 10_000 : 100_000, config.quick ? 200 : 1000);
  } finally {
    await bench.close();
  }
}
