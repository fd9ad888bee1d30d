/**
 * Probe (issue 13, write path): what one group of appends pays for the search indexes' flush per
 * savepoint, against indexing the group's new rows in one statement before its COMMIT.
 *
 *   A (today): BEGIN IMMEDIATE; 32 × (SAVEPOINT; INSERT message; UPDATE session; RELEASE); COMMIT,
 *              the insert trigger writing both FTS5 indexes;
 *   B:         the same on the store's schema since migration 2026-12-01T06.00: the insert trigger
 *              records the rowid in messages_search_pending, and one INSERT … SELECT per index +
 *              DELETE FROM pending (SEARCH_PENDING_FLUSH) run before COMMIT.
 * (Before that migration landed, B was built here by hand from the old schema; same statements.)
 *
 * The store's own migrations build the schema (openStore on a temp file); both files start from the
 * same seeded copy. Rounds alternate A/B (order swapped each round); after each round both files'
 * levels are merged back (FTS5 `merge`, as the background merger does), timed separately.
 *
 *   npx tsx bench/fts-deferred.probe.ts [seedMessages=100000] [rounds=9] [groupsPerRound=30] [groupSize=32]
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SEARCH_PENDING_FLUSH } from '../libs/state/src/db/sqlite-search-pending.js';
import { seedSearchFile } from './lib/seeded-search-file.js';

const SEED = Number(process.argv[2] ?? 100_000);
const ROUNDS = Number(process.argv[3] ?? 9);
const GROUPS = Number(process.argv[4] ?? 30);
const GROUP = Number(process.argv[5] ?? 32);
const SESSIONS = 64;

const WORD = (row: string) => `${row}.display_kind <> 'hidden' and (${row}.active = 1 or ${row}.compacted = 1)`;
const SUBSTR = (row: string) => `${row}.substring_indexed = 1 and ${WORD(row)}`;

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'fts-deferred-'));
  const base = join(dir, 'base.db');
  const { sessionIds, factory } = await seedSearchFile(base, { sessions: SESSIONS, messages: SEED });

  const fileA = join(dir, 'a.db');
  const fileB = join(dir, 'b.db');
  copyFileSync(base, fileA);
  copyFileSync(base, fileB);
  const a = open(fileA);
  const b = open(fileB);
  // A: the triggers before migration 2026-12-01T06.00 (both indexes written by the INSERT).
  const addOld = `insert into messages_fts(rowid, content, tool_name, tool_calls) select new.id, new.content, new.tool_name, new.tool_calls where ${WORD('new')};
     insert into messages_trgm(rowid, content) select new.id, new.content where ${SUBSTR('new')};`;
  a.exec(`
    drop trigger messages_search_ai;
    drop trigger messages_search_ad;
    drop trigger messages_search_au;
    drop table messages_search_pending;
    create trigger messages_search_ai after insert on messages begin ${addOld} end;`);
  // B: the store's schema as migrated (the insert trigger records the id), flushed before COMMIT.
  const flushB = SEARCH_PENDING_FLUSH.map((text) => b.prepare(text));

  const texts = Array.from({ length: 4096 }, () => factory.text());
  let next = 0;
  const variant = (db: Database.Database, flush: Database.Statement[] | null) => {
    const begin = db.prepare('begin immediate');
    const commit = db.prepare('commit');
    const savepoint = db.prepare('savepoint statehouse_request');
    const release = db.prepare('release statehouse_request');
    const ins = db.prepare(
      `insert into messages (session_id, role, content, content_json, tool_call_id, tool_calls, tool_name, timestamp,
         token_count, finish_reason, reasoning, display_kind, platform_message_id, substring_indexed)
       values (?, 'user', ?, null, null, null, null, ?, null, null, null, 'visible', null, 1) returning id`,
    );
    const upd = db.prepare(
      `update sessions set message_count = message_count + 1, tool_call_count = tool_call_count + 0,
         input_tokens = min(input_tokens + 0, 9007199254740991), output_tokens = min(output_tokens + 0, 9007199254740991),
         last_activity_at = max(last_activity_at, ?), revision = revision + 1, preview = coalesce(preview, ?)
       where id = ? and hidden_for is null returning profile, revision, generation`,
    );
    return (start: number) => {
      begin.run();
      for (let i = 0; i < GROUP; i++) {
        const session = sessionIds[(start + i) % SESSIONS];
        const text = texts[(start + i) % texts.length];
        const now = Date.now();
        savepoint.run();
        upd.get(now, text, session);
        ins.get(session, text, now);
        release.run();
      }
      if (flush) for (const statement of flush) statement.run();
      commit.run();
    };
  };
  const runA = variant(a, null);
  const runB = variant(b, flushB);
  const mergeAll = (db: Database.Database) => {
    const cpu0 = process.cpuUsage();
    for (const table of ['messages_fts', 'messages_trgm']) {
      const merge = db.prepare(`insert into ${table}(${table}, rank) values ('merge', 500)`);
      for (;;) {
        const { changes } = merge.run();
        if (changes < 2) break;
      }
    }
    const cpu = process.cpuUsage(cpu0);
    return (cpu.user + cpu.system) / 1000;
  };

  const results = { A: [] as number[], B: [] as number[], mergeA: [] as number[], mergeB: [] as number[] };
  // Warm-up round, not counted.
  for (const [fn, db] of [
    [runA, a],
    [runB, b],
  ] as const) {
    for (let g = 0; g < 5; g++) fn(next++ * GROUP);
    mergeAll(db);
  }
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const);
    const start = next;
    next += GROUPS;
    for (const name of order) {
      const fn = name === 'A' ? runA : runB;
      const db = name === 'A' ? a : b;
      // CPU time, not wall time: this machine's other work preempts the probe (one thread).
      const cpu0 = process.cpuUsage();
      for (let g = 0; g < GROUPS; g++) fn((start + g) * GROUP);
      const cpu = process.cpuUsage(cpu0);
      results[name].push((cpu.user + cpu.system) / (GROUPS * GROUP));
      results[name === 'A' ? 'mergeA' : 'mergeB'].push((mergeAll(db) * 1000) / (GROUPS * GROUP));
    }
    console.log(
      `round ${round + 1}: A ${results.A.at(-1)!.toFixed(1)} µs CPU/append (merge ${results.mergeA.at(-1)!.toFixed(1)}), B ${results.B.at(-1)!.toFixed(1)} µs CPU/append (merge ${results.mergeB.at(-1)!.toFixed(1)})`,
    );
  }
  // Both files must hold the same postings for the same rows.
  for (const [name, db] of [
    ['A', a],
    ['B', b],
  ] as const) {
    for (const table of ['messages_fts', 'messages_trgm'])
      db.exec(`insert into ${table}(${table}) values ('integrity-check')`);
    const pending = db
      .prepare(`select count(*) as n from sqlite_master where name = 'messages_search_pending'`)
      .get() as {
      n: number;
    };
    const left = pending.n
      ? (db.prepare('select count(*) as n from messages_search_pending').get() as { n: number }).n
      : 0;
    console.log(`${name}: integrity-check ok${pending.n ? `, pending rows: ${left}` : ''}`);
  }
  const stats = (xs: number[]) => {
    const s = [...xs].sort((x, y) => x - y);
    return `median ${s[Math.floor(s.length / 2)].toFixed(1)} µs (min ${s[0].toFixed(1)}, max ${s.at(-1)!.toFixed(1)})`;
  };
  const paired = results.B.map((value, i) => value / results.A[i]);
  console.log(`A per append: ${stats(results.A)}; merge after: ${stats(results.mergeA)}`);
  console.log(`B per append: ${stats(results.B)}; merge after: ${stats(results.mergeB)}`);
  console.log(`B/A per round: ${stats(paired.map((x) => x * 100)).replace(/µs/g, '%')}`);
  a.close();
  b.close();
  rmSync(dir, { recursive: true, force: true });
}

function open(path: string): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  return db;
}

await main();
