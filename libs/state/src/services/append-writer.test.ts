import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { NotFoundError, RevisionConflictError, StoreUnavailableError } from '../shared/errors.js';
import { silentLogger } from '../shared/logger.js';
import { openStore } from '../store.js';
import {
  ctx,
  expectSameAsSerial,
  groupRecordingStores,
  outcome,
  requests,
  runHeld,
  runSerially,
  seed,
  snapshot,
  user,
} from '../testing/group-commit-scenario.js';
import { aSession, createTestDatabase } from '../testing/index.js';

/**
 * The append writer (docs/architecture.md, "The append writer"): appends run on a thread of their
 * own with a write connection of their own, with group commit there, and every answer must be the
 * one the event loop's writer gives.
 */

const open = groupRecordingStores();

describe('the append writer (SQLite file)', () => {
  it('a mixed group on its thread: each request gets the answer it gets alone, and the rows equal a serial run', async () => {
    const serial = await open();
    await seed(serial.store);
    const serialOutcomes = await runSerially(serial.store);

    const threaded = await open({ appendWriter: 'always' });
    expect(threaded.store.appendWriter()?.status().running).toBe(true);
    await seed(threaded.store);
    threaded.groups.length = 0;
    const before = threaded.store.appendWriter()!.status().onThread;
    // Another connection holds the file's write lock: the thread's first append waits for it
    // (BUSY, retried on timers) and the others queue behind it on the thread, in order; released
    // once all of them have reached the thread, they run as one group there.
    const holder = new Database(threaded.url.slice('file:'.length));
    holder.prepare('begin immediate').run();
    const threadedOutcomes = await runHeld(threaded.store, async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      holder.prepare('commit').run();
      holder.close();
    });
    expectSameAsSerial(expect, threadedOutcomes, serialOutcomes);
    // Not vacuous: every append went to the thread (all but the replay, answered from its record)
    // and they committed as one group there; the raw transaction that throws ran on the event
    // loop's writer, alone.
    const appends = requests.filter((r) => r.name !== 'throws after writing' && r.name !== 'idempotent replay');
    expect(threaded.store.appendWriter()!.status().onThread - before).toBe(appends.length);
    expect([...threaded.groups].sort((a, b) => a - b)).toEqual([1, appends.length]);

    expect(await snapshot(threaded.store)).toEqual(await snapshot(serial.store));
  });

  it('appends the thread commits within the search-index lag stay pending until a search of the event loop indexes them', async () => {
    const { store, url } = await open({ appendWriter: 'always', groupCommit: { searchIndexLagMs: 3_600_000 } });
    await aSession(store, { id: 's', profile: 'gc' });
    const before = store.appendWriter()!.status().onThread;
    // The thread's first COMMIT indexes; the next ones come within its lag and leave their rows.
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      ids.push(String((await store.messages.append(ctx(), 's', user(`on the thread gnuword${i}`))).ids[0]));
    }
    expect(store.appendWriter()!.status().onThread - before).toBe(4);
    const file = new Database(url.slice('file:'.length), { readonly: true });
    try {
      const pending = () =>
        (file.prepare('select count(*) as n from messages_search_pending').get() as { n: number }).n;
      expect(pending()).toBe(3);
      for (let i = 0; i < 4; i++) {
        const found = await store.search.search(ctx(), { q: `gnuword${i}`, mode: 'word', limit: 10 });
        expect(found.items.map((item) => String(item.messageId))).toEqual([ids[i]]);
      }
      expect(pending()).toBe(0);
    } finally {
      file.close();
    }
  });

  it('errors cross as their own classes, and a spent Idempotency-Key claim is marked on the caller', async () => {
    const { store } = await open({ appendWriter: 'always' });
    await aSession(store, { id: 's', profile: 'gc' });
    const missing = await store.messages.append(ctx(), 'nobody', user('x')).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ code: 'not_found', message: 'session not found' });
    const stale = await store.messages.append(ctx(), 's', user('x'), { ifMatch: 7 }).catch((error: unknown) => error);
    expect(stale).toBeInstanceOf(RevisionConflictError);
    expect(stale).toMatchObject({ code: 'revision_conflict', currentRevision: 1, extra: { currentRevision: 1 } });
    const claim = { key: 'k', fingerprint: 'f', status: 201, recorded: false };
    await store.messages.append(ctx(claim), 's', user('once'));
    expect(claim.recorded).toBe(true);
    expect(await store.idempotency.lookup(ctx().principal, 'k', 'f')).toMatchObject({ kind: 'replay' });
  });

  it('appends one at a time run on the event loop; overlapping ones on the thread', async () => {
    const { store } = await open({ appendWriter: true, clock: undefined, groupCommit: undefined });
    await aSession(store, { id: 'mix', profile: 'gc' });
    const writer = store.appendWriter()!;
    for (let i = 0; i < 5; i++) await store.messages.append(ctx(), 'mix', user(`lone ${i}`));
    expect(writer.status()).toMatchObject({ inThread: 5, onThread: 0 });
    const together = await Promise.all(
      Array.from({ length: 40 }, (_, i) => store.messages.append(ctx(), 'mix', user(`together ${i}`))),
    );
    // The first of them found none in flight; the others met it, and went to the thread.
    expect(writer.status()).toMatchObject({ inThread: 6, onThread: 39 });
    // Revisions are those of a serial run in commit order: every one once, none skipped.
    expect(together.map((r) => r.revision).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 7));
    expect((await store.sessions.get(ctx(), 'mix')).messageCount).toBe(45);
  });

  it('a stopped thread fails only the appends it held, is replaced, and loses no acknowledged append', async () => {
    const { store } = await open({ appendWriter: 'always', clock: undefined, groupCommit: { maxRequests: 4 } });
    await aSession(store, { id: 'crash', profile: 'gc' });
    const writer = store.appendWriter()!;
    let answered = 0;
    const inFlight = Array.from({ length: 400 }, (_, i) =>
      outcome(store.messages.append(ctx(), 'crash', user(`m${i}`)).finally(() => answered++)),
    );
    // Stopped in the middle: some groups are answered, others not yet.
    while (answered < 20) await new Promise((resolve) => setImmediate(resolve));
    await writer.stopThread();
    const outcomes = await Promise.all(inFlight);
    const acknowledged = outcomes.filter((o) => 'ok' in o).length;
    expect(acknowledged).toBeGreaterThanOrEqual(20);
    expect(acknowledged).toBeLessThan(400);
    for (const o of outcomes) if (!('ok' in o)) expect(o).toMatchObject({ error: 'StoreUnavailableError' });
    expect(writer.status()).toMatchObject({ running: true, restarts: 1 });
    // Every acknowledged append is there (an unacknowledged one may be too: it may have committed
    // just before the thread stopped, as before a crash).
    const count = (await store.sessions.get(ctx(), 'crash')).messageCount;
    expect(count).toBeGreaterThanOrEqual(acknowledged);
    expect(count).toBeLessThanOrEqual(400);
    // The replacement thread answers.
    expect(await store.messages.append(ctx(), 'crash', user('after'))).toMatchObject({ created: 1 });
    expect((await store.sessions.get(ctx(), 'crash')).messageCount).toBe(count + 1);
  });

  it('closing the store answers the appends in flight first', async () => {
    const database = await createTestDatabase('sqlite');
    try {
      const store = await openStore({ url: database.url, logger: silentLogger, appendWriter: 'always' });
      await aSession(store, { id: 'closing', profile: 'gc' });
      const inFlight = Array.from({ length: 50 }, (_, i) => store.messages.append(ctx(), 'closing', user(`m${i}`)));
      const closed = store.close();
      const answers = await Promise.all(inFlight);
      await closed;
      expect(answers.every((answer) => answer.created === 1)).toBe(true);
      await expect(store.messages.append(ctx(), 'closing', user('late'))).rejects.toBeInstanceOf(StoreUnavailableError);
      const again = await openStore({ url: database.url, logger: silentLogger, migrate: false });
      try {
        expect((await again.sessions.get(ctx(), 'closing')).messageCount).toBe(50);
      } finally {
        await again.close();
      }
    } finally {
      await database.drop();
    }
  });

  it("writes of the event loop find the lock between the thread's groups under a steady stream of appends", async () => {
    // A short lock timeout: the two connections wait for each other as two processes do (BUSY
    // retried on timers), and no write of either may wait that long.
    const { store } = await open({
      appendWriter: 'always',
      clock: undefined,
      groupCommit: undefined,
      lockTimeoutMs: 1000,
    });
    await aSession(store, { id: 'busy', profile: 'gc' });
    let stop = false;
    const appenders = Array.from({ length: 32 }, async (_, k) => {
      let n = 0;
      while (!stop) await store.messages.append(ctx(), 'busy', user(`loop ${k} ${n++}`));
      return n;
    });
    const waits: number[] = [];
    for (let i = 0; i < 40; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      const started = performance.now();
      await aSession(store, { id: `side-${i}`, profile: 'gc' });
      waits.push(performance.now() - started);
    }
    stop = true;
    const appended = (await Promise.all(appenders)).reduce((a, b) => a + b, 0);
    // Not vacuous: the creates ran among hundreds of the thread's appends.
    expect(appended).toBeGreaterThan(300);
    expect(store.appendWriter()!.status().onThread).toBeGreaterThan(300);
    expect(Math.max(...waits)).toBeLessThan(1000);
    expect((await store.sessions.get(ctx(), 'busy')).messageCount).toBe(appended);
  });

  it('reports its transactions and statements to the store observers', async () => {
    const operations: string[] = [];
    const { store, groups } = await open({
      appendWriter: 'always',
      onQuery: (operation) => operations.push(operation),
    });
    await aSession(store, { id: 'seen', profile: 'gc' });
    groups.length = 0;
    operations.length = 0;
    await Promise.all([1, 2, 3].map((i) => store.messages.append(ctx(), 'seen', user(`m${i}`))));
    expect(groups.reduce((a, b) => a + b, 0)).toBe(3);
    expect(operations.filter((operation) => operation === 'insert').length).toBeGreaterThanOrEqual(3);
    expect(operations.filter((operation) => operation === 'update').length).toBeGreaterThanOrEqual(3);
  });
});
