/**
 * Probe (list regression, figure 3 "every row a projected tip"): the sessions list's first page on
 * the list benchmark's own store (100,000 mixed sessions + 60 compression chains 20 deep whose tips
 * are the newest rows), with and without planner statistics:
 *
 *   none:     no sqlite_stat1 (what the bench measures: it never runs ANALYZE);
 *   optimize: the store's maintenance (`PRAGMA analysis_limit = 1000; PRAGMA optimize = 0x10002`);
 *   analyze:  a full `ANALYZE`.
 *
 * All three are copies of one seeded file. Rounds alternate the stores (order rotated each round);
 * the figure is the median over rounds of each round’s p50, for the admin (all profiles) and for a member
 * of two profiles (a merged list, docs/decisions/0023-session-list-plans.md). Prints EXPLAIN QUERY PLAN of the first
 * page's SQL, its bounded count and the chain walk (chainUsageOf) on each.
 *
 *   npx tsx bench/probes/list-plan.probe.ts [rounds=7] [callsPerRound=60]
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListSessionsQuerySchema } from '@statehouse/contracts';
import { type OperationContext, openStore, type StateStore, silentLogger } from '@statehouse/state';
import Database from 'better-sqlite3';
import { insertSessions } from '../lib/build.js';
import { SessionFactory } from '../lib/data.js';
import { ADMIN, ADMIN_CTX } from '../lib/stores.js';
import { median, sample, summarize } from '../lib/timing.js';
import { chainRows } from '../list.bench.js';

const ROUNDS = Number(process.argv[2] ?? 7);
const CALLS = Number(process.argv[3] ?? 60);

/** The first page's SQL as the repository compiles it (default filters, limit 51; the count bounded at 1,001). */
const FIRST_PAGE = `select "s".* from "sessions" as "s" where "s"."hidden_for" is null and not exists (select "c"."id" from "sessions" as "c" where "c"."parent_session_id" = "s"."id" and "c"."lineage_kind" = 'compression' and "c"."hidden_for" is null) and "s"."archived" = 0 and "s"."hidden" = 0 and "s"."delegated" = 0 order by "s"."last_activity_at" desc, "s"."id" desc limit 51`;
const COUNT = `select count(*) as "n" from (select 1 as "one" from "sessions" as "s" where "s"."hidden_for" is null and not exists (select "c"."id" from "sessions" as "c" where "c"."parent_session_id" = "s"."id" and "c"."lineage_kind" = 'compression' and "c"."hidden_for" is null) and "s"."archived" = 0 and "s"."hidden" = 0 and "s"."delegated" = 0 limit 1001) as "m"`;
const WALK = (ids: string[]) => `with recursive up(start_id, id, parent_id, kind, started_at, depth) as (
  select id, id, parent_session_id, lineage_kind, started_at, 0 from sessions where id in (${ids.map((id) => `'${id}'`).join(',')})
  union all
  select up.start_id, s.id, s.parent_session_id, s.lineage_kind, s.started_at, up.depth + 1
  from up join sessions s on s.id = up.parent_id where up.kind = 'compression' and up.depth < 1000)
select start_id, id, started_at, depth from up`;

function plan(db: Database.Database, text: string): string {
  const rows = db.prepare(`explain query plan ${text}`).all() as { id: number; parent: number; detail: string }[];
  return rows.map((row) => `    ${row.parent ? '  ' : ''}${row.detail}`).join('\n');
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'list-plan-'));
  const base = join(dir, 'base.db');
  const seeding = await openStore({ url: `file:${base}`, logger: silentLogger });
  const factory = new SessionFactory(7);
  await insertSessions(seeding, factory.rows(10_000, 'l10000'));
  await insertSessions(seeding, factory.rows(90_000, 'l100000'));
  await insertSessions(seeding, chainRows(60, 20, 'chain', Date.now() + 86_400_000));
  await seeding.close();
  const raw = new Database(base);
  raw.pragma('wal_checkpoint(TRUNCATE)');
  raw.close();

  const variants = ['none', 'optimize', 'analyze'] as const;
  const stores = new Map<string, StateStore>();
  for (const name of variants) {
    const path = join(dir, `${name}.db`);
    copyFileSync(base, path);
    if (name === 'analyze') {
      const db = new Database(path);
      db.exec('analyze');
      db.close();
    }
    const store = await openStore({ url: `file:${path}`, logger: silentLogger });
    if (name === 'optimize') await store.maintenance.optimizePlanner();
    stores.set(name, store);
  }
  const query = ListSessionsQuerySchema.parse({});
  for (const name of variants) {
    const db = new Database(join(dir, `${name}.db`), { readonly: true });
    const stat = db.prepare(`select count(*) as n from sqlite_schema where name = 'sqlite_stat1'`).get() as {
      n: number;
    };
    const statRows = stat.n
      ? (db.prepare(`select idx, stat from sqlite_stat1 where tbl = 'sessions'`).all() as {
          idx: string;
          stat: string;
        }[])
      : [];
    const page = await stores.get(name)!.sessions.list(ADMIN_CTX, query);
    const tips = page.items.map((item) => item.id);
    console.log(
      `\n== ${name}: sqlite_stat1 rows for sessions: ${statRows.map((r) => `${r.idx}=${r.stat}`).join('; ') || 'none'}`,
    );
    console.log(`  first page:\n${plan(db, FIRST_PAGE)}`);
    console.log(`  count:\n${plan(db, COUNT)}`);
    console.log(`  chain walk:\n${plan(db, WALK(tips))}`);
    const time = (text: string) => {
      const statement = db.prepare(text);
      return median(Array.from({ length: 5 }, () => summarize(sampleSync(20, () => statement.all())).p50));
    };
    console.log(
      `  raw (this connection): first page ${time(FIRST_PAGE).toFixed(2)} ms, count ${time(COUNT).toFixed(2)} ms, walk ${time(WALK(tips)).toFixed(2)} ms`,
    );
    db.close();
  }
  // A member of two of the three profiles: the list merges two profiles' pages.
  const member: OperationContext = {
    principal: { ...ADMIN, id: 'probe-member', role: 'member', profiles: ['default', 'work'] },
    channel: 'api',
  };
  for (const [label, ctx] of [
    ['admin (all profiles)', ADMIN_CTX],
    ['member of 2 profiles', member],
  ] as const) {
    const p50s = new Map<string, number[]>(variants.map((name) => [name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      const order = variants.map((_, i) => variants[(i + round) % variants.length]);
      for (const name of order) {
        const store = stores.get(name)!;
        p50s.get(name)!.push(summarize(await sample(CALLS, () => store.sessions.list(ctx, query), 5)).p50);
      }
    }
    console.log(`\n${label}: store.sessions.list first page, median of ${ROUNDS} rounds' p50 (${CALLS} calls each):`);
    for (const name of variants) {
      const values = p50s.get(name)!;
      console.log(
        `  ${name.padEnd(9)} ${median(values).toFixed(2)} ms   (rounds: ${values.map((v) => v.toFixed(1)).join(' ')})`,
      );
    }
  }
  for (const store of stores.values()) await store.close();
  // LIST_PLAN_KEEP=1: leave the three files for further EXPLAINs (the path is printed).
  if (process.env.LIST_PLAN_KEEP) console.log(`kept: ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}

function sampleSync(n: number, fn: () => unknown): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    fn();
    out.push(performance.now() - start);
  }
  return out;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
