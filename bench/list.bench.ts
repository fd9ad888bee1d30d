import { ListSessionsQuerySchema } from '@statehouse/contracts';
import type { OperationContext, StateStore } from '@statehouse/state';
import type Database from 'better-sqlite3';
import { sql } from 'kysely';
import { PROFILES, SessionFactory, type SessionSeedRow } from './lib/data.js';
import { planScans } from './lib/pg-plan.js';
import { fmtCount, fmtMs, fmtRatio, fmtSigned, log, type Report } from './lib/report.js';
import { ADMIN, ADMIN_CTX, type BenchStore } from './lib/stores.js';
import { type Summary, sample, sampleAlternating, settle, summarize } from './lib/timing.js';

const INSERT_CHUNK = 300;

/** Setup only (not measured): session rows inserted in bulk with Kysely on the store's own connection. */
async function insertSessions(store: StateStore, rows: readonly SessionSeedRow[]): Promise<void> {
  const now = Date.now();
  await store.db
    .insertInto('profiles')
    .values(PROFILES.map((name) => ({ name, created_at: now })))
    .onConflict((oc) => oc.doNothing())
    .execute();
  await store.db.transaction().execute(async (trx) => {
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      await trx
        .insertInto('sessions')
        .values(rows.slice(i, i + INSERT_CHUNK))
        .execute();
    }
  });
}

/** The SQL the first page runs with default filters, by hand: what the list costs without the layer. */
const RAW_FIRST_PAGE = `
  select s.* from sessions s
  where not exists (select c.id from sessions c where c.parent_session_id = s.id and c.lineage_kind = 'compression')
    and s.archived = 0 and s.hidden = 0 and s.delegated = 0
  order by s.last_activity_at desc, s.id desc
  limit 51`;

export interface ListTarget {
  dialect: 'SQLite' | 'PostgreSQL';
  checkpoints: number[];
  iterations: number;
  open(): Promise<BenchStore>;
  /** SQLite only: a raw connection to the same file, for the hand-written query. */
  raw?(location: string): Database.Database;
  /** PostgreSQL: refresh planner statistics after the bulk setup (autovacuum would, within a minute). */
  analyze?(store: StateStore): Promise<void>;
}

/** Figure 3 (and 5): first page of `store.sessions.list` with default filters at growing session counts. */
export async function sessionsList(report: Report, target: ListTarget): Promise<void> {
  const figure = target.dialect === 'SQLite' ? '3' : '5';
  report.section(
    `Sessions list, first page (${target.dialect})`,
    '`store.sessions.list` with the API defaults (status all, archived excluded, hidden excluded, delegates ' +
      'excluded, order recent, limit 50; compression chains projected onto their tip). Session rows are inserted ' +
      'in bulk with Kysely on the store’s connection for setup speed (not measured); every timed call goes through ' +
      'the store. Mix: 3 % archived, 1 % hidden, 5 % delegate children, 5 % compression continuations, 3 profiles, ' +
      'activity spread over 90 days. ' +
      (target.analyze
        ? 'After the bulk setup the first page is timed once as is (“before ANALYZE”), then with fresh planner ' +
          'statistics, as autovacuum would have them within a minute of such a load.'
        : 'No ANALYZE is run (the store does not run it either). The hand-written first-page query on a raw ' +
          'connection is timed call by call in turn with the store’s.'),
  );
  const columns = ['sessions'];
  if (target.analyze) columns.push('before ANALYZE: p50');
  columns.push('store: p50', 'p95', 'second page (cursor) p50', 'member, one profile: p50');
  if (target.raw) columns.push('raw SQL of the first page: p50', 'store / raw SQL');
  columns.push('p50 vs smallest');
  const add = report.table(`First page of the sessions list (${target.dialect})`, columns);
  const file = await target.open();
  const raw = target.raw?.(file.location);
  const factory = new SessionFactory(7);
  const query = ListSessionsQuerySchema.parse({});
  const member: OperationContext = {
    principal: { ...ADMIN, id: 'bench-member', role: 'member', profiles: ['work'] },
    channel: 'api',
  };
  const results: Summary[] = [];
  const freshP50: number[] = [];
  const plans: string[] = [];
  let total = 0;
  try {
    for (const checkpoint of target.checkpoints) {
      log(`  inserting ${fmtCount(checkpoint - total)} session rows …`);
      await insertSessions(file.store, factory.rows(checkpoint - total, `l${checkpoint}`));
      total = checkpoint;
      const cells = [fmtCount(checkpoint)];
      if (target.analyze) {
        const fresh = summarize(
          await sample(Math.ceil(target.iterations / 5), () => file.store.sessions.list(ADMIN_CTX, query)),
        );
        cells.push(fmtMs(fresh.p50));
        freshP50.push(fresh.p50);
        await target.analyze(file.store);
      }
      if (target.analyze) {
        plans.push(await planScans(file.store, sql`explain (format json) ${sql.raw(RAW_FIRST_PAGE)}`));
      }
      const first = await file.store.sessions.list(ADMIN_CTX, query);
      if (first.items.length !== query.limit || !first.nextCursor) throw new Error('list returned a short first page');
      await settle();
      // With a raw connection, the store's first page and the hand-written query are timed in turn.
      const statement = raw?.prepare(RAW_FIRST_PAGE);
      const [oursSamples, rawSamples] = await sampleAlternating(target.iterations, [
        () => file.store.sessions.list(ADMIN_CTX, query),
        ...(statement ? [() => statement.all()] : []),
      ]);
      const ours = summarize(oursSamples);
      const second = summarize(
        await sample(target.iterations, () =>
          file.store.sessions.list(ADMIN_CTX, { ...query, cursor: first.nextCursor! }),
        ),
      );
      const scoped = summarize(await sample(target.iterations, () => file.store.sessions.list(member, query)));
      results.push(ours);
      cells.push(fmtMs(ours.p50), fmtMs(ours.p95), fmtMs(second.p50), fmtMs(scoped.p50));
      if (rawSamples) {
        const rawSummary = summarize(rawSamples);
        cells.push(fmtMs(rawSummary.p50), fmtRatio(ours.p50 / rawSummary.p50));
      }
      cells.push(fmtSigned(ours.p50 / results[0].p50 - 1));
      add(cells);
    }
  } finally {
    raw?.close();
    await file.close();
  }
  const last = results[results.length - 1];
  if (freshP50.length) {
    const worst = Math.max(...freshP50.map((p50, i) => p50 / results[i].p50));
    const pairs = freshP50.map(
      (p50, i) => `${fmtCount(target.checkpoints[i])} sessions ${fmtMs(p50)} → ${fmtMs(results[i].p50)}`,
    );
    report.note(
      `**Sessions list on ${target.dialect}** (first page p50, right after each bulk load → after ANALYZE): ` +
        `${pairs.join('; ')}. ` +
        (worst >= 1.5
          ? 'Where the planner had no statistics yet (a fresh database), the first page was ' +
            `up to ${fmtRatio(worst)} slower until ANALYZE; with statistics the plan is ${plans[plans.length - 1]}. ` +
            'Autovacuum analyzes after such a load, ' +
            'but a database that has just received an import (or a restore) serves slow lists until it does; an ' +
            'ANALYZE after large imports closes that window.'
          : 'Planner statistics made little difference at these sizes.'),
    );
  }
  const sizes = target.checkpoints.map(fmtCount);
  report.target({
    figure: `${figure}. sessions list first page at ${sizes[sizes.length - 1]} sessions, ${target.dialect}`,
    ours: `${fmtMs(last.p50)} p50 (${fmtMs(last.p95)} p95)`,
    ceiling: '—',
    ratio: '—',
    target: target.dialect === 'SQLite' ? '≤ 10 ms p50' : 'report only',
    met: target.dialect === 'SQLite' ? last.p50 <= 10 : null,
  });
  const growth = last.p50 / results[0].p50 - 1;
  report.target({
    figure: `${figure}. sessions list flat ${sizes.join(' → ')} sessions, ${target.dialect}`,
    ours: results.map((r) => fmtMs(r.p50)).join(' → '),
    ceiling: '—',
    ratio: fmtSigned(growth),
    target: target.dialect === 'SQLite' ? 'flat (within ± 25 %)' : 'report only',
    met: target.dialect === 'SQLite' ? Math.abs(growth) <= 0.25 : null,
  });
}
