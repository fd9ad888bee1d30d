import { SearchQuerySchema } from '@statehouse/contracts';
import type { StateStore } from '@statehouse/state';
import type Database from 'better-sqlite3';
import { probeSingleAppends } from './append.bench.js';
import type { BenchConfig } from './lib/config.js';
import { MessageFactory, PROFILES, QUERIES } from './lib/data.js';
import { fmtCount, fmtMs, fmtRate, fmtRatio, fmtSigned, fmtUs, log, type Report } from './lib/report.js';
import { Rng } from './lib/rng.js';
import { ADMIN_CTX, type BenchStore, openRawSqlite, openSqliteStore } from './lib/stores.js';
import { msSince, nowNs, type Summary, sample, sampleSync, settle, summarize } from './lib/timing.js';

/**
 * The search data set: `sessions` sessions of `perSession` messages, each written by one append
 * through the store. 10 % of the sessions are cron / sub-agent (outside the substring index).
 * `onCheckpoint` runs when the message count reaches each checkpoint (PostgreSQL growth probes).
 */
async function buildSearchData(
  store: StateStore,
  sessions: number,
  perSession: number,
  checkpoints: readonly number[] = [],
  onCheckpoint?: (size: number, sessionIds: string[]) => Promise<void>,
): Promise<{ rate: number; sessionIds: string[] }> {
  const factory = new MessageFactory(11);
  const rng = new Rng(11);
  const sessionIds: string[] = [];
  const pending = [...checkpoints];
  let total = 0;
  let buildMs = 0;
  for (let i = 0; i < sessions; i++) {
    const id = `q-${String(i).padStart(5, '0')}`;
    const source = rng.chance(0.1) ? rng.pick(['cron', 'subagent']) : rng.pick(['cli', 'telegram', 'slack', 'api']);
    await store.sessions.create(ADMIN_CTX, { id, profile: PROFILES[i % PROFILES.length], source });
    sessionIds.push(id);
    const messages = factory.messages(perSession);
    const start = nowNs();
    await store.messages.append(ADMIN_CTX, id, { messages });
    buildMs += msSince(start);
    total += perSession;
    if ((i + 1) % 250 === 0) log(`  … ${fmtCount(total)} messages`);
    while (pending.length && total >= pending[0]) await onCheckpoint?.(pending.shift()!, sessionIds);
  }
  return { rate: total / (buildMs / 1000), sessionIds };
}

interface SearchCase {
  label: string;
  q: string;
  /** Raw FTS5 query on the same data (SQLite): the ceiling. */
  rawSql: string;
  rawArg: string;
  countSql: string;
  iterations: number;
}

function cases(config: BenchConfig): SearchCase[] {
  const { iterations, commonIterations } = config.search;
  const word = (term: string) => `"${term}"`;
  const wordTop = 'select rowid, rank from messages_fts where messages_fts match ? order by rank limit 20';
  const wordCount = 'select count(*) as n from messages_fts where messages_fts match ?';
  const trgmTop = 'select rowid from messages_trgm where messages_trgm match ? order by rowid desc limit 20';
  const trgmCount = 'select count(*) as n from messages_trgm where messages_trgm match ?';
  return [
    {
      label: `word, common term \`${QUERIES.common}\`, top 20`,
      q: QUERIES.common,
      rawSql: wordTop,
      rawArg: word(QUERIES.common),
      countSql: wordCount,
      iterations: commonIterations,
    },
    {
      label: `word, rare term \`${QUERIES.rare}\``,
      q: QUERIES.rare,
      rawSql: wordTop,
      rawArg: word(QUERIES.rare),
      countSql: wordCount,
      iterations,
    },
    {
      label: `substring \`${QUERIES.substring}\` (auto: word miss, then trigram)`,
      q: QUERIES.substring,
      rawSql: trgmTop,
      rawArg: word(QUERIES.substring),
      countSql: trgmCount,
      iterations,
    },
    {
      label: `CJK substring \`${QUERIES.cjk}\``,
      q: QUERIES.cjk,
      rawSql: trgmTop,
      rawArg: word(QUERIES.cjk),
      countSql: trgmCount,
      iterations,
    },
  ];
}

const searchOnce = (store: StateStore, q: string) => store.search.search(ADMIN_CTX, SearchQuerySchema.parse({ q }));

/**
 * Diagnostics for the common word: the store's own SQL run raw (isolates the layer from the query
 * shape) and shapes that rank first and join/snippet only the page.
 */
const DIAGNOSTICS: { label: string; sql: string }[] = [
  {
    label: 'raw: the store’s word-search SQL (joins + snippet, `order by f.rank, m.id desc limit 21`)',
    sql: `select m.id, m.session_id, m.role, m.timestamp, s.title, s.profile, s.source,
        snippet(messages_fts, -1, char(2), char(3), '…', 16) as snippet, -f.rank as rank
      from messages_fts f join messages m on m.id = f.rowid join sessions s on s.id = m.session_id
      where messages_fts match ? order by f.rank, m.id desc limit 21`,
  },
  {
    label: 'raw: same, without `snippet()`',
    sql: `select m.id, m.session_id, m.role, m.timestamp, s.title, s.profile, s.source, -f.rank as rank
      from messages_fts f join messages m on m.id = f.rowid join sessions s on s.id = m.session_id
      where messages_fts match ? order by f.rank, m.id desc limit 21`,
  },
  {
    label: 'raw: same with snippet, `order by f.rank` only (FTS5 sorts, LIMIT stops the joins)',
    sql: `select m.id, m.session_id, m.role, m.timestamp, s.title, s.profile, s.source,
        snippet(messages_fts, -1, char(2), char(3), '…', 16) as snippet, -f.rank as rank
      from messages_fts f join messages m on m.id = f.rowid join sessions s on s.id = m.session_id
      where messages_fts match ? order by f.rank limit 21`,
  },
];

/** Figure 4 (SQLite): search latency through the store vs raw FTS5 on the same data. */
export async function searchSqlite(report: Report, config: BenchConfig): Promise<void> {
  const c = config.search;
  const total = c.sessions * c.messagesPerSession;
  report.section(
    'Search latency (SQLite)',
    `${fmtCount(total)} messages in ${fmtCount(c.sessions)} sessions (${c.messagesPerSession} per session, ` +
      'written through `store.messages.append`). Queries go through `store.search.search` as an admin with the ' +
      'API defaults (mode auto, limit 20); the ceiling is the raw FTS5 query on the same file (word: ' +
      '`match … order by rank limit 20`; substring: trigram `match … order by rowid desc limit 20`). ' +
      '“hits” counts every matching row in the index.',
  );
  const file = await openSqliteStore('search');
  let raw: Database.Database | undefined;
  try {
    const { rate } = await buildSearchData(file.store, c.sessions, c.messagesPerSession);
    log(`  built at ${fmtRate(rate)} (batches of ${c.messagesPerSession})`);
    raw = openRawSqlite(file.path);
    const add = report.table(`Search at ${fmtCount(total)} messages (SQLite)`, [
      'query',
      'hits',
      'returned',
      'store: p50',
      'p95',
      'raw FTS5: p50',
      'p95',
      'store / raw (p50)',
    ]);
    let common: { ours: Summary; raw: Summary } | undefined;
    for (const item of cases(config)) {
      const { n } = raw.prepare(item.countSql).get(item.rawArg) as { n: number };
      const response = await searchOnce(file.store, item.q);
      await settle();
      const ours = summarize(await sample(item.iterations, () => searchOnce(file.store, item.q)));
      const statement = raw.prepare(item.rawSql);
      const rawSummary = summarize(sampleSync(item.iterations, () => statement.all(item.rawArg)));
      common ??= { ours, raw: rawSummary };
      add([
        item.label,
        fmtCount(n),
        `${response.items.length} (${response.mode})`,
        fmtMs(ours.p50),
        fmtMs(ours.p95),
        fmtMs(rawSummary.p50),
        fmtMs(rawSummary.p95),
        fmtRatio(ours.p50 / rawSummary.p50),
      ]);
    }
    const diag = report.table(
      `Where the common-word time goes (raw better-sqlite3, \`${QUERIES.common}\`)`,
      ['query', 'p50', 'p95', 'vs raw FTS5 top 20'],
      'Diagnostics for the notes: the store’s own word-search SQL, prepared and run raw, and variants of it.',
    );
    for (const item of DIAGNOSTICS) {
      const statement = raw.prepare(item.sql);
      const summary = summarize(sampleSync(c.commonIterations, () => statement.all(`"${QUERIES.common}"`)));
      diag([item.label, fmtMs(summary.p50), fmtMs(summary.p95), fmtRatio(summary.p50 / common!.raw.p50)]);
    }
    report.target({
      figure: `4. search, common word top 20 at ${fmtCount(total)} messages, SQLite`,
      ours: `${fmtMs(common!.ours.p50)} p50`,
      ceiling: `${fmtMs(common!.raw.p50)} p50`,
      ratio: fmtRatio(common!.ours.p50 / common!.raw.p50),
      target: '≤ 1.5× raw',
      met: common!.ours.p50 / common!.raw.p50 <= 1.5,
    });
  } finally {
    raw?.close();
    await file.close();
  }
}

/** Figure 5 (PostgreSQL): search latency and single-append cost while the search data set grows. */
export async function searchPg(report: Report, config: BenchConfig, open: () => Promise<BenchStore>): Promise<void> {
  const c = config.pg.search;
  const total = c.sessions * c.messagesPerSession;
  report.section(
    'Search latency and append growth (PostgreSQL)',
    `${fmtCount(total)} messages in ${fmtCount(c.sessions)} sessions, written through the store ` +
      `(${c.messagesPerSession} per append). While it grows, ${config.growth.probes} single-message appends are ` +
      'timed at each checkpoint. Search as on SQLite (tsvector + GIN, pg_trgm); no raw ceiling.',
  );
  const file = await open();
  try {
    const probeFactory = new MessageFactory(99);
    const rng = new Rng(5);
    const growth = report.table('Single-message append as the store grows (PostgreSQL)', [
      'messages in store',
      'store: mean',
      'p50',
      'p95',
      'vs smallest',
    ]);
    const means: number[] = [];
    const { rate } = await buildSearchData(
      file.store,
      c.sessions,
      c.messagesPerSession,
      config.pg.growthCheckpoints,
      async (size, sessionIds) => {
        const ours = await probeSingleAppends(file.store, sessionIds, probeFactory.messages(config.growth.probes), rng);
        means.push(ours.mean);
        growth([
          fmtCount(size),
          fmtUs(ours.mean),
          fmtUs(ours.p50),
          fmtUs(ours.p95),
          fmtSigned(ours.mean / means[0] - 1),
        ]);
      },
    );
    log(`  built at ${fmtRate(rate)} (batches of ${c.messagesPerSession})`);
    await file.store.db.executeQuery({ sql: 'analyze', parameters: [], query: { kind: 'RawNode' } } as never);
    const add = report.table(`Search at ${fmtCount(total)} messages (PostgreSQL)`, [
      'query',
      'returned',
      'store: p50',
      'p95',
    ]);
    const rows: string[] = [];
    for (const item of cases(config)) {
      const response = await searchOnce(file.store, item.q);
      await settle();
      const ours = summarize(await sample(item.iterations, () => searchOnce(file.store, item.q)));
      add([item.label, `${response.items.length} (${response.mode})`, fmtMs(ours.p50), fmtMs(ours.p95)]);
      rows.push(fmtMs(ours.p50));
    }
    report.target({
      figure: `5. single-message append as the store grows ${config.pg.growthCheckpoints.map(fmtCount).join(' → ')}, PostgreSQL`,
      ours: means.map(fmtUs).join(' → '),
      ceiling: '—',
      ratio: fmtSigned(means[means.length - 1] / means[0] - 1),
      target: 'report only',
      met: null,
    });
    report.target({
      figure: `5. search p50 at ${fmtCount(total)} messages (common / rare / substring / CJK), PostgreSQL`,
      ours: rows.join(' / '),
      ceiling: '—',
      ratio: '—',
      target: 'report only',
      met: null,
    });
  } finally {
    await file.close();
  }
}

export { fmtRatio, openRawSqlite };
