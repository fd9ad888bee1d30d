import { ListSessionsQuerySchema } from '@statehouse/contracts';
import type { OperationContext, StateStore } from '@statehouse/state';
import type Database from 'better-sqlite3';
import { PROFILES, SessionFactory, type SessionSeedRow } from './lib/data.js';
import { fmtCount, fmtMs, fmtRatio, fmtSigned, log, type Report } from './lib/report.js';
import { ADMIN, ADMIN_CTX, type BenchStore } from './lib/stores.js';
import { type Summary, sample, sampleSync, settle, summarize } from './lib/timing.js';

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
    and s.archived = 0 and s.hidden = 0 and (s.lineage_kind is null or s.lineage_kind <> 'delegate')
  order by s.last_activity_at desc, s.id desc
  limit 51`;

export interface ListTarget {
  dialect: 'SQLite' | 'PostgreSQL';
  checkpoints: number[];
  iterations: number;
  open(): Promise<BenchStore>;
  /** SQLite only: a raw connection to the same file, for the hand-written query. */
  raw?(location: string): Database.Database;
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
      'activity spread over 90 days. No ANALYZE is run (the store does not run it either).',
  );
  const columns = ['sessions', 'store: p50', 'p95', 'second page (cursor) p50', 'member, one profile: p50'];
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
  let total = 0;
  try {
    for (const checkpoint of target.checkpoints) {
      log(`  inserting ${fmtCount(checkpoint - total)} session rows …`);
      await insertSessions(file.store, factory.rows(checkpoint - total, `l${checkpoint}`));
      total = checkpoint;
      const first = await file.store.sessions.list(ADMIN_CTX, query);
      if (first.items.length !== query.limit || !first.nextCursor) throw new Error('list returned a short first page');
      await settle();
      const ours = summarize(await sample(target.iterations, () => file.store.sessions.list(ADMIN_CTX, query)));
      const second = summarize(
        await sample(target.iterations, () =>
          file.store.sessions.list(ADMIN_CTX, { ...query, cursor: first.nextCursor! }),
        ),
      );
      const scoped = summarize(await sample(target.iterations, () => file.store.sessions.list(member, query)));
      results.push(ours);
      const cells = [fmtCount(checkpoint), fmtMs(ours.p50), fmtMs(ours.p95), fmtMs(second.p50), fmtMs(scoped.p50)];
      if (raw) {
        const statement = raw.prepare(RAW_FIRST_PAGE);
        const rawSummary = summarize(sampleSync(target.iterations, () => statement.all()));
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
