import type { DeletionOrigin, DeletionReason, ReceiptIdentity } from '@statehouse/contracts';
import { receiptHash, type StateStore } from '@statehouse/state';
import { sql } from 'kysely';
import { PROFILES } from './data.js';
import { Rng } from './rng.js';
import { msSince, nowNs, settle } from './timing.js';

const GENESIS_HASH = '0'.repeat(64);
const INSERT_CHUNK = 500;

const ORIGINS: { origin: DeletionOrigin; reason: DeletionReason; weight: number }[] = [
  { origin: 'user_api', reason: 'user', weight: 0.6 },
  { origin: 'user_dashboard', reason: 'user', weight: 0.2 },
  { origin: 'retention', reason: 'prune', weight: 0.1 },
  { origin: 'empty_sweep', reason: 'empty_sweep', weight: 0.05 },
  { origin: 'ghost_prune', reason: 'ghost_prune', weight: 0.05 },
];
const SOURCES = ['cli', 'telegram', 'discord', 'slack', 'api'];

function pickWeighted(roll: number): (typeof ORIGINS)[number] {
  let cumulative = 0;
  for (const entry of ORIGINS) {
    cumulative += entry.weight;
    if (roll < cumulative) return entry;
  }
  return ORIGINS[0];
}

export interface SeededReceipts {
  count: number;
  /** Mean identities (removed sessions) per receipt. */
  identities: number;
  /** Mean size of a receipt as the API serves it (JSON). */
  bytes: number;
  ms: number;
}

/**
 * Setup: `count` deletion receipts written in bulk into an empty receipt table with the store's own
 * hash chain — each row's document and hash built exactly as ReceiptWriter builds them (the
 * exported `receiptHash` over the receipt without its hashes, `prevHash` the row before), so
 * `store.receipts.verify` accepts the chain and the store's next real deletion continues it. The
 * writer itself is not exposed; a receipt per deletion through the store would take ~10⁵
 * transactions. Mix: 80 % single sessions, 15 % two to five, 5 % six to forty (bulk and
 * maintenance); three profiles; origins mostly API and dashboard, some maintenance.
 */
export async function seedReceipts(store: StateStore, count: number, seed = 17): Promise<SeededReceipts> {
  const existing = await store.db
    .selectFrom('deletion_receipts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  if (Number(existing.n) > 0) throw new Error('seedReceipts expects an empty receipt table');
  const rng = new Rng(seed);
  const started = Date.now();
  const createdBase = started - count * 1000;
  let prevHash = GENESIS_HASH;
  let identityTotal = 0;
  let byteTotal = 0;
  const postgres = store.dialect === 'postgres';
  for (let first = 1; first <= count; first += INSERT_CHUNK) {
    const rows = [];
    for (let sequence = first; sequence < Math.min(first + INSERT_CHUNK, count + 1); sequence++) {
      const roll = rng.next();
      const size = roll < 0.8 ? 1 : roll < 0.95 ? rng.int(2, 5) : rng.int(6, 40);
      const kind = pickWeighted(rng.next());
      const profile = PROFILES[rng.next() < 0.7 ? 0 : rng.next() < 0.66 ? 1 : 2];
      const identities: ReceiptIdentity[] = Array.from({ length: size }, (_, i) => {
        const source = rng.pick(SOURCES);
        const keyed = source !== 'cli' && source !== 'api';
        return {
          id: `rs-${sequence.toString(36)}-${i}`,
          profile,
          source,
          createdSource: source,
          sessionKey: keyed ? `agent:main:${source}:dm:${rng.int(1000, 99999)}` : null,
          chatId: keyed ? String(rng.int(100000, 9999999)) : null,
          chatType: keyed ? 'dm' : null,
          threadId: null,
          parentSessionId: i > 0 ? `rs-${sequence.toString(36)}-0` : null,
          lineageKind: i > 0 ? (rng.chance(0.5) ? 'compression' : 'delegate') : null,
          role: i === 0 ? 'selected' : rng.chance(0.5) ? 'chain_member' : 'delegate_cascade',
        };
      });
      const maintenance = kind.reason !== 'user';
      const draft = {
        operationId: `op-${String(sequence).padStart(23, '0')}`,
        origin: kind.origin,
        intent: maintenance ? ('maintenance' as const) : ('explicit_user' as const),
        reason: kind.reason,
        profile,
        actor: maintenance ? { kind: 'system', id: 'retention' } : { kind: 'token', id: '01JBENCHTOKEN0000000000000' },
        counts: { sessions: size, messages: size * rng.int(2, 300), routes: rng.chance(0.3) ? 1 : 0 },
        identities,
      };
      const createdAt = createdBase + sequence * 1000;
      const hash = receiptHash(prevHash, { ...draft, sequence, createdAt: new Date(createdAt).toISOString() });
      rows.push({ sequence, draft, createdAt, prevHash, hash });
      identityTotal += size;
      byteTotal += JSON.stringify({
        sequence,
        ...draft,
        createdAt: new Date(createdAt).toISOString(),
        prevHash,
        hash,
      }).length;
      prevHash = hash;
    }
    const values = rows.map(
      ({ sequence, draft, createdAt, prevHash: prev, hash }) =>
        sql`(${sequence}, ${draft.operationId}, ${draft.origin}, ${draft.intent}, ${draft.reason}, ${draft.profile},
          ${draft.actor.kind}, ${draft.actor.id}, ${createdAt}, ${JSON.stringify(draft.counts)},
          ${JSON.stringify(draft.identities)}, ${prev}, ${hash})`,
    );
    await sql`insert into deletion_receipts (sequence, operation_id, origin, intent, reason, profile, actor_kind,
        actor_id, created_at, counts, identities, prev_hash, hash)
      ${postgres ? sql`overriding system value` : sql``} values ${sql.join(values)}`.execute(store.db);
  }
  if (postgres) {
    await sql`select setval(pg_get_serial_sequence('deletion_receipts', 'sequence'), ${count})`.execute(store.db);
  }
  return { count, identities: identityTotal / count, bytes: byteTotal / count, ms: Date.now() - started };
}

/** Replays every receipt after 0 with `list` pages; returns receipts and milliseconds. */
export async function replayAll(
  list: (after: number) => Promise<{ items: readonly unknown[]; nextCursor: string | null }>,
): Promise<{ receipts: number; ms: number; pages: number }> {
  await settle();
  const start = nowNs();
  let after = 0;
  let receipts = 0;
  let pages = 0;
  for (;;) {
    const page = await list(after);
    receipts += page.items.length;
    pages++;
    if (page.nextCursor === null) break;
    after = Number(page.nextCursor);
  }
  return { receipts, ms: msSince(start), pages };
}
