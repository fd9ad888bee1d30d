import { beforeAll, describe, expect, it } from 'vitest';
import { assertApiBuilt } from '../support/process-kit.js';
import { adminToken, client, type Reply, startApi } from './support/cluster.js';
import { expectChainAndIndexes, kill9Database, receiptsNaming, system } from './support/kill9.js';

const TRIALS = 10;
/** Trials of many concurrent appenders (the API commits their appends in groups), and how many. */
const GROUP_TRIALS = 4;
const GROUP_CLIENTS = 32;

/**
 * An API process on a SQLite file killed with SIGKILL at a random moment of a write load — appends
 * and deletions (single and bulk) at once — in ten trials (seeded, so a failure replays): ten kills
 * during appends and ten during deletions. After the trials:
 * every acknowledged write is present exactly once, receipts and deletions match both ways, the
 * receipt chain verifies, the search indexes hold no orphan postings, and SQLite's own
 * integrity_check passes. Four more trials kill it while 32 clients append at once, so that the
 * kill lands among group commits (docs/architecture.md, "Group commit") on the append writer's thread.
 */
describe('kill -9 during appends and deletes on SQLite', () => {
  const { databaseUrl, random, withStore, expectFileIntact } = kill9Database('statehouse-kill9-', 2026);
  let call: ReturnType<typeof client>;

  beforeAll(() => {
    // Only API processes are started: the API's build is all this suite needs.
    assertApiBuilt();
    call = client(adminToken(databaseUrl));
  });

  /**
   * A fresh API process: `setup` runs to completion, then `load` runs until the process is killed
   * after a random 150–650 ms.
   */
  async function trial(
    setup: (base: string) => Promise<void>,
    load: (base: string, stopped: () => boolean) => Promise<void>,
  ): Promise<void> {
    const api = await startApi('api', databaseUrl);
    await setup(api.url);
    let killed = false;
    const running = load(api.url, () => killed);
    await new Promise((resolve) => setTimeout(resolve, 150 + random() * 500));
    killed = true;
    await api.stop('SIGKILL');
    await running;
  }

  /** The file-level checks every trial set ends with. */
  async function expectIntact() {
    expectFileIntact([
      // Per-session counters agree with the rows (a half-applied append would show here).
      `select count(*) from sessions s where s.message_count <> (select count(*) from messages m where m.session_id = s.id)`,
    ]);
    // Term by term: postings of deleted or never-committed messages would be mismatches.
    await withStore(expectChainAndIndexes);
  }

  const acknowledgedAppends = new Map<string, string>();
  const acknowledgedDeletes = new Map<string, string[]>();
  const pool: string[] = [];
  const serverErrors: Reply[] = [];

  /** Appends through 4 connections until the kill. */
  async function appendLoad(base: string, session: string, t: number, stopped: () => boolean) {
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (!stopped()) {
          const content = `t${t}-m${next++}`;
          const reply = await call(base, 'POST', `/v1/sessions/${session}/messages`, {
            messages: [{ role: 'user', content: `${content} kill nine` }],
          }).catch(() => null);
          if (reply?.status === 201) acknowledgedAppends.set(content, session);
          else if (reply && reply.status >= 500) serverErrors.push(reply);
        }
      }),
    );
  }

  /** Single deletes on two lanes and one bulk delete, until the kill. */
  async function deleteLoad(base: string, ids: string[], stopped: () => boolean) {
    const singles = ids.slice(0, 30);
    const bulk = ids.slice(30);
    const deleteOne = async (id: string) => {
      const session = await call(base, 'GET', `/v1/sessions/${id}`).catch(() => null);
      if (session?.status !== 200) return;
      const reply = await call(base, 'DELETE', `/v1/sessions/${id}`, undefined, {
        'If-Match': `"${session.body.revision}"`,
        'X-Expected-Generation': String(session.body.generation),
      }).catch(() => null);
      if (reply?.status === 200) acknowledgedDeletes.set(reply.body.receipt.operationId, reply.body.deletedIds);
      else if (reply && reply.status >= 500) serverErrors.push(reply);
    };
    const bulkDelete = async () => {
      const items = [];
      for (const id of bulk) {
        const session = await call(base, 'GET', `/v1/sessions/${id}`).catch(() => null);
        if (session?.status === 200)
          items.push({ id, revision: session.body.revision, generation: session.body.generation });
      }
      const reply = await call(base, 'POST', '/v1/sessions/bulk-delete', { items }).catch(() => null);
      if (reply?.status === 200) {
        for (const receipt of reply.body.receipts) acknowledgedDeletes.set(receipt.operationId, []);
      } else if (reply && reply.status >= 500) serverErrors.push(reply);
    };
    await Promise.all([
      bulkDelete(),
      ...[0, 1].map(async (lane) => {
        for (let i = lane; i < singles.length && !stopped(); i += 2) await deleteOne(singles[i]);
      }),
    ]);
  }

  it(`${TRIALS} trials killed at random during appends and deletes: every acknowledged append present exactly once`, async () => {
    await withStore(async (store) => {
      for (let t = 0; t < TRIALS; t++) {
        for (let s = 0; s < 40; s++) {
          const id = `del-${t}-${s}`;
          await store.sessions.create(system, {
            id,
            profile: 'k9',
            source: 'cli',
            messages: Array.from({ length: 5 }, (_, i) => ({
              role: 'user' as const,
              content: `${id} doomed line ${i}`,
            })),
          });
          pool.push(id);
        }
      }
    });
    for (let t = 0; t < TRIALS; t++) {
      const session = `append-trial-${t}`;
      await trial(
        async (base) => {
          expect((await call(base, 'POST', '/v1/sessions', { id: session, profile: 'k9', source: 'cli' })).status).toBe(
            201,
          );
        },
        (base, stopped) =>
          Promise.all([
            appendLoad(base, session, t, stopped),
            deleteLoad(
              base,
              pool.filter((id) => id.startsWith(`del-${t}-`)),
              stopped,
            ),
          ]).then(() => undefined),
      );
    }
    expect(serverErrors).toEqual([]);
    expect(acknowledgedAppends.size).toBeGreaterThan(TRIALS);
    await withStore(async (store) => {
      for (let t = 0; t < TRIALS; t++) {
        const page = await store.messages.list(system, `append-trial-${t}`, {
          limit: 1000,
          order: 'oldest',
          includeCompacted: true,
          includeHidden: true,
          includeInactive: true,
        });
        const contents = page.items.map((message) => String(message.content).replace(' kill nine', ''));
        expect(contents.length).toBe(new Set(contents).size);
        for (const [content, session] of acknowledgedAppends) {
          if (session === `append-trial-${t}`) expect(contents).toContain(content);
        }
      }
    });
  }, 60_000);

  it(`${GROUP_TRIALS} trials killed at random during group commits (${GROUP_CLIENTS} concurrent appenders): every acknowledged append present exactly once`, async () => {
    const acknowledged = new Map<string, string>();
    // The API's own counters: requests committed vs write transactions (more requests = groups happened).
    let groupedBeyondOne = 0;
    // …and the appends the append writer's thread committed (docs/architecture.md, "The append writer").
    let onWriterThread = 0;
    const counter = (text: string, name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    for (let t = 0; t < GROUP_TRIALS; t++) {
      const sessions = Array.from({ length: 8 }, (_, i) => `group-trial-${t}-${i}`);
      await trial(
        async (base) => {
          for (const id of sessions) {
            expect((await call(base, 'POST', '/v1/sessions', { id, profile: 'k9', source: 'cli' })).status).toBe(201);
          }
        },
        (base, stopped) =>
          Promise.all([
            ...Array.from({ length: GROUP_CLIENTS }, async (_, c) => {
              const session = sessions[c % sessions.length];
              for (let n = 0; !stopped(); n++) {
                const content = `g${t}-c${c}-m${n}`;
                // An idempotency record rides in each group too.
                const reply = await call(
                  base,
                  'POST',
                  `/v1/sessions/${session}/messages`,
                  { messages: [{ role: 'user', content: `${content} kill nine`, platformMessageId: content }] },
                  { 'Idempotency-Key': content },
                ).catch(() => null);
                if (reply?.status === 201) acknowledged.set(content, session);
                else if (reply && reply.status >= 500) serverErrors.push(reply);
              }
            }),
            (async () => {
              while (!stopped()) {
                const text = await fetch(`${base}/metrics`)
                  .then((response) => response.text())
                  .catch(() => '');
                const grouped =
                  counter(text, 'statehouse_store_group_commit_requests_total') -
                  counter(text, 'statehouse_store_write_transactions_total');
                groupedBeyondOne = Math.max(groupedBeyondOne, grouped);
                const threaded = Number(
                  /^statehouse_sqlite_appends_total\{thread="append_writer"\} (\d+)$/m.exec(text)?.[1] ?? 0,
                );
                onWriterThread = Math.max(onWriterThread, threaded);
                await new Promise((resolve) => setTimeout(resolve, 50));
              }
            })(),
          ]).then(() => undefined),
      );
    }
    expect(serverErrors).toEqual([]);
    expect(acknowledged.size).toBeGreaterThan(GROUP_TRIALS);
    // Not vacuous: the kills landed on a process that was committing appends in groups.
    expect(groupedBeyondOne).toBeGreaterThan(0);
    expect(onWriterThread).toBeGreaterThan(0);
    await withStore(async (store) => {
      const stored = new Map<string, string>();
      for (let t = 0; t < GROUP_TRIALS; t++) {
        for (let i = 0; i < 8; i++) {
          const session = `group-trial-${t}-${i}`;
          const page = await store.messages.list(system, session, {
            limit: 1000,
            order: 'oldest',
            includeCompacted: true,
            includeHidden: true,
            includeInactive: true,
          });
          expect(page.nextCursor).toBeNull();
          for (const message of page.items) {
            const content = String(message.content).replace(' kill nine', '');
            // Exactly once: no content twice, in any session.
            expect(stored.has(content)).toBe(false);
            stored.set(content, session);
          }
        }
      }
      for (const [content, session] of acknowledged) expect(stored.get(content)).toBe(session);
      // Each acknowledged append kept its idempotency record (committed with it).
      const keys = new Set(
        (
          await store.db
            .selectFrom('idempotency_keys')
            .select('idempotency_key')
            .where('idempotency_key', 'like', 'g%')
            .execute()
        ).map((row) => row.idempotency_key),
      );
      for (const content of acknowledged.keys()) expect(keys.has(content)).toBe(true);
    });
  }, 90_000);

  it('after the kills: receipts ⇔ deletions, chain intact, no orphan postings, integrity_check ok', async () => {
    expect(acknowledgedDeletes.size).toBeGreaterThan(TRIALS);
    await withStore(async (store) => {
      // A session is named by one receipt only.
      const { receipts, named } = await receiptsNaming(store);
      // Every acknowledged deletion has its receipt.
      const operations = new Set(receipts.map((receipt) => receipt.operationId));
      for (const operationId of acknowledgedDeletes.keys()) expect(operations.has(operationId)).toBe(true);
      const remaining = new Set(
        (await store.db.selectFrom('sessions').select('id').where('profile', '=', 'k9').execute()).map((row) => row.id),
      );
      for (const id of pool) {
        // Receipts ⇔ deletions: gone exactly when a receipt names it.
        expect(remaining.has(id)).toBe(!named.has(id));
      }
      for (const [operationId, deletedIds] of acknowledgedDeletes) {
        for (const id of deletedIds) expect(named.get(id)).toBe(operationId);
      }
    });
    await expectIntact();
  }, 60_000);
});
