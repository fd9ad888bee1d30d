import { join } from 'node:path';
import type { MessageInput } from '@statehouse/contracts';
import { buildHermesBulk } from '@statehouse/state/testing';
import type { BenchConfig } from './lib/config.js';
import { RawAppender } from './lib/raw-append.js';
import { fmtCount, fmtMs, fmtPerSecond, fmtRate, fmtRatio, log, type Report } from './lib/report.js';
import { ADMIN_CTX, type BenchStore, openRawSqlite, openSqliteStore, scratchDir } from './lib/stores.js';
import { msSince, nowNs } from './lib/timing.js';

/**
 * Import throughput: a Hermes store of 10⁵ messages (conversations of a compression root, its
 * continuation, a branch and a sub-agent child) imported through the engine — every session in
 * units of work held near the write-lock target, both search indexes filled by the store's own
 * triggers — against the raw ceiling of writing the same number of messages in 100-row
 * multi-row transactions on a store file. Then the same file again (nothing to do: the ledger).
 */
export async function importSqlite(report: Report, config: BenchConfig): Promise<void> {
  const size = config.import;
  report.section(
    'Import from Hermes Agent (SQLite)',
    `A generated Hermes v30 state.db of ${fmtCount(size.conversations * 4)} sessions and ` +
      `${fmtCount(size.conversations * 4 * size.messagesPerSession)} messages, imported into a new store with ` +
      '`store.imports.runHermes` (what `npm run import -- hermes` runs). The ceiling writes the same number of ' +
      'messages with prepared multi-row INSERTs of 100 rows per transaction (both search indexes, same triggers).',
  );
  const source = join(scratchDir(), 'state.db');
  const built = nowNs();
  const { sessions, messages } = buildHermesBulk(source, {
    conversations: size.conversations,
    messagesPerSession: size.messagesPerSession,
  });
  log(
    `  built the Hermes file in ${fmtMs(msSince(built))} (${fmtCount(sessions)} sessions, ${fmtCount(messages)} messages)`,
  );

  const ceiling = await rawCeiling(sessions, messages);
  const target: BenchStore = await openSqliteStore('import');
  try {
    const started = nowNs();
    const result = await target.store.imports.runHermes(ADMIN_CTX, {
      path: source,
      onConflict: 'skip',
      dryRun: false,
    });
    const elapsed = msSince(started);
    if (result.report.messages.created !== messages) {
      throw new Error(`imported ${result.report.messages.created} of ${messages} messages`);
    }
    const again = nowNs();
    const repeat = await target.store.imports.runHermes(ADMIN_CTX, { path: source, onConflict: 'skip', dryRun: false });
    const repeatMs = msSince(again);
    if (repeat.report.sessions.created !== 0) throw new Error('a repeated import created sessions');

    const rate = (messages / elapsed) * 1000;
    const add = report.table('Import throughput', [
      'run',
      'time',
      'messages/s',
      'sessions/s',
      'units of work',
      'unit p50 / p95 / longest',
    ]);
    add([
      'first import',
      fmtMs(elapsed),
      fmtRate(rate),
      fmtPerSecond((sessions / elapsed) * 1000, 'sessions'),
      fmtCount(result.units),
      `${fmtMs(result.unitP50Ms)} / ${fmtMs(result.unitP95Ms)} / ${fmtMs(result.longestUnitMs)}`,
    ]);
    add([
      'same file again (nothing to do)',
      fmtMs(repeatMs),
      fmtRate((messages / repeatMs) * 1000),
      fmtPerSecond((sessions / repeatMs) * 1000, 'sessions'),
      fmtCount(repeat.units),
      `${fmtMs(repeat.unitP50Ms)} / ${fmtMs(repeat.unitP95Ms)} / ${fmtMs(repeat.longestUnitMs)}`,
    ]);
    add([
      'raw ceiling (100-row multi-row INSERTs)',
      fmtMs(ceiling.ms),
      fmtRate(ceiling.rate),
      '—',
      fmtCount(Math.ceil(messages / 100)),
      '—',
    ]);
    report.target({
      figure: '12. Hermes import, messages/s (10⁵-message store)',
      ours: fmtRate(rate),
      ceiling: fmtRate(ceiling.rate),
      ratio: fmtRatio(rate / ceiling.rate),
      target: 'informational (units held near 25 ms of write lock, the store’s pause between them)',
      met: null,
    });
  } finally {
    await target.close();
  }
}

/** The same number of messages written by hand: sessions first, then 100-row transactions. */
async function rawCeiling(sessions: number, messages: number): Promise<{ ms: number; rate: number }> {
  const store = await openSqliteStore('import-raw');
  const ids = Array.from({ length: sessions }, (_, i) => `raw-${i}`);
  for (const id of ids) await store.store.sessions.create(ADMIN_CTX, { id, profile: 'bulk', source: 'telegram' });
  await store.close();
  const db = openRawSqlite(store.path);
  try {
    const raw = new RawAppender(db, { multiRow: true });
    const perSession = Math.floor(messages / sessions);
    const batch: MessageInput[] = Array.from({ length: 100 }, (_, i) => ({
      role: i % 2 ? 'assistant' : 'user',
      content: `deploy billing rollout migration latency cache schema pipeline review ${i}`,
    }));
    const started = nowNs();
    let written = 0;
    for (const id of ids) {
      for (let left = perSession; left > 0; left -= 100) {
        raw.append(id, batch.slice(0, Math.min(100, left)));
        written += Math.min(100, left);
      }
    }
    const ms = msSince(started);
    return { ms, rate: (written / ms) * 1000 };
  } finally {
    db.close();
  }
}
