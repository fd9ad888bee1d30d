import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchConfig } from './lib/config.js';
import { createToken, startApi } from './lib/http.js';
import { fmtMs, fmtRatio, log, type Report } from './lib/report.js';

interface OpSummary {
  p50: number;
  p99: number;
  calls: number;
}

interface PythonRun {
  rounds: number;
  appends: number;
  hermes: boolean;
  results: Record<string, Record<string, OpSummary>>;
}

const OPS = ['create_session', 'append_message', 'get_messages', 'search_messages'];
/** The target: one append through the adapter, on loopback. */
const APPEND_P50_TARGET_MS = 2;

/**
 * Figure 17: Hermes Agent's SessionDB calls through Statehouse's adapter (clients/python, REST on a
 * keep-alive loopback connection to an API on SQLite) beside Hermes' own SessionDB (SQLite in the
 * process) in the same run — a conversation of create_session, 50 append_message, get_messages and
 * search_messages per round, each call timed (bench/python/hermes_sessiondb.py). Hermes' module
 * comes from BENCH_HERMES (a Hermes Agent checkout), imported at bench time only; without it the
 * adapter is measured alone.
 */
export async function hermesAdapter(report: Report, config: BenchConfig, root: string): Promise<void> {
  const python = ['python3', '/usr/bin/python3'].find(
    (candidate) => spawnSync(candidate, ['--version'], { encoding: 'utf8' }).status === 0,
  );
  report.section(
    '17. Hermes SessionDB: the adapter beside Hermes’ own',
    'Per call, p50 and p99 over every round (each round: one conversation on each store in turn, alternating which goes first).',
  );
  if (!python) {
    report.note('Figure 17 is absent: no python3 on this machine.');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'statehouse-bench-hermes-'));
  const databaseUrl = `file:${join(dir, 'statehouse.db')}`;
  const token = createToken(root, databaseUrl);
  const server = await startApi(root, databaseUrl);
  try {
    const rounds = config.quick ? 5 : 20;
    log(`figure 17: ${rounds} conversations on each store (python: ${python})`);
    const run = spawnSync(python, [join(root, 'bench/python/hermes_sessiondb.py')], {
      cwd: root,
      encoding: 'utf8',
      timeout: 30 * 60_000,
      env: {
        ...process.env,
        STATEHOUSE_URL: `http://127.0.0.1:${server.port}`,
        STATEHOUSE_TOKEN: token,
        BENCH_HERMES_ROUNDS: String(rounds),
        PYTHONDONTWRITEBYTECODE: '1',
      },
    });
    if (run.status !== 0) throw new Error(`the Python bench failed (${run.status}):\n${run.stderr}`);
    const result = JSON.parse(run.stdout.trim().split('\n').pop()!) as PythonRun;
    const adapter = result.results.adapter;
    const hermes = result.hermes ? result.results.hermes : undefined;
    const row = report.table(`Per call (${result.rounds} conversations of ${result.appends} appends each)`, [
      'call',
      'Hermes SQLite p50',
      'Hermes p99',
      'adapter p50',
      'adapter p99',
      'adapter ÷ Hermes (p50)',
    ]);
    for (const op of OPS) {
      const ours = adapter[op];
      const theirs = hermes?.[op];
      row([
        `\`${op}\``,
        theirs ? fmtMs(theirs.p50) : '—',
        theirs ? fmtMs(theirs.p99) : '—',
        fmtMs(ours.p50),
        fmtMs(ours.p99),
        theirs ? fmtRatio(ours.p50 / theirs.p50) : '—',
      ]);
    }
    const append = adapter.append_message;
    report.target({
      figure: '17. Hermes adapter: one append_message (REST, loopback)',
      ours: fmtMs(append.p50),
      ceiling: hermes ? `${fmtMs(hermes.append_message.p50)} (Hermes' own SQLite)` : '—',
      ratio: hermes ? fmtRatio(append.p50 / hermes.append_message.p50) : '—',
      target: `p50 ≤ ${APPEND_P50_TARGET_MS} ms`,
      met: append.p50 <= APPEND_P50_TARGET_MS,
    });
    if (!hermes) {
      report.note(
        'Figure 17 measured the adapter alone: set BENCH_HERMES to a Hermes Agent checkout (the folder with hermes_state.py) for Hermes’ own SessionDB beside it.',
      );
    }
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
