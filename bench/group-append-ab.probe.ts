/**
 * Store-level A/B of migration 2026-12-01T06.00 (search indexes written at COMMIT): two stores of
 * this build on temp files, seeded alike; store A is migrated one step down (the triggers index at
 * INSERT, as before), store B is not. Rounds alternate (order swapped each round): `groups` times,
 * 32 concurrent `store.messages.append` calls of one message each (one group commit of 32), then
 * the FTS5 levels are merged back (what the background merger does between writes; timed apart).
 * Reports µs per append (wall and process CPU — one thread does all the work) and merge µs per
 * append, medians and spread, and the paired B/A ratio.
 *
 *   npx tsx bench/group-append-ab.probe.ts [rounds=9] [groups=40] [seedMessages=100000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type StateStore, silentLogger } from '@statehouse/state';
import { Migrator, sql } from 'kysely';
import { migrationProvider } from '../libs/state/src/db/migrator.js';
import { MessageFactory } from './lib/data.js';
import { ADMIN_CTX } from './lib/stores.js';

const ROUNDS = Number(process.argv[2] ?? 9);
const GROUPS = Number(process.argv[3] ?? 40);
const SEED = Number(process.argv[4] ?? 100_000);
const CLIENTS = 32;

async function prepare(path: string, down: boolean): Promise<StateStore> {
  const store = await openStore({ url: `file:${path}`, logger: silentLogger, ftsMerger: false });
  if (down) {
    const { error, results } = await new Migrator({
      db: store.db,
      provider: migrationProvider('sqlite'),
    }).migrateDown();
    if (error || results?.[0]?.migrationName !== '2026-12-01T06.00-search-index-at-commit') {
      throw new Error(`unexpected migrate down: ${String(error)} ${JSON.stringify(results)}`);
    }
  }
  const factory = new MessageFactory(5);
  for (let k = 0; k < CLIENTS; k++) {
    await store.sessions.create(ADMIN_CTX, { id: `g-${k}`, profile: 'bench', source: 'cli' });
  }
  for (let i = 0; i < SEED / 100; i++) {
    await store.messages.append(ADMIN_CTX, `g-${i % CLIENTS}`, {
      messages: factory.messages(100).map((message) => ({ role: message.role, content: message.content })),
    });
  }
  await merge(store);
  return store;
}

async function merge(store: StateStore): Promise<number> {
  const started = performance.now();
  for (const table of ['messages_fts', 'messages_trgm']) {
    for (;;) {
      const before = Number((await sql<{ n: number }>`select total_changes() as n`.execute(store.db)).rows[0].n);
      await sql.raw(`insert into ${table}(${table}, rank) values ('merge', 500)`).execute(store.db);
      const after = Number((await sql<{ n: number }>`select total_changes() as n`.execute(store.db)).rows[0].n);
      if (after - before < 2) break;
    }
  }
  return performance.now() - started;
}

function summary(values: number[], digits = 1): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `${sorted[Math.floor(sorted.length / 2)].toFixed(digits)} (${sorted[0].toFixed(digits)}–${sorted.at(-1)!.toFixed(digits)})`;
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'group-ab-'));
  const stores = {
    A: await prepare(join(dir, 'a.db'), true),
    B: await prepare(join(dir, 'b.db'), false),
  };
  const texts = new MessageFactory(11).messages(4096).map((message) => message.content as string);
  let next = 0;
  const results = {
    A: { wall: [] as number[], cpu: [] as number[], merge: [] as number[] },
    B: { wall: [] as number[], cpu: [] as number[], merge: [] as number[] },
  };
  const runGroups = async (store: StateStore, start: number, groups: number) => {
    for (let g = 0; g < groups; g++) {
      await Promise.all(
        Array.from({ length: CLIENTS }, (_, k) =>
          store.messages.append(ADMIN_CTX, `g-${k}`, {
            messages: [{ role: 'user', content: texts[(start + g * CLIENTS + k) % texts.length] }],
          }),
        ),
      );
    }
  };
  try {
    for (const store of Object.values(stores)) {
      await runGroups(store, 0, 5);
      await merge(store);
    }
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const);
      const start = next;
      next += GROUPS * CLIENTS;
      for (const name of order) {
        const store = stores[name];
        const appends = GROUPS * CLIENTS;
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        await runGroups(store, start, GROUPS);
        const wall = performance.now() - t0;
        const cpu = process.cpuUsage(cpu0);
        results[name].wall.push((wall * 1000) / appends);
        results[name].cpu.push((cpu.user + cpu.system) / appends);
        results[name].merge.push(((await merge(store)) * 1000) / appends);
      }
      console.log(
        `round ${round + 1}: ${(['A', 'B'] as const)
          .map(
            (name) =>
              `${name} ${results[name].wall.at(-1)!.toFixed(0)} µs wall, ${results[name].cpu.at(-1)!.toFixed(0)} µs CPU, merge ${results[name].merge.at(-1)!.toFixed(0)} µs`,
          )
          .join(' | ')}`,
      );
    }
    for (const name of ['A', 'B'] as const) {
      console.log(
        `${name}: per append wall ${summary(results[name].wall)} µs, CPU ${summary(results[name].cpu)} µs, merge after ${summary(results[name].merge)} µs`,
      );
    }
    const ratio = (key: 'wall' | 'cpu') => results.B[key].map((value, i) => (100 * value) / results.A[key][i]);
    console.log(`B/A per round: wall ${summary(ratio('wall'))} %, CPU ${summary(ratio('cpu'))} %`);
    for (const [name, store] of Object.entries(stores)) {
      const status = await store.searchIndex.status(ADMIN_CTX, true);
      console.log(`${name}: integrity ${status.integrity?.ok ? 'ok' : 'FAILED'}`);
    }
  } finally {
    for (const store of Object.values(stores)) await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
