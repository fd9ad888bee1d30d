import { type AppendMessagesCommand, SearchQuerySchema } from '@statehouse/contracts';
import { sql } from 'kysely';
import { afterEach, type ExpectStatic } from 'vitest';
import { ManualClock } from '../shared/clock.js';
import type { IdempotencyClaim, OperationContext, Preconditions } from '../shared/context.js';
import { DomainError, IdempotencyRaceError } from '../shared/errors.js';
import type { StateStore, StoreOptions } from '../store.js';
import { aSession } from './builders.js';
import { openTestStore, type TestStore } from './index.js';
import { adminPrincipal } from './principals.js';

/**
 * The mixed group of docs/architecture.md, "Group commit": requests that each get their own
 * outcome — a valid append, a stale generation, a duplicate platform id, an unknown session, an
 * idempotent replay and a race, a request that throws after writing, an append that throws after
 * its UPDATE — run once one by one and once as one group, on the event loop's writer
 * (db/group-commit.test.ts) and on the append writer's thread (services/append-writer.test.ts).
 */

/**
 * Opens SQLite test stores that record their write transactions (`groups`: how many requests each
 * committed), with groups closed only by the test (no request or time limit gets in the way) unless
 * `options` say otherwise; every store opened is closed after each test.
 */
export function groupRecordingStores(): (
  options?: Omit<StoreOptions, 'url'>,
) => Promise<TestStore & { groups: number[] }> {
  const opened: TestStore[] = [];
  afterEach(async () => {
    while (opened.length) await opened.pop()!.close();
  });
  return async (options = {}) => {
    const groups: number[] = [];
    const t = await openTestStore('sqlite', {
      clock: new ManualClock(Date.UTC(2026, 10, 30, 6)),
      onWriteLock: (_ms, requests) => groups.push(requests),
      groupCommit: { maxRequests: 1000, maxMs: 60_000 },
      ...options,
    });
    opened.push(t);
    return { ...t, groups };
  };
}

export const ctx = (idempotency?: IdempotencyClaim): OperationContext => ({
  principal: adminPrincipal,
  channel: 'api',
  idempotency,
});

export type Outcome = { ok: unknown } | { error: string; code?: string; extra?: unknown };

export async function outcome(work: Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: await work };
  } catch (error) {
    if (error instanceof DomainError) return { error: error.name, code: error.code, extra: error.extra };
    return { error: String(error) };
  }
}

/** What the API's idempotency interceptor does: replay a record, else run, and on a race replay the winner. */
export async function idempotentAppend(store: StateStore, key: string, sessionId: string, body: AppendMessagesCommand) {
  const fingerprint = `POST /v1/sessions/${sessionId}/messages ${JSON.stringify(body)}`;
  const found = await store.idempotency.lookup(adminPrincipal, key, fingerprint);
  if (found.kind === 'replay') return { replayed: found.body };
  try {
    return await store.messages.append(ctx({ key, fingerprint, status: 201, recorded: false }), sessionId, body);
  } catch (error) {
    if (!(error instanceof IdempotencyRaceError)) throw error;
    const raced = await store.idempotency.lookup(adminPrincipal, key, fingerprint);
    if (raced.kind === 'replay') return { replayed: raced.body };
    throw error;
  }
}

export const user = (content: string, extra: Record<string, unknown> = {}): AppendMessagesCommand => ({
  messages: [{ role: 'user', content, ...extra }],
});

/** The same starting state for both runs. */
export async function seed(store: StateStore) {
  await aSession(store, { id: 'one', profile: 'gc' });
  await aSession(store, { id: 'two', profile: 'gc' });
  await store.messages.append(ctx(), 'one', user('already here', { platformMessageId: 'p-1' }));
  await idempotentAppend(store, 'k-old', 'two', user('recorded before'));
}

/**
 * The mixed requests, in commit order. Each is started by `start`; the batched run starts them all
 * while the writer is held, the serial run awaits each before the next.
 */
export const requests: { name: string; run: (store: StateStore) => Promise<unknown> }[] = [
  { name: 'valid append', run: (s) => s.messages.append(ctx(), 'one', user('hello', { platformMessageId: 'p-2' })) },
  {
    name: 'stale generation',
    run: (s) => s.messages.append(ctx(), 'one', user('from an old turn'), { expectedGeneration: 7 } as Preconditions),
  },
  {
    name: 'duplicate platform id',
    run: (s) => s.messages.append(ctx(), 'one', user('again', { platformMessageId: 'p-1' })),
  },
  { name: 'unknown session', run: (s) => s.messages.append(ctx(), 'nobody', user('lost')) },
  { name: 'idempotent replay', run: (s) => idempotentAppend(s, 'k-old', 'two', user('recorded before')) },
  { name: 'new idempotency key', run: (s) => idempotentAppend(s, 'k-new', 'two', user('once only')) },
  { name: 'twin of the new key', run: (s) => idempotentAppend(s, 'k-new', 'two', user('once only')) },
  {
    name: 'throws after writing',
    run: (s) =>
      s.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('messages')
          .values({
            session_id: 'one',
            role: 'user',
            content: 'never committed',
            timestamp: 1,
            display_kind: 'visible',
            substring_indexed: 1,
          })
          .execute();
        await trx.updateTable('sessions').set({ message_count: 999 }).where('id', '=', 'one').execute();
        throw new Error('the request failed after writing');
      }),
  },
  {
    // Bypasses the API's validation: the counters' UPDATE runs, then the INSERT fails (NOT NULL).
    name: 'append that throws after its UPDATE',
    run: (s) => s.messages.append(ctx(), 'one', { messages: [{ role: null, content: 'no role' }] } as never),
  },
  { name: 'stale If-Match', run: (s) => s.messages.append(ctx(), 'one', user('late edit'), { ifMatch: 0 }) },
  {
    name: 'append with usage',
    run: (s) =>
      s.messages.append(ctx(), 'two', {
        ...user('with tokens', { platformMessageId: 'p-3' }),
        usage: { inputTokens: 120, outputTokens: 30, estimatedCostUsd: 0.25 },
        model: 'gpt-test',
      }),
  },
  { name: 'valid append after the failures', run: (s) => s.messages.append(ctx(), 'one', user('still fine')) },
];

/**
 * Every table's rows (search index internals aside: their contents are checked by a search). The
 * searches run first: a search indexes what commits of the last moments left pending
 * (docs/search.md), so both stores' queues are empty when their rows are read.
 */
export async function snapshot(store: StateStore) {
  // Words of kept and of rolled-back writes: the index holds exactly the kept ones.
  const hits: Record<string, number> = {};
  for (const q of ['hello', 'tokens', 'committed', 'edit', 'lost', 'turn']) {
    hits[q] = (await store.search.search(ctx(), SearchQuerySchema.parse({ q }))).items.length;
  }
  const tables = (
    await sql<{ name: string }>`select name from sqlite_master where type = 'table' order by name`.execute(store.db)
  ).rows
    .map((row) => row.name)
    .filter((name) => !/^(messages_fts|messages_trgm|kysely_migration)/.test(name));
  const rows: Record<string, unknown[]> = {};
  for (const name of tables) {
    rows[name] = (await sql`select * from ${sql.table(name)} order by rowid`.execute(store.db)).rows;
  }
  // Each store mints its own random epoch (docs/domain.md §5.3.6): not part of what the writes made.
  rows.store_meta = (rows.store_meta as { key: string }[]).filter((row) => row.key !== 'store_epoch');
  return { rows, hits };
}

/** The requests one by one, each awaited before the next. */
export async function runSerially(store: StateStore): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const request of requests) outcomes.push(await outcome(request.run(store)));
  return outcomes;
}

/**
 * The requests while the write lock is held — by default by a transaction of the event loop's
 * writer; each queues behind it, in order, and once it ends they run as one group. `release`:
 * another way to hold it, ended once every request has started.
 */
export async function runHeld(store: StateStore, release?: () => Promise<void>): Promise<Outcome[]> {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const holder = release ? null : store.db.transaction().execute(() => gate);
  const pending: Promise<Outcome>[] = [];
  for (const request of requests) {
    pending.push(outcome(request.run(store)));
    // Let it reach the writer's queue before the next starts (that fixes the commit order).
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (release) await release();
  else {
    open();
    await holder;
  }
  return Promise.all(pending);
}

/**
 * What each request must get (not the same accident twice); the twin of the new key replays
 * the new key's answer.
 */
export const INTENDED: Record<string, object> = {
  'valid append': { ok: { created: 1 } },
  'stale generation': { error: 'StaleGenerationError' },
  'duplicate platform id': { ok: { created: 0 } },
  'unknown session': { error: 'NotFoundError' },
  'idempotent replay': { ok: { replayed: { created: 1 } } },
  'new idempotency key': { ok: { created: 1 } },
  'throws after writing': { error: 'Error: the request failed after writing' },
  'append that throws after its UPDATE': { error: 'SqliteError: NOT NULL constraint failed: messages.role' },
  'stale If-Match': { error: 'RevisionConflictError' },
  'append with usage': { ok: { created: 1 } },
  'valid append after the failures': { ok: { created: 1 } },
};

export function byName(outcomes: Outcome[]): Record<string, Outcome> {
  return Object.fromEntries(requests.map((request, i) => [request.name, outcomes[i]]));
}

/**
 * The grouped run's answers against the serial run's, request by request, and against what each
 * must be (`expect`: the calling test's, so failures name the request).
 */
export function expectSameAsSerial(expect: ExpectStatic, grouped: Outcome[], serial: Outcome[]): void {
  for (const [i, request] of requests.entries()) {
    expect({ request: request.name, outcome: grouped[i] }).toEqual({ request: request.name, outcome: serial[i] });
  }
  const answers = byName(grouped);
  for (const [name, intended] of Object.entries(INTENDED))
    expect({ name, ...answers[name] }).toMatchObject({ name, ...intended });
  expect(answers['twin of the new key']).toEqual({
    ok: { replayed: (answers['new idempotency key'] as { ok: unknown }).ok },
  });
}
