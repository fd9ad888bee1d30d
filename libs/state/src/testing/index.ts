import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import type { Dialect } from '../db/database.js';
import { silentLogger } from '../shared/logger.js';
import { openStore, type StateStore, type StoreOptions } from '../store.js';

export { yieldBetweenChunks } from '../db/chunks.js';
export { SEARCH_PENDING_FLUSH } from '../db/sqlite-search-pending.js';
export { type FtsLevel, ftsLevelsOf } from '../search/fts-structure.js';
export {
  aBranch,
  aChat,
  aCompressionChain,
  aContinuation,
  aProfile,
  aSession,
  type ChatSpec,
  conversation,
  endSession,
  type SessionSpec,
  someMessages,
  tokensOf,
} from './builders.js';
export { seededRandom } from './seeded-random.js';
export { type SseEvent, sseEvents } from './sse.js';
export { syntheticSqliteStore } from './synthetic-store.js';
export { clearOfUtcMidnight } from './utc-day.js';

/**
 * Test databases: SQLite always; PostgreSQL when STATEHOUSE_TEST_PG_URL is set. Each call makes a
 * fresh database (a temp file, or a new PostgreSQL database) and migrates it, as start-up does.
 */
export const TEST_PG_URL = process.env.STATEHOUSE_TEST_PG_URL;

export const TEST_DIALECTS: { dialect: Dialect; available: boolean }[] = [
  { dialect: 'sqlite', available: true },
  { dialect: 'postgres', available: Boolean(TEST_PG_URL) },
];

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(dialect: Dialect): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'statehouse-test-'));
    return { url: `file:${join(dir, 'test.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  if (!TEST_PG_URL) throw new Error('STATEHOUSE_TEST_PG_URL is not set');
  const name = `statehouse_t_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: TEST_PG_URL });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}

export interface TestStore {
  store: StateStore;
  url: string;
  close(): Promise<void>;
}

/**
 * scrypt at N = 2^14 for test stores: a hash costs ~20 ms instead of ~570 ms, so suites that create
 * users and sign in often stay fast. Tests of hashing itself pass `passwordHashing` explicitly.
 */
export const TEST_PASSWORD_HASHING = Object.freeze({ N: 2 ** 14, r: 8, p: 1 });

export async function openTestStore(dialect: Dialect, options: Omit<StoreOptions, 'url'> = {}): Promise<TestStore> {
  const database = await createTestDatabase(dialect);
  const store = await openStore({
    logger: silentLogger,
    passwordHashing: TEST_PASSWORD_HASHING,
    ...options,
    url: database.url,
  });
  return {
    store,
    url: database.url,
    async close() {
      await store.close();
      await database.drop();
    },
  };
}

export { adminPrincipal, contextOf, memberPrincipal } from './principals.js';

/** A messages query that leaves nothing out (compacted, hidden and inactive rows too), oldest first: `{ limit, ...EVERY_MESSAGE }`. */
export const EVERY_MESSAGE = {
  includeCompacted: true,
  includeHidden: true,
  includeInactive: true,
  order: 'oldest',
} as const;

/**
 * A restart of the store: `before` runs on a store over a fresh database of `dialect`, which is
 * closed; then `after` runs on a store opened again on the same database (dropped at the end).
 */
export async function acrossRestart(
  dialect: Dialect,
  before: (store: StateStore) => Promise<void>,
  after: (store: StateStore) => Promise<void>,
): Promise<void> {
  const database = await createTestDatabase(dialect);
  try {
    for (const work of [before, after]) {
      const store = await openStore({
        logger: silentLogger,
        passwordHashing: TEST_PASSWORD_HASHING,
        url: database.url,
      });
      try {
        await work(store);
      } finally {
        await store.close();
      }
    }
  } finally {
    await database.drop();
  }
}

/**
 * Where do these ids still appear? Scans every text column of every table (receipts and
 * idempotency records excepted: they are meant to remember), for proving a deletion complete.
 */
export async function scanForIds(store: StateStore, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const hits: string[] = [];
  // The import ledger keeps a tombstone per deleted imported session (id only), so re-imports do not resurrect it.
  const skip = new Set(['deletion_receipts', 'idempotency_keys', 'kysely_migration', 'kysely_migration_lock']);
  for (const table of await store.db.introspection.getTables()) {
    if (skip.has(table.name) || table.name.startsWith('messages_fts') || table.name.startsWith('messages_trgm'))
      continue;
    for (const column of table.columns) {
      if (!/text|char/i.test(column.dataType)) continue;
      const { rows } = await sql<{ n: number }>`select count(*) as n from ${sql.table(table.name)} where ${sql.ref(
        column.name,
      )} in (${sql.join([...ids])})`.execute(store.db);
      if (Number(rows[0]?.n ?? 0) > 0) hits.push(`${table.name}.${column.name}`);
    }
  }
  return hits;
}

export * from './hermes-fixture.js';
export { importHermes, UNSPLIT } from './hermes-import.js';

/**
 * Everything an import writes, in a form two stores can be compared by (message ids and import
 * bookkeeping times left out): "a resumed import equals one clean run".
 */
export async function dumpImportedState(store: StateStore): Promise<Record<string, unknown[]>> {
  const db = store.db;
  // When the import wrote a row is bookkeeping too (two runs happen at two times).
  const sessions = (await db.selectFrom('sessions').selectAll().orderBy('id').execute()).map(
    ({ imported_at: _importedAt, ...row }) => row,
  );
  const messages = await db
    .selectFrom('messages')
    .select([
      'session_id',
      'role',
      'content',
      'content_json',
      'tool_call_id',
      'tool_calls',
      'tool_name',
      'timestamp',
      'token_count',
      'finish_reason',
      'reasoning',
      'display_kind',
      'active',
      'compacted',
      'platform_message_id',
      'substring_indexed',
    ])
    .orderBy('session_id')
    .orderBy('id')
    .execute();
  const routes = await db.selectFrom('routes').selectAll().orderBy('profile').orderBy('session_key').execute();
  const generations = await db
    .selectFrom('conversation_generations')
    .select(['source', 'session_key', 'generation'])
    .orderBy('source')
    .orderBy('session_key')
    .execute();
  const usage = await db
    .selectFrom('session_model_usage')
    .selectAll()
    .orderBy('session_id')
    .orderBy('model')
    .orderBy('task')
    .execute();
  const ledger = await db
    .selectFrom('import_sessions')
    .select(['source', 'source_session_id', 'session_id', 'identity', 'snapshot', 'messages_hash', 'state'])
    .orderBy('source_session_id')
    .execute();
  const ledgerMessages = await db
    .selectFrom('import_messages')
    .select(['session_id', 'source_message_id', 'fingerprint', 'active', 'compacted'])
    .orderBy('session_id')
    .orderBy('source_message_id')
    .execute();
  // The runtime ledgers an import maps (delegations, delivery obligations).
  const delegations = await db.selectFrom('delegations').selectAll().orderBy('id').execute();
  const deliveries = await db.selectFrom('deliveries').selectAll().orderBy('id').execute();
  const normalize = (rows: Record<string, unknown>[]) =>
    rows.map((row) =>
      Object.fromEntries(
        Object.entries(row).map(([key, value]) => [key, typeof value === 'bigint' ? Number(value) : value]),
      ),
    );
  return {
    sessions: normalize(sessions),
    messages: normalize(messages),
    routes: normalize(routes),
    generations: normalize(generations),
    usage: normalize(usage),
    ledger: normalize(ledger),
    ledgerMessages: normalize(ledgerMessages),
    delegations: normalize(delegations),
    deliveries: normalize(deliveries),
  };
}
