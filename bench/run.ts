/**
 * `npm run bench`: benchmarks of the state layer against raw ceilings measured in the same run
 * (see docs/performance-targets.md), printed as they go and written to docs/benchmarks.md.
 *
 *   BENCH_QUICK=1                 data sizes ÷ 10, output to the temp dir unless BENCH_OUT is set
 *   STATEHOUSE_BENCH_PG_URL=…     also PostgreSQL (or STATEHOUSE_TEST_PG_URL); scratch databases are dropped
 *   BENCH_ONLY=append,growth,list,search,lineage,deletion,api,client,resolve,import,stats,stats-all,schedules,hermes,live,pg   run a subset
 *                                 (`pg` = every PostgreSQL part; `pg-lineage`, `pg-api`, `pg-stats`, … one of them);
 *                                 several processes: watch-delay, healthz-rebuild, replica-appends (`topology` = all three)
 *   BENCH_HEALTH_JOBS=rebuild,retention,compress,rewind,bulk-delete,import,backup,maintenance
 *                                 the jobs healthz-rebuild runs (default: all)
 *   BENCH_PREPARED_DIR=dir        healthz-rebuild keeps the files it prepares there and copies them on later runs
 *   BENCH_OUT=path                where the Markdown goes
 *   BENCH_HERMES=dir              a Hermes Agent checkout: figure 17 runs Hermes' own SessionDB beside the adapter
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { apiPg, apiSqlite } from './api.bench.js';
import { appendGrowthSqlite, appendThroughputPg, appendThroughputSqlite } from './append.bench.js';
import { clientOverhead } from './client.bench.js';
import { deletionPg, deletionSqlite } from './deletion.bench.js';
import { hermesAdapter } from './hermes-adapter.bench.js';
import { importSqlite } from './import.bench.js';
import { loadConfig } from './lib/config.js';
import { QUERIES } from './lib/data.js';
import { stopServers } from './lib/http.js';
import { fmtCount, log, Report } from './lib/report.js';
import {
  cleanUpEverything,
  openPgStore,
  openRawSqlite,
  openSqliteStore,
  pgVersion,
  removeScratch,
  sqliteVersion,
} from './lib/stores.js';
import { lineagePg, lineageSqlite } from './lineage.bench.js';
import { sessionsList } from './list.bench.js';
import { liveFeedDelay } from './live.bench.js';
import { resolvePg, resolveSqlite } from './resolve.bench.js';
import { schedulesPg, schedulesSqlite } from './schedules.bench.js';
import { searchPg, searchSqlite } from './search.bench.js';
import { statsAllTime, statsOverview, statsPgTarget, statsSqliteTarget } from './stats.bench.js';
import { healthDuringJobs, replicaAppends, watchDelay } from './topology.bench.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const config = loadConfig();
const only = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((s) => s.trim())) : undefined;
const enabled = (name: string) => !only || only.has(name);
/** The parts with several API processes: `topology` selects them all. */
const enabledTopology = (name: string) => enabled(name) || Boolean(only?.has('topology'));
/** PostgreSQL parts: `pg` selects them all, `pg-<part>` one of them. */
const PG_PARTS = ['append', 'list', 'search', 'lineage', 'deletion', 'api', 'resolve', 'stats', 'schedules'];
const enabledPg = (part: string) => !only || only.has('pg') || only.has(`pg-${part}`);
const out = process.env.BENCH_OUT
  ? resolve(process.env.BENCH_OUT)
  : config.quick || only
    ? join(tmpdir(), 'statehouse-benchmarks.partial.md')
    : join(root, 'docs/benchmarks.md');

async function main(): Promise<void> {
  const started = Date.now();
  const loadBefore = loadavg()[0];
  const versions = sqliteVersion();
  const pg = config.pgUrl
    ? await pgVersion(config.pgUrl).catch((error) => `unreachable (${error.message})`)
    : undefined;
  const machine = {
    cpus: cpus().length,
    model: cpus()[0]?.model.trim() ?? 'unknown',
    memory: `${Math.round(totalmem() / 1024 ** 3)} GiB`,
  };
  log(
    `statehouse bench${config.quick ? ' (quick: sizes ÷ 10)' : ''}: ${machine.cpus} CPUs, node ${process.version}, ` +
      `SQLite ${versions.sqlite} (better-sqlite3 ${versions.driver})${pg ? `, PostgreSQL ${pg}` : ''}`,
  );
  const report = new Report();
  const pgReachable = config.pgUrl !== undefined && pg !== undefined && !pg.startsWith('unreachable');
  const openPg = (label: string) => () => openPgStore(config.pgUrl!, label);

  if (enabled('append')) await appendThroughputSqlite(report, config);
  if (enabled('growth')) await appendGrowthSqlite(report, config);
  if (enabled('list')) {
    await sessionsList(report, {
      dialect: 'SQLite',
      checkpoints: config.list.checkpoints,
      iterations: config.list.iterations,
      open: (label) => openSqliteStore(label),
      raw: (path) => openRawSqlite(path),
    });
  }
  if (enabled('search')) await searchSqlite(report, config);
  if (enabled('lineage')) await lineageSqlite(report, config);
  if (enabled('deletion')) await deletionSqlite(report, config);
  if (enabled('api')) await apiSqlite(report, config, root);
  if (enabled('client')) await clientOverhead(report, config, root);
  if (enabled('resolve')) await resolveSqlite(report, config);
  if (enabled('import')) await importSqlite(report, config);
  if (enabled('stats')) await statsOverview(report, config, statsSqliteTarget);
  if (enabled('stats-all')) await statsAllTime(report, config, statsSqliteTarget);
  if (enabled('schedules')) await schedulesSqlite(report, config);
  if (enabled('hermes')) await hermesAdapter(report, config, root);
  if (enabled('live')) await liveFeedDelay(report, config, root);
  if (enabledTopology('watch-delay'))
    await watchDelay(report, { ...config, pgUrl: pgReachable ? config.pgUrl : undefined }, root);
  if (enabledTopology('healthz-rebuild')) await healthDuringJobs(report, config, root);
  if (enabledTopology('replica-appends')) {
    await replicaAppends(report, { ...config, pgUrl: pgReachable ? config.pgUrl : undefined }, root);
  }
  if (PG_PARTS.some(enabledPg) && pgReachable) {
    if (enabledPg('append')) await appendThroughputPg(report, config, openPg('append'));
    if (enabledPg('list')) {
      await sessionsList(report, {
        dialect: 'PostgreSQL',
        checkpoints: config.pg.listCheckpoints,
        iterations: config.list.iterations,
        open: (label) => openPgStore(config.pgUrl!, label.replace('-', '_')),
        analyze: async (store) => {
          await sql`analyze`.execute(store.db);
        },
      });
    }
    if (enabledPg('search')) await searchPg(report, config, openPg('search'));
    if (enabledPg('lineage')) await lineagePg(report, config, openPg('lineage'));
    if (enabledPg('deletion')) await deletionPg(report, config, openPg('deletion'));
    if (enabledPg('api')) await apiPg(report, config, root, config.pgUrl!);
    if (enabledPg('resolve')) await resolvePg(report, config, openPg('resolve'));
    if (enabledPg('schedules')) await schedulesPg(report, config, openPg('schedules'));
    if (enabledPg('stats')) {
      await statsOverview(
        report,
        { ...config, stats: { ...config.stats, messages: config.pg.statsMessages } },
        statsPgTarget(config.pgUrl!),
      );
    }
  } else if (PG_PARTS.some(enabledPg)) {
    report.note(
      config.pgUrl
        ? `PostgreSQL was configured but not reachable (${pg}); its figures are missing from this run.`
        : 'PostgreSQL figures are absent: neither `STATEHOUSE_BENCH_PG_URL` nor `STATEHOUSE_TEST_PG_URL` was set.',
    );
  }

  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  const load = `1-minute load average ${loadBefore.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end`;
  // Targets in figure order (a part's PostgreSQL rows next to its SQLite ones); the sort is stable.
  report.targets.sort((a, b) => figureOrder(a.figure) - figureOrder(b.figure));
  addNotes(report);
  const header = `# Benchmarks

Generated by \`npm run bench\` (bench/run.ts) on ${new Date().toISOString().slice(0, 10)}${config.quick ? ' — **quick mode: data sizes ÷ 10, not the reference figures**' : ''}.
Every figure below was measured in that one run; targets are ratios against ceilings measured in the
same run (see [performance-targets.md](performance-targets.md): absolute times on these shared machines drift from run to run).

- Machine: ${machine.cpus} CPUs (\`nproc\`), ${machine.model}, ${machine.memory} RAM
- Node ${process.version}; SQLite ${versions.sqlite} via better-sqlite3 ${versions.driver} (WAL, \`synchronous=NORMAL\`, the store's own pragmas)
- PostgreSQL: ${pgReachable ? `${pg} (local, scratch databases created and dropped by the run)` : 'not measured in this run'}
- Total run time: ${minutes} min; ${load} (other work on the machine shows up as noise, mostly in means and p95)

## How to run

\`\`\`sh
npm run bench                                   # SQLite; writes docs/benchmarks.md
STATEHOUSE_BENCH_PG_URL=postgres://postgres@127.0.0.1:5432/test npm run bench   # + PostgreSQL
BENCH_QUICK=1 npm run bench                     # sizes ÷ 10; writes to the temp dir (BENCH_OUT=path to choose)
BENCH_ONLY=lineage,deletion,api npm run bench   # a subset (also writes to the temp dir); parts: append, growth,
                                                # list, search, lineage, deletion, api, client, resolve, import,
                                                # stats, stats-all, schedules, hermes, live; pg = every PostgreSQL part, pg-append,
                                                # pg-list, pg-search, pg-lineage, pg-deletion, pg-api, pg-stats,
                                                # pg-schedules one; several processes:
                                                # watch-delay, healthz-rebuild, replica-appends (topology = the three;
                                                # PostgreSQL rows when a server is configured)
npm run bench:compare -- --before b1.md b2.md b3.md --after a1.md a2.md a3.md
                                                # two builds' runs (BENCH_OUT of each, run interleaved): the
                                                # figures that moved beyond their run-to-run noise
\`\`\`

Figure 17 (\`hermes\`) runs the Python adapter (python3) and, with \`BENCH_HERMES=<a Hermes Agent checkout>\`,
Hermes' own SessionDB beside it, imported from that folder at bench time only.

The PostgreSQL API part's per-layer table samples thread CPU with Linux \`perf\` (Debian: linux-perf; root,
or \`kernel.perf_event_paranoid\` ≤ 1); without it the part says so instead of a table.

Databases are temp files (SQLite) and scratch databases (PostgreSQL), removed at the end. Data comes
from a seeded PRNG, so every run writes the same messages. Queries: common word \`${QUERIES.common}\`,
rare word \`${QUERIES.rare}\`, substring \`${QUERIES.substring}\`, CJK \`${QUERIES.cjk}\`.`;
  const footer = '';
  writeFileSync(out, report.markdown(header, footer));
  log(`\nwrote ${out} (${minutes} min)`);
}

/** "1a. …" → 101, "10. …" → 1000: the numeric order of a target's figure label. */
function figureOrder(figure: string): number {
  const match = /^(\d+)([a-z]?)\./.exec(figure);
  return match ? Number(match[1]) * 100 + (match[2] ? match[2].charCodeAt(0) - 96 : 0) : Number.MAX_SAFE_INTEGER;
}

/** Methodology notes, and a pointer from every target this run did not meet to its explanation. */
function addNotes(report: Report): void {
  const missed = report.targets.filter((t) => t.met === false);
  if (missed.length === 0 && report.targets.some((t) => t.met !== null)) {
    report.note('Every target with a ceiling was met in this run.');
  }
  if (missed.length > 0) {
    report.notes.unshift(
      `Not met in this run: ${missed.map((t) => `**${t.figure}** (${t.ratio}; target ${t.target})`).join('; ')}. ` +
        'The notes below explain each with the decomposition measured in the same run.',
    );
  }
  report.note(
    'Method: single-message figures are means per call (each call timed on its own, so p50/p95 are per call); ' +
      'append variants run in alternating, rotated rounds and the reported figure is the median round. Search and ' +
      'list figures are p50/p95 over repeated calls after warm-up. Raw ceilings use prepared better-sqlite3 ' +
      'statements on a file made by the same migrations; they do the same row and index work, without the ' +
      'store’s access and precondition checks, Kysely query building and promise hops.',
  );
  report.note(
    `Sizes: ${config.quick ? 'quick mode (÷ 10)' : 'full'}; store growth checkpoints ${config.growth.checkpoints.map(fmtCount).join(', ')} messages; ` +
      `sessions list at ${config.list.checkpoints.map(fmtCount).join(' and ')} sessions; search at ` +
      `${fmtCount(config.search.sessions * config.search.messagesPerSession)} messages; compress of ` +
      `${fmtCount(config.lineage.compressMessages)}-message sessions and a lineage chain ` +
      `${fmtCount(config.lineage.chainDepth)} deep; single delete of ${fmtCount(config.deletion.deleteMessages)} ` +
      `messages, bulk delete of ${fmtCount(config.deletion.bulkSessions)} sessions; receipt replay of ` +
      `${fmtCount(config.deletion.receipts)} receipts; API load rounds of ${config.api.roundSeconds} s with ` +
      `${config.api.connections} connections; Hermes import of ` +
      `${fmtCount(config.import.conversations * 4 * config.import.messagesPerSession)} messages; usage overview at ` +
      `${fmtCount(config.stats.messages)} messages (${fmtCount(config.pg.statsMessages)} on PostgreSQL); ` +
      `${fmtCount(config.topology.watchedDeletes)} watched deletions per topology; health during a rebuild of ` +
      `${fmtCount(config.topology.rebuildMessages)} messages, a retention pass over ` +
      `${fmtCount(config.topology.retentionSessions)} sessions, a compress and a rewind of sessions of ` +
      `${fmtCount(config.topology.compressMessages)} and ${fmtCount(config.topology.rewindMessages)} messages, bulk deletes of ` +
      `${fmtCount(config.topology.bulkDeleteSessions)} sessions, an import of ${fmtCount(config.topology.importMessages)} ` +
      `messages, a backup of ${fmtCount(config.topology.backupMessages)} and the index maintenance of ` +
      `${fmtCount(config.topology.maintenanceMessages)} messages; ${config.topology.appendSeconds} s of appends per topology.`,
  );
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`\n${signal}: stopping the API servers, dropping scratch databases and temp files`);
    stopServers();
    void cleanUpEverything().finally(() => process.exit(130));
  });
}

main()
  .catch((error) => {
    process.exitCode = 1;
    console.error(error);
  })
  .finally(() => removeScratch());
