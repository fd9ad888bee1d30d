import { DEFAULT_JOB_LEASE_MS, DEFERRED_WORK_JOB, ManualClock } from '@statehouse/state';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertApiBuilt } from '../support/process-kit.js';
import { adminToken, client, type Reply, startApi } from './support/cluster.js';
import { expectChainAndIndexes, kill9Database, receiptsNaming, system } from './support/kill9.js';

const TRIALS = 2;
/** Per pool: sessions × messages well over one chunk's budget (2 000 messages), so deletes go in chunks. */
const SESSIONS_PER_POOL = 14;
const MESSAGES_PER_SESSION = 150;
/** One session per bulk pool over the engine's 2 000 messages: hidden by its deletion, its rows removed after in chunks. */
const HUGE_MESSAGES = 2_400;
const DAY = 86_400_000;

/**
 * An API process on a SQLite file killed with SIGKILL at a random moment while two chunked deletes
 * run — a large bulk delete and a retention prune, each removed in several transactions with a
 * receipt per chunk, and a huge session whose rows go after its receipt — in two trials (seeded, so a failure replays; two, as each starts an API
 * process, to stay within a minute on a loaded machine). Afterwards: every session is
 * gone exactly when a receipt names it, every acknowledged chunk's receipt is there, the chain
 * verifies, no message or search posting outlives its session, and SQLite's integrity_check passes.
 * (The kill -9 suite of appends and single deletes is kill9.test.ts.)
 */
describe('kill -9 during chunked deletes (bulk and retention) on SQLite', () => {
  const { path, databaseUrl, random, withStore, expectFileIntact } = kill9Database('statehouse-kill9-chunks-', 4242);
  let call: ReturnType<typeof client>;
  const pools = new Map<number, { bulk: string[]; retention: string[] }>();
  const acknowledged = new Map<string, string[]>();
  const serverErrors: Reply[] = [];

  beforeAll(async () => {
    assertApiBuilt();
    call = client(adminToken(databaseUrl));
    // Everything was written and ended a month ago: old enough for retention, and no open row for
    // the liveness sweep to touch while the trials run.
    const clock = new ManualClock(Date.now() - 30 * DAY);
    await withStore(async (store) => {
      for (let t = 0; t < TRIALS; t++) {
        const pool = { bulk: [] as string[], retention: [] as string[] };
        for (const [kind, profile] of [
          ['bulk', 'k9bulk'],
          ['retention', `k9ret${t}`],
        ] as const) {
          for (let s = 0; s < SESSIONS_PER_POOL; s++) {
            const id = `${kind}-${t}-${s}`;
            const created = await store.sessions.create(system, {
              id,
              profile,
              source: 'cli',
              messages: Array.from({ length: MESSAGES_PER_SESSION }, (_, i) => ({
                role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
                content: `${id} chunked doomed walrus ${i}`,
              })),
            });
            clock.advance(1000);
            await store.sessions.end(system, id, { reason: 'cli_close' }, { ifMatch: created.revision });
            pool[kind].push(id);
          }
        }
        const huge = `bulk-${t}-huge`;
        const created = await store.sessions.create(system, {
          id: huge,
          profile: 'k9bulk',
          source: 'cli',
          messages: Array.from({ length: HUGE_MESSAGES }, (_, i) => ({
            role: 'user' as const,
            content: `${huge} mammoth ${i}`,
          })),
        });
        await store.sessions.end(system, huge, { reason: 'cli_close' }, { ifMatch: created.revision });
        pool.bulk.splice(SESSIONS_PER_POOL / 2, 0, huge);
        pools.set(t, pool);
      }
    }, clock);
  }, 60_000);

  function record(reply: Reply | null) {
    if (reply?.status === 200) {
      for (const receipt of reply.body.receipts) acknowledged.set(receipt.operationId, reply.body.deletedIds);
    } else if (reply && reply.status >= 500) serverErrors.push(reply);
  }

  it(`${TRIALS} trials killed at random during a chunked bulk delete and a retention prune`, async () => {
    for (let t = 0; t < TRIALS; t++) {
      const pool = pools.get(t)!;
      const api = await startApi('api', databaseUrl, { STATEHOUSE_RETENTION_INTERVAL_SECONDS: '0' });
      // The bulk delete presents each session's revision and generation, as a client would.
      const items = [];
      for (const id of pool.bulk) {
        const session = await call(api.url, 'GET', `/v1/sessions/${id}`);
        expect(session.status).toBe(200);
        items.push({ id, revision: session.body.revision, generation: session.body.generation });
      }
      const bulk = call(api.url, 'POST', '/v1/sessions/bulk-delete', { items }).catch(() => null);
      const retention = call(api.url, 'POST', '/v1/retention/prune', {
        olderThanDays: 7,
        profile: `k9ret${t}`,
        dryRun: false,
      }).catch(() => null);
      // Killed once a first chunk of one of them has committed (the retention prune's in one trial,
      // the bulk delete's in the other), plus a random moment: mid-way through the chunked
      // operations on any machine, however loaded (a fixed delay hit nothing on a busy one,
      // everything on an idle one).
      const receipts = new Database(path, { readonly: true });
      try {
        const origin = t % 2 === 0 ? 'retention' : 'user_api';
        const count = () =>
          Number(receipts.prepare('select count(*) from deletion_receipts where origin = ?').pluck().get(origin));
        const before = count();
        const wanted = before + 1;
        const deadline = Date.now() + 20_000;
        let settled = false;
        void Promise.all([bulk, retention]).then(() => {
          settled = true;
        });
        while (!settled && count() < wanted && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      } finally {
        receipts.close();
      }
      await new Promise((resolve) => setTimeout(resolve, random() * 150));
      await api.stop('SIGKILL');
      const [bulkReply, retentionReply] = [await bulk, await retention];
      record(bulkReply);
      record(retentionReply);
      console.info(
        `trial ${t}: bulk ${bulkReply?.status ?? 'killed'}, retention ${retentionReply?.status ?? 'killed'}`,
      );
    }
    expect(serverErrors).toEqual([]);
  }, 60_000);

  it('after the kills: receipts ⇔ deletions, chain intact, no orphan rows or postings, integrity_check ok', async () => {
    expectFileIntact([
      'select count(*) from pragma_foreign_key_check',
      // No message outlives its session (a chunk half-applied would leave some).
      `select count(*) from messages m where not exists (select 1 from sessions s where s.id = m.session_id)`,
    ]);
    const later = new ManualClock(Date.now() + DEFAULT_JOB_LEASE_MS + 60_000);
    await withStore(async (store) => {
      // A session is named by one receipt only.
      const { receipts, named } = await receiptsNaming(store);
      const operations = new Set(receipts.map((receipt) => receipt.operationId));
      for (const [operationId, deletedIds] of acknowledged) {
        expect(operations.has(operationId)).toBe(true);
        for (const id of deletedIds) expect(named.has(id), id).toBe(true);
      }
      // A hidden row (a huge session's deletion whose rows were still going) is gone for every reader.
      const remaining = new Set(
        (await store.db.selectFrom('sessions').select('id').where('hidden_for', 'is', null).execute()).map(
          (row) => row.id,
        ),
      );
      const hidden = (
        await store.db.selectFrom('sessions').select('id').where('hidden_for', 'is not', null).execute()
      ).map((row) => row.id);
      for (const id of hidden) expect(named.has(id), id).toBe(true);
      let deleted = 0;
      for (const pool of pools.values()) {
        for (const id of [...pool.bulk, ...pool.retention]) {
          // Receipts ⇔ deletions: gone exactly when a receipt names it.
          expect(remaining.has(id), id).toBe(!named.has(id));
          if (named.has(id) && !id.endsWith('-huge')) deleted++;
        }
      }
      // Whatever a kill left of a huge session's removal, the deferred-work job finishes — in a
      // later interval than the killed process's: it ran the job at start-up, so this minute's
      // interval may be served already, or held by its lease until that expires.
      store.jobs.configure(DEFERRED_WORK_JOB, 60_000);
      expect((await store.jobs.runNow(DEFERRED_WORK_JOB, 'kill9-check')).outcome).toBe('ran');
      expect(await store.db.selectFrom('sessions').select('id').where('hidden_for', 'is not', null).execute()).toEqual(
        [],
      );
      const mammoths = [...pools.values()].filter((pool) => !named.has(pool.bulk[SESSIONS_PER_POOL / 2])).length;
      expect((await store.search.search(system, { q: 'mammoth', mode: 'word', limit: 1 })).items.length).toBe(
        Math.min(1, mammoths),
      );
      console.info(`hidden after the kills: ${hidden.length}`);
      // Not vacuous: chunks committed before the kills.
      console.info(`${deleted} of ${SESSIONS_PER_POOL * 2 * TRIALS} sessions deleted, ${receipts.length} receipts`);
      expect(deleted).toBeGreaterThan(0);
      // Term by term: postings of deleted messages would be mismatches.
      await expectChainAndIndexes(store);
      expect((await store.search.search(system, { q: 'walrus', mode: 'word', limit: 100 })).items.length).toBe(
        Math.min(100, (SESSIONS_PER_POOL * 2 * TRIALS - deleted) * MESSAGES_PER_SESSION),
      );
    }, later);
  }, 60_000);
});
