/**
 * Probe (write path): where the SQL of a group of single-message appends goes, step by
 * step — the counters' UPDATE and the INSERT under a savepoint each, the word index's flush, the
 * trigram index's flush, the COMMIT (where FTS5 writes the group's segments) — on the store's own
 * schema driven by raw better-sqlite3, in groups of `groupSize`. Variants on copies of one seeded
 * file: `full` (the store as it is), `noTrgm` (no trigram flush), `noFts` (no flush at all),
 * `trgmNone` / `trgmColumn` (the trigram index rebuilt with detail=none / column, the store's merge
 * settings put back). CPU time per append, median of alternating rounds.
 *
 * Found with it (docs/decisions/0004-search-index-lag.md): a COMMIT with both flushes
 * costs about 250 µs per transaction whatever its size (about 80 of them the pager's, the rest
 * the two indexes' segments and structure records) plus about 22 µs per append; detail=none or
 * column saved nothing measurable.
 *
 *   VARIANTS=full,noTrgm,noFts npx tsx bench/probes/fts-commit-cost.probe.ts [seedMessages=50000] [rounds=6] [groups=40] [groupSize=12]
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SEARCH_PENDING_FLUSH } from '@statehouse/state/testing';
import Database from 'better-sqlite3';
import { seedSearchFile } from '../lib/seeded-search-file.js';

const SEED = Number(process.argv[2] ?? 50_000);
const ROUNDS = Number(process.argv[3] ?? 6);
const GROUPS = Number(process.argv[4] ?? 40);
const GROUP = Number(process.argv[5] ?? 12);
const SESSIONS = 64;
const [FLUSH_WORD, FLUSH_TRIGRAM, EMPTY_PENDING] = SEARCH_PENDING_FLUSH;

async function main() {
  const dir = mkdtempSync(join(process.env.DIR ?? tmpdir(), 'fts-commit-cost-'));
  const base = join(dir, 'base.db');
  const { sessionIds, factory } = await seedSearchFile(base, { sessions: SESSIONS, messages: SEED });
  const variants: Record<string, (db: Database.Database) => void> = {
    full: () => {},
    noTrgm: () => {},
    noFts: () => {},
    trgmNone: (db) => {
      db.exec(`drop table messages_trgm; create virtual table messages_trgm using fts5(content, content='messages', content_rowid='id', tokenize='trigram', detail='none');
        insert into messages_trgm(messages_trgm) values ('rebuild'); insert into messages_trgm(messages_trgm, rank) values ('automerge', 0); insert into messages_trgm(messages_trgm, rank) values ('usermerge', 4); insert into messages_trgm(messages_trgm, rank) values ('crisismerge', 64);`);
    },
    trgmColumn: (db) => {
      db.exec(`drop table messages_trgm; create virtual table messages_trgm using fts5(content, content='messages', content_rowid='id', tokenize='trigram', detail='column');
        insert into messages_trgm(messages_trgm) values ('rebuild'); insert into messages_trgm(messages_trgm, rank) values ('automerge', 0); insert into messages_trgm(messages_trgm, rank) values ('usermerge', 4); insert into messages_trgm(messages_trgm, rank) values ('crisismerge', 64);`);
    },
  };
  const names = (process.env.VARIANTS ?? 'full,noTrgm,trgmNone').split(',');
  const dbs = new Map<string, Database.Database>();
  for (const name of names) {
    const file = join(dir, `${name}.db`);
    copyFileSync(base, file);
    const db = open(file);
    variants[name](db);
    dbs.set(name, db);
  }
  const texts = Array.from({ length: 4096 }, () => factory.text());
  const steps = ['upd+ins', 'flushWord', 'flushTrgm', 'commit'] as const;
  const make = (name: string, db: Database.Database) => {
    const begin = db.prepare('begin immediate');
    const commit = db.prepare('commit');
    const sp = db.prepare('savepoint r');
    const rel = db.prepare('release r');
    const ins = db.prepare(
      `insert into messages (session_id, role, content, content_json, tool_call_id, tool_calls, tool_name, timestamp, token_count, finish_reason, reasoning, display_kind, platform_message_id, substring_indexed) values (?, 'user', ?, null, null, null, null, ?, null, null, null, 'visible', null, 1) returning id`,
    );
    const upd = db.prepare(
      `update sessions set message_count = message_count + 1, last_activity_at = max(last_activity_at, ?), revision = revision + 1, preview = coalesce(preview, ?) where id = ? and hidden_for is null returning profile, revision, generation`,
    );
    const fw = db.prepare(FLUSH_WORD);
    const ft = db.prepare(FLUSH_TRIGRAM);
    const del = db.prepare(EMPTY_PENDING);
    const acc = { 'upd+ins': 0, flushWord: 0, flushTrgm: 0, commit: 0 } as Record<(typeof steps)[number], number>;
    const t = () => process.cpuUsage();
    const d = (a: NodeJS.CpuUsage) => {
      const b = process.cpuUsage(a);
      return b.user + b.system;
    };
    return {
      acc,
      run: (start: number) => {
        let c = t();
        begin.run();
        for (let i = 0; i < GROUP; i++) {
          const s = sessionIds[(start + i) % SESSIONS];
          const text = texts[(start + i) % texts.length];
          const now = Date.now();
          sp.run();
          upd.get(now, text, s);
          ins.get(s, text, now);
          rel.run();
        }
        acc['upd+ins'] += d(c);
        c = t();
        if (name !== 'noFts') fw.run();
        acc.flushWord += d(c);
        c = t();
        if (name !== 'noTrgm' && name !== 'noFts') ft.run();
        del.run();
        acc.flushTrgm += d(c);
        c = t();
        commit.run();
        acc.commit += d(c);
      },
    };
  };
  const runners = names.map((n) => ({ n, ...make(n, dbs.get(n)!) }));
  let next = 0;
  for (const r of runners) for (let g = 0; g < 10; g++) r.run(g * GROUP);
  for (const r of runners) for (const k of steps) r.acc[k] = 0;
  const totals = new Map<string, number[]>(names.map((n) => [n, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const start = next;
    next += GROUPS;
    const order = round % 2 ? [...runners].reverse() : runners;
    for (const r of order) {
      const c = process.cpuUsage();
      for (let g = 0; g < GROUPS; g++) r.run((start + g) * GROUP);
      const u = process.cpuUsage(c);
      totals.get(r.n)!.push((u.user + u.system) / (GROUPS * GROUP));
    }
  }
  for (const r of runners) {
    const s = [...totals.get(r.n)!].sort((a, b) => a - b);
    const per = steps.map((k) => `${k} ${(r.acc[k] / (ROUNDS * GROUPS * GROUP)).toFixed(1)}`).join(', ');
    console.log(
      `${r.n.padEnd(10)} median ${s[s.length >> 1].toFixed(1)} µs/append (min ${s[0].toFixed(1)} max ${s.at(-1)!.toFixed(1)}) | ${per}`,
    );
  }
  rmSync(dir, { recursive: true, force: true });
}
function open(path: string) {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  return db;
}
await main();
