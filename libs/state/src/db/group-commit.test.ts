import { sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../shared/logger.js';
import {
  ctx,
  expectSameAsSerial,
  groupRecordingStores,
  type Outcome,
  outcome,
  requests,
  runHeld,
  runSerially,
  seed,
  snapshot,
  user,
} from '../testing/group-commit-scenario.js';
import { aSession } from '../testing/index.js';
import { UnitOfWork } from './unit-of-work.js';

/**
 * Group commit (docs/architecture.md, "Group commit"): requests that reach the SQLite writer while
 * a shared transaction is open run in it under their own savepoints and commit together. Every
 * request must get the answer it would get alone, and the store must end as a serial run leaves it.
 */

const open = groupRecordingStores();
afterEach(() => {
  vi.useRealTimers();
});

/** A store whose groups are closed only by the test (no request or time limit gets in the way). */
const storeRecordingGroups = (limits: { maxRequests?: number; maxMs?: number } = {}) =>
  open({ groupCommit: { maxRequests: 1000, maxMs: 60_000, ...limits } });

describe('group commit on SQLite', () => {
  it('a mixed group: each request gets the answer it gets alone, and the rows equal a serial run', async () => {
    const serial = await storeRecordingGroups();
    await seed(serial.store);
    const serialOutcomes = await runSerially(serial.store);
    const serialGroups = serial.groups.length;

    const grouped = await storeRecordingGroups();
    await seed(grouped.store);
    grouped.groups.length = 0;
    const groupedOutcomes = await runHeld(grouped.store);

    // Not vacuous: the requests that reached the writer went in one transaction (plus the holder).
    // The replay of a recorded key answers from its record without a transaction.
    expect(grouped.groups).toEqual([requests.length - 1 + 1]);
    expect(serialGroups).toBeGreaterThanOrEqual(requests.length - 1);

    expectSameAsSerial(expect, groupedOutcomes, serialOutcomes);

    expect(await snapshot(grouped.store)).toEqual(await snapshot(serial.store));
  });

  it('requests started together commit together without being held (one loop turn)', async () => {
    const { store, groups } = await storeRecordingGroups({ maxRequests: 64, maxMs: 60_000 });
    await aSession(store, { id: 'many', profile: 'gc' });
    groups.length = 0;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.messages.append(ctx(), 'many', user(`message ${i}`))),
    );
    expect(groups).toEqual([20]);
    // Revisions in commit order, one per request, as a serial run numbers them.
    expect(results.map((result) => result.revision)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    expect((await store.sessions.get(ctx(), 'many')).messageCount).toBe(20);
  });

  it('a group closes at its request limit; the rest form the next group', async () => {
    const { store, groups } = await storeRecordingGroups({ maxRequests: 8 });
    await aSession(store, { id: 'capped', profile: 'gc' });
    groups.length = 0;
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.messages.append(ctx(), 'capped', user(`m${i}`))));
    expect(groups).toEqual([8, 8, 4]);
  });

  it('a lone request commits without waiting for company (no timer involved)', async () => {
    const { store, groups } = await storeRecordingGroups({ maxRequests: 64, maxMs: 8 });
    await aSession(store, { id: 'lone', profile: 'gc' });
    groups.length = 0;
    // With timers frozen, anything that waited on one would never finish.
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval'] });
    const result = await store.messages.append(ctx(), 'lone', user('alone'));
    vi.useRealTimers();
    expect(result.created).toBe(1);
    expect(groups).toEqual([1]);
    expect((await store.sessions.get(ctx(), 'lone')).messageCount).toBe(1);
  });

  it('`maxRequests: 1` commits every request alone (grouping off)', async () => {
    const { store, groups } = await storeRecordingGroups({ maxRequests: 1 });
    await aSession(store, { id: 'solo', profile: 'gc' });
    groups.length = 0;
    await Promise.all(Array.from({ length: 5 }, (_, i) => store.messages.append(ctx(), 'solo', user(`m${i}`))));
    expect(groups).toEqual([1, 1, 1, 1, 1]);
  });

  it('effects after commit run once the shared COMMIT is done, and never when it fails', async () => {
    const { store, groups } = await storeRecordingGroups();
    const uow = new UnitOfWork(store.db, 'sqlite', store.clock, silentLogger);
    await aSession(store, { id: 'effects', profile: 'gc' });
    groups.length = 0;
    const seen: { request: number; groupsCommitted: number; visibleTitle: string | null }[] = [];
    const request = (n: number, poison = false) =>
      outcome(
        uow.run(ctx(), async (tx) => {
          if (poison) {
            // Succeeds on its own; SQLite refuses the shared COMMIT (deferred foreign key).
            await sql`pragma defer_foreign_keys = on`.execute(tx.db);
            await sql`insert into messages (session_id, role, content, timestamp, display_kind) values ('missing', 'user', 'x', 1, 'visible')`.execute(
              tx.db,
            );
          } else {
            await tx.db
              .updateTable('sessions')
              .set({ title: `t${n}` })
              .where('id', '=', 'effects')
              .execute();
          }
          tx.afterCommit(async () => {
            // Read on the reader connection: it sees only committed data.
            const session = await store.sessions.get(ctx(), 'effects');
            seen.push({ request: n, groupsCommitted: groups.length, visibleTitle: session.title });
          });
          return n;
        }),
      );
    const hold = async (requests: (() => Promise<Outcome>)[]) => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const holder = store.db.transaction().execute(() => gate);
      const pending = [];
      for (const start of requests) {
        pending.push(start());
        await new Promise((resolve) => setImmediate(resolve));
      }
      release();
      await holder.catch(() => undefined);
      return Promise.all(pending);
    };
    expect(await hold([() => request(1), () => request(2)])).toEqual([{ ok: 1 }, { ok: 2 }]);
    expect(groups).toEqual([3]);
    // Both effects ran after the one COMMIT and saw both requests' writes.
    expect(seen).toEqual([
      { request: 1, groupsCommitted: 1, visibleTitle: 't2' },
      { request: 2, groupsCommitted: 1, visibleTitle: 't2' },
    ]);
    seen.length = 0;
    const failed = await hold([() => request(3), () => request(4, true)]);
    expect(failed).toEqual([
      { error: expect.stringMatching(/FOREIGN KEY/) },
      { error: expect.stringMatching(/FOREIGN KEY/) },
    ]);
    expect(seen).toEqual([]);
    expect((await store.sessions.get(ctx(), 'effects')).title).toBe('t2');
  });

  it('a failed COMMIT fails every request of the group (none acknowledged); the next group works', async () => {
    const { store, groups } = await storeRecordingGroups();
    await aSession(store, { id: 'doomed', profile: 'gc' });
    groups.length = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const holder = outcome(store.db.transaction().execute(() => gate));
    const first = outcome(store.messages.append(ctx(), 'doomed', user('before')));
    await new Promise((resolve) => setImmediate(resolve));
    // A request that succeeds on its own but leaves a deferred foreign-key violation: SQLite
    // refuses the shared COMMIT.
    const poison = outcome(
      store.db.transaction().execute(async (trx) => {
        await sql`pragma defer_foreign_keys = on`.execute(trx);
        await trx
          .insertInto('messages')
          .values({ session_id: 'no-such-session', role: 'user', content: 'x', timestamp: 1, display_kind: 'visible' })
          .execute();
        return 'looked fine';
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    const after = outcome(store.messages.append(ctx(), 'doomed', user('after')));
    await new Promise((resolve) => setImmediate(resolve));
    release();
    const answers = await Promise.all([holder, first, poison, after]);
    expect(groups).toEqual([4]);
    for (const answer of answers) {
      expect(answer).toMatchObject({ error: expect.stringMatching(/FOREIGN KEY constraint failed/) });
    }
    expect((await store.sessions.get(ctx(), 'doomed')).messageCount).toBe(0);
    expect(await store.messages.append(ctx(), 'doomed', user('next'))).toMatchObject({ created: 1, revision: 2 });
    expect(groups).toEqual([4, 1]);
  });

  it('a request SQLite aborts the whole transaction for takes its group down with it (store_unavailable)', async () => {
    const { store, groups } = await storeRecordingGroups();
    await aSession(store, { id: 'aborted', profile: 'gc' });
    groups.length = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const first = outcome(
      store.db.transaction().execute(async (trx) => {
        await gate;
        return trx.selectFrom('sessions').select('id').execute();
      }),
    );
    const appended = outcome(store.messages.append(ctx(), 'aborted', user('lost with the group')));
    await new Promise((resolve) => setImmediate(resolve));
    // ON CONFLICT ROLLBACK ends the whole transaction, as disk-full or I/O errors do.
    const aborting = outcome(
      store.db.transaction().execute(async (trx) => {
        await sql`insert or rollback into sessions select * from sessions where id = 'aborted'`.execute(trx);
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    release();
    const [one, two, three] = await Promise.all([first, appended, aborting]);
    expect(one).toMatchObject({ error: 'StoreUnavailableError' });
    expect(two).toMatchObject({ error: 'StoreUnavailableError' });
    expect(three).toMatchObject({ error: expect.stringMatching(/UNIQUE constraint failed/) });
    expect(groups).toEqual([3]);
    expect((await store.sessions.get(ctx(), 'aborted')).messageCount).toBe(0);
  });
});
