import { statSync } from 'node:fs';
import type { MessageInput } from '@statehouse/contracts';
import type { StateStore } from '@statehouse/state';
import Database from 'better-sqlite3';
import type { BenchConfig } from './lib/config.js';
import { MessageFactory, PROFILES } from './lib/data.js';
import { describeLevels, FTS_INDEXES, ftsLevels, untilFtsMerged } from './lib/fts-structure.js';
import { kyselyCeilingAppend } from './lib/kysely-append.js';
import { RawAppender } from './lib/raw-append.js';
import { fmtCount, fmtPct, fmtPct1, fmtRate, fmtRatio, fmtSigned, fmtUs, log, type Report } from './lib/report.js';
import { Rng } from './lib/rng.js';
import { ADMIN_CTX, type BenchStore, openRawSqlite, openSqliteStore } from './lib/stores.js';
import {
  median,
  msSince,
  nowNs,
  percentile,
  type Summary,
  sample,
  sampleAlternating,
  sampleSync,
  settle,
  summarize,
} from './lib/timing.js';

const POOL = 20_000;
/**
 * The store indexes every COMMIT's messages at that COMMIT, as the raw ceiling does (no search-index
 * lag, docs/search.md): these figures compare the same work per append. The lag's own effect is in
 * figure 16 (the API runs with its default).
 */
const LIKE_THE_CEILING = { groupCommit: { searchIndexLagMs: 0 } };

/** Sessions `ids` through the store (the same ids in every file, so the work is identical). */
async function createSessions(store: StateStore, ids: readonly string[], source = 'cli'): Promise<void> {
  for (const [index, id] of ids.entries()) {
    await store.sessions.create(ADMIN_CTX, { id, profile: PROFILES[index % PROFILES.length], source });
  }
}

/** Every appended message comes from one pool, walked in the same order by every variant. */
class Feed {
  #next = 0;
  constructor(private readonly pool: readonly MessageInput[]) {}
  take(count: number): MessageInput[] {
    const out: MessageInput[] = [];
    for (let i = 0; i < count; i++) out.push(this.pool[this.#next++ % this.pool.length]);
    return out;
  }
}

interface Variant {
  name: string;
  single(sessionId: string, message: MessageInput): unknown;
  batch(sessionId: string, messages: MessageInput[]): unknown;
  sync: boolean;
  feed: Feed;
  singles: number[];
  roundSingleMeans: number[];
  roundBatchRates: number[];
}

function storeVariant(
  name: string,
  store: StateStore,
  pool: readonly MessageInput[],
  withPlatformIds = false,
): Variant {
  let platformId = 0;
  const tag = (message: MessageInput): MessageInput =>
    withPlatformIds ? { ...message, platformMessageId: `pm-${platformId++}` } : message;
  return {
    name,
    sync: false,
    feed: new Feed(pool),
    single: (sessionId, message) => store.messages.append(ADMIN_CTX, sessionId, { messages: [tag(message)] }),
    batch: (sessionId, messages) => store.messages.append(ADMIN_CTX, sessionId, { messages: messages.map(tag) }),
    singles: [],
    roundSingleMeans: [],
    roundBatchRates: [],
  };
}

function rawVariant(
  name: string,
  db: Database.Database,
  pool: readonly MessageInput[],
  raw: { append(sessionId: string, inputs: readonly MessageInput[]): unknown } = new RawAppender(db),
): Variant {
  return {
    name,
    sync: true,
    feed: new Feed(pool),
    single: (sessionId, message) => raw.append(sessionId, [message]),
    batch: (sessionId, messages) => raw.append(sessionId, messages),
    singles: [],
    roundSingleMeans: [],
    roundBatchRates: [],
  };
}

async function runRound(variant: Variant, sessions: readonly string[], config: BenchConfig['append'], first: boolean) {
  const { singlePerRound, batchesPerRound, batchSize } = config;
  const warmup = first ? 50 : 0;
  // Inputs are taken before timing starts: the clock sees the append alone.
  const singles = variant.feed.take(singlePerRound + warmup);
  const batches = Array.from({ length: batchesPerRound + (first ? 1 : 0) }, () => variant.feed.take(batchSize));
  const pickSession = (i: number) => sessions[i % sessions.length];
  if (first) {
    for (let i = 0; i < warmup; i++) await variant.single(pickSession(i), singles[i]);
    await variant.batch(pickSession(0), batches.pop()!);
  }
  await settle();
  const singleSamples = variant.sync
    ? sampleSync(singlePerRound, (i) => variant.single(pickSession(i), singles[i + warmup]), 0)
    : await sample(singlePerRound, (i) => variant.single(pickSession(i), singles[i + warmup]), 0);
  variant.singles.push(...singleSamples);
  variant.roundSingleMeans.push(summarize(singleSamples).mean);
  await settle();
  const batchSamples = variant.sync
    ? sampleSync(batchesPerRound, (i) => variant.batch(pickSession(i), batches[i]), 0)
    : await sample(batchesPerRound, (i) => variant.batch(pickSession(i), batches[i]), 0);
  const totalMs = batchSamples.reduce((sum, ms) => sum + ms, 0);
  variant.roundBatchRates.push((batchesPerRound * batchSize) / (totalMs / 1000));
}

const SEARCH_TRIGGERS = ['messages_search_ai', 'messages_search_ad', 'messages_search_au'];

/** Drops the search triggers; with `wordOnly`, puts back an insert trigger for the word index alone. */
function stripSearchIndexes(db: Database.Database, wordOnly: boolean): void {
  for (const trigger of SEARCH_TRIGGERS) db.exec(`drop trigger if exists ${trigger}`);
  if (wordOnly) {
    db.exec(`create trigger messages_search_ai after insert on messages begin
      insert into messages_fts(rowid, content, tool_name, tool_calls) select new.id, new.content, new.tool_name, new.tool_calls
      where new.display_kind <> 'hidden' and (new.active = 1 or new.compacted = 1); end`);
  }
}

/**
 * Figure 1 (SQLite): single-message and 100-message appends through the store vs the raw
 * better-sqlite3 ceiling on a second file made by the same migrations. Variants run in alternating
 * rounds (order rotated each round) and each figure is the median round, so drift of the shared
 * machine hits every variant alike.
 */
export async function appendThroughputSqlite(report: Report, config: BenchConfig): Promise<void> {
  const c = config.append;
  report.section(
    'Append throughput (SQLite)',
    `Content: ~100-character generated English messages (Zipf word frequencies, identifiers, numbers, ~2 % CJK), ` +
      `user/assistant turns with ~5 % tool rows (not substring-indexed) and occasional tool calls. ${c.sessions} ` +
      `sessions per file. ${c.rounds} alternating rounds of ${c.singlePerRound} single-message appends and ` +
      `${c.batchesPerRound} × ${c.batchSize}-message batches per variant; figures are the median round. ` +
      'Each variant has its own file made by the same migrations (raw variants: the store is opened once ' +
      'to migrate and create the sessions, then closed, and the file is driven by raw better-sqlite3).',
  );
  const sessions = Array.from({ length: c.sessions }, (_, i) => `s-${String(i).padStart(4, '0')}`);
  const pool = new MessageFactory(1).messages(POOL);
  const files: BenchStore[] = [];
  const raws: Database.Database[] = [];
  const openRaw = async (name: string, prepare?: (db: Database.Database) => void) => {
    const file = await openSqliteStore(name, LIKE_THE_CEILING);
    await createSessions(file.store, sessions);
    await file.close();
    const db = openRawSqlite(file.path);
    prepare?.(db);
    raws.push(db);
    return db;
  };
  try {
    const storeFile = await openSqliteStore('append-store', LIKE_THE_CEILING);
    files.push(storeFile);
    await createSessions(storeFile.store, sessions);
    const dedupeFile = await openSqliteStore('append-store-dedupe', LIKE_THE_CEILING);
    files.push(dedupeFile);
    await createSessions(dedupeFile.store, sessions);

    const ours = storeVariant('store: `store.messages.append`', storeFile.store, pool);
    const ceiling = rawVariant(
      '**raw ceiling**: better-sqlite3, both search indexes',
      await openRaw('append-raw'),
      pool,
    );
    const kyselyFile = await openSqliteStore('append-kysely', LIKE_THE_CEILING);
    files.push(kyselyFile);
    await createSessions(kyselyFile.store, sessions);
    const multiDb = await openRaw('append-raw-multi');
    const multi = rawVariant(
      'raw, one multi-row INSERT per batch (stronger batch ceiling)',
      multiDb,
      pool,
      new RawAppender(multiDb, { multiRow: true }),
    );
    const kysely: Variant = {
      ...storeVariant(
        'the ceiling’s SQL, precompiled, through Kysely’s transaction on a store connection',
        kyselyFile.store,
        pool,
      ),
      single: (sessionId, message) => kyselyCeilingAppend(kyselyFile.store, sessionId, [message]),
      batch: (sessionId, messages) => kyselyCeilingAppend(kyselyFile.store, sessionId, messages),
    };
    const dedupe = storeVariant(
      'store, each message with a `platformMessageId` (dedupe lookup)',
      dedupeFile.store,
      pool,
      true,
    );
    const wordOnly = rawVariant(
      'raw, word index only (no trigram)',
      await openRaw('append-raw-word', (db) => stripSearchIndexes(db, true)),
      pool,
    );
    const noIndex = rawVariant(
      'raw, no search indexes',
      await openRaw('append-raw-none', (db) => stripSearchIndexes(db, false)),
      pool,
    );
    const variants: Variant[] = [ours, ceiling, multi, kysely, dedupe, wordOnly, noIndex];
    for (let round = 0; round < c.rounds; round++) {
      const order = variants.map((_, i) => variants[(i + round) % variants.length]);
      for (const variant of order) await runRound(variant, sessions, c, round === 0);
      log(
        `  round ${round + 1}/${c.rounds}: store ${fmtUs(ours.roundSingleMeans[round])} vs raw ${fmtUs(ceiling.roundSingleMeans[round])}`,
      );
    }

    const add = report.table('Single-message and 100-message appends', [
      'variant',
      'single: µs / append (median round)',
      'single p50',
      'single p95',
      'vs ceiling',
      '100-batch: msg/s (median round)',
      'vs ceiling',
    ]);
    const ceilingSingle = median(ceiling.roundSingleMeans);
    const ceilingRate = median(ceiling.roundBatchRates);
    for (const variant of variants) {
      const all = summarize(variant.singles);
      const single = median(variant.roundSingleMeans);
      const rate = median(variant.roundBatchRates);
      add([
        variant.name,
        fmtUs(single),
        fmtUs(all.p50),
        fmtUs(all.p95),
        fmtRatio(single / ceilingSingle),
        fmtRate(rate),
        fmtPct(rate / ceilingRate),
      ]);
    }
    const multiRate = median(multi.roundBatchRates);
    const oursSingle = median(ours.roundSingleMeans);
    const oursRate = median(ours.roundBatchRates);
    report.target({
      figure: '1a. single-message append, SQLite',
      ours: `${fmtUs(oursSingle)} / append`,
      ceiling: `${fmtUs(ceilingSingle)} / append`,
      ratio: fmtRatio(oursSingle / ceilingSingle),
      target: '≤ 1.3× ceiling',
      met: oursSingle / ceilingSingle <= 1.3,
    });
    const [oursP50, ceilingP50] = [summarize(ours.singles).p50, summarize(ceiling.singles).p50];
    report.target({
      figure: '1a. single-message append, SQLite (p50, typical call)',
      ours: fmtUs(oursP50),
      ceiling: fmtUs(ceilingP50),
      ratio: fmtRatio(oursP50 / ceilingP50),
      target: '≤ 1.3× ceiling',
      met: oursP50 / ceilingP50 <= 1.3,
    });
    for (const [share, label] of [
      [0.7, '≥ 70 % of ceiling'],
      [0.5, '≥ 50 % of ceiling (issue’s older target)'],
    ] as const) {
      report.target({
        figure: '1b. 100-message batch append, SQLite',
        ours: fmtRate(oursRate),
        ceiling: fmtRate(ceilingRate),
        ratio: fmtPct(oursRate / ceilingRate),
        target: label,
        met: oursRate / ceilingRate >= share,
      });
    }
    const single = (variant: Variant) => median(variant.roundSingleMeans);
    const rate = (variant: Variant) => median(variant.roundBatchRates);
    const p50 = (variant: Variant) => summarize(variant.singles).p50;
    const step = (from: Variant, to: Variant) => {
      const delta = p50(to) - p50(from);
      return `${delta >= 0 ? '+' : '−'}${fmtUs(Math.abs(delta))}`;
    };
    report.note(
      `**Single-message append (1a)** is ${fmtRatio(oursSingle / ceilingSingle)} the ceiling in this run ` +
        `(target 1.3×, i.e. ≤ ${fmtUs(1.3 * ceilingSingle)} per append); on the typical call (p50) it is ` +
        `${fmtRatio(p50(ours) / p50(ceiling))}. Where the time goes, by p50 (the means also carry the FTS5 merge ` +
        'and WAL checkpoint spikes of each variant’s own file, too noisy to subtract): raw ceiling ' +
        `${fmtUs(p50(ceiling))} → the same statements, precompiled, through Kysely’s transaction on a store ` +
        `connection ${fmtUs(p50(kysely))} (${step(ceiling, kysely)}: async driver, connection mutex, BEGIN/COMMIT ` +
        `as promises) → \`store.messages.append\` ${fmtUs(p50(ours))} (${step(kysely, ours)}: query building, ` +
        'unit of work, access and precondition checks, content handling, and any statement the store runs beyond ' +
        'the ceiling’s INSERT and UPDATE). So a store that keeps every append on Kysely’s async transaction starts ' +
        `at ${fmtRatio(p50(kysely) / p50(ceiling))} the ceiling (p50) before doing any work of its own. The ceiling ` +
        `itself is mostly index work at COMMIT: ${fmtUs(single(noIndex))} per append without search indexes, ` +
        `${fmtUs(single(wordOnly))} with the word index only, ${fmtUs(ceilingSingle)} with both. With a ` +
        `\`platformMessageId\` on every message (dedupe lookup) the store measured ${fmtUs(single(dedupe))} per ` +
        `append and ${fmtRate(rate(dedupe))} in batches.`,
    );
    report.note(
      `**100-message batches (1b)**: the store writes a batch with one multi-row INSERT (chunks of 500), so it beats ` +
        `the ceiling of docs/performance-targets.md of one prepared single-row INSERT per message (${fmtRate(ceilingRate)}): FTS5 ` +
        'flushes its pending terms to disk at every statement boundary inside a transaction (its xSavepoint ' +
        'method), so a statement per row writes a tiny index segment per row. Against the stronger ceiling — raw ' +
        `better-sqlite3 with one multi-row INSERT per batch, ${fmtRate(multiRate)} — the store reaches ` +
        `${fmtPct(oursRate / multiRate)}; the same statements precompiled through Kysely reach ` +
        `${fmtPct(rate(kysely) / multiRate)}.`,
    );
    report.target({
      figure: '1b. 100-message batch append vs raw multi-row INSERT (stronger ceiling), SQLite',
      ours: fmtRate(oursRate),
      ceiling: fmtRate(multiRate),
      ratio: fmtPct(oursRate / multiRate),
      target: '≥ 70 % of ceiling',
      met: oursRate / multiRate >= 0.7,
    });
  } finally {
    for (const db of raws) db.close();
    for (const file of files) await file.close();
  }
}

/** Single-message appends to random existing sessions of a store (probe of its current size). */
export async function probeSingleAppends(
  store: StateStore,
  sessions: readonly string[],
  inputs: readonly MessageInput[],
  rng: Rng,
): Promise<Summary & { p99: number; samples: number[] }> {
  const targets = inputs.map(() => rng.pick(sessions));
  const warmup = Math.min(100, Math.floor(inputs.length / 5));
  for (let i = 0; i < warmup; i++) await store.messages.append(ADMIN_CTX, targets[i], { messages: [inputs[i]] });
  await settle();
  const samples = await sample(
    inputs.length - warmup,
    (i) => store.messages.append(ADMIN_CTX, targets[i + warmup], { messages: [inputs[i + warmup]] }),
    0,
  );
  const sorted = [...samples].sort((a, b) => a - b);
  return { ...summarize(samples), p99: percentile(sorted, 99), samples };
}

/** Calls slower than `thresholdMs` (index merges, checkpoints) and their share of the total time. */
export function spikes(
  samples: readonly number[],
  thresholdMs = 5,
): { count: number; share: number; callShare: number } {
  const total = samples.reduce((sum, ms) => sum + ms, 0);
  const slow = samples.filter((ms) => ms > thresholdMs);
  return {
    count: slow.length,
    share: slow.reduce((sum, ms) => sum + ms, 0) / total,
    callShare: slow.length / Math.max(samples.length, 1),
  };
}

/**
 * Grows a store with batched appends (1000 messages per session, one append each) and reports the
 * build throughput; `onCheckpoint` runs each time the store reaches a checkpoint size.
 */
export async function growStore(
  store: StateStore,
  checkpoints: readonly number[],
  options: { batch: number; seed: number; idPrefix: string },
  onCheckpoint: (size: number, sessions: string[], buildRate: number) => Promise<void>,
): Promise<void> {
  const factory = new MessageFactory(options.seed);
  const rng = new Rng(options.seed);
  const sessions: string[] = [];
  let total = 0;
  for (const checkpoint of checkpoints) {
    let built = 0;
    let buildMs = 0;
    while (total < checkpoint) {
      const count = Math.min(options.batch, checkpoint - total);
      const id = `${options.idPrefix}-${String(sessions.length).padStart(5, '0')}`;
      const source = rng.chance(0.1) ? rng.pick(['cron', 'subagent']) : rng.pick(['cli', 'telegram', 'slack']);
      await store.sessions.create(ADMIN_CTX, { id, profile: PROFILES[sessions.length % PROFILES.length], source });
      sessions.push(id);
      const messages = factory.messages(count);
      const start = nowNs();
      await store.messages.append(ADMIN_CTX, id, { messages });
      buildMs += msSince(start);
      built += count;
      total += count;
      if (sessions.length % 100 === 0) log(`  … ${fmtCount(total)} messages`);
    }
    await onCheckpoint(checkpoint, sessions, built / (buildMs / 1000));
  }
}

const fileSize = (path: string) => {
  let bytes = 0;
  for (const suffix of ['', '-wal']) {
    try {
      bytes += statSync(path + suffix).size;
    } catch {
      // no WAL yet
    }
  }
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
};

/** Figure 2 (SQLite): single-message append cost as the store grows 10⁴ → 10⁶ messages. */
export async function appendGrowthSqlite(report: Report, config: BenchConfig): Promise<void> {
  const c = config.growth;
  report.section(
    'Append cost as the store grows (SQLite)',
    `The store is built with batched appends (${c.buildBatch} messages per session in one append; 10 % of the ` +
      'sessions are cron/sub-agent, outside the substring index). The build never pauses, so the FTS merger (which ' +
      'merges index segments when the file is quiet) leaves its segments to it; at each size the bench then waits, ' +
      'without writing, until the merger has merged them (no level left with `usermerge` segments: the state any ' +
      'quiet moment leaves a store in; the wait is in the table). Then ' +
      `${fmtCount(c.probes)} single-message appends to random existing sessions are timed through the store (after ` +
      '100 warm-up appends), the merger is waited for again, and the same number goes through the raw ceiling on ' +
      'the same file. The mean is the amortized cost (it carries the crisis merges the probes themselves cause); ' +
      'p50 is the typical call, p99 the tail.',
  );
  const file = await openSqliteStore('growth', LIKE_THE_CEILING);
  const raw = openRawSqlite(file.path);
  // A read-only look at the index structure: it never commits, so the merger sees the file quiet.
  const look = new Database(file.path, { readonly: true });
  const rawAppender = new RawAppender(raw);
  const probeFactory = new MessageFactory(99);
  const rng = new Rng(5);
  const add = report.table('Single-message append at growing store sizes', [
    'messages in store',
    'sessions',
    'store: mean',
    'p50',
    'p95',
    'p99',
    'calls > 5 ms (share of time)',
    'share of calls > 5 ms',
    'raw ceiling: mean',
    'raw p50',
    'raw calls > 5 ms (share)',
    'store / raw (mean)',
    'build, batches of 1000',
    'merger after the build',
    'file + WAL',
  ]);
  const ours: (Summary & { p99: number; share: number; callShare: number })[] = [];
  const paired: ({ size: number } & PairedAppends)[] = [];
  const raws: (Summary & { share: number })[] = [];
  try {
    await growStore(
      file.store,
      c.checkpoints,
      { batch: c.buildBatch, seed: 3, idPrefix: 'g' },
      async (size, sessions, rate) => {
        const built = FTS_INDEXES.map((table) => `${table} ${describeLevels(ftsLevels(look, table))}`).join('; ');
        const backlogMs = await untilFtsMerged(look);
        log(
          `  ${fmtCount(size)}: index levels after the build ${built}; merged in ${(backlogMs / 1000).toFixed(1)} s to ` +
            FTS_INDEXES.map((table) => `${table} ${describeLevels(ftsLevels(look, table))}`).join('; '),
        );
        const probe = await probeSingleAppends(file.store, sessions, probeFactory.messages(c.probes), rng);
        if (size !== c.checkpoints[0]) {
          await untilFtsMerged(look);
          paired.push({ size, ...(await pairedWithSmallest(file.store, sessions, look, c, probeFactory, rng)) });
        }
        const rawInputs = probeFactory.messages(c.probes);
        await untilFtsMerged(look);
        await settle();
        const rawSamples = sampleSync(
          rawInputs.length,
          (i) => rawAppender.append(rng.pick(sessions), [rawInputs[i]]),
          50,
        );
        const rawSummary = summarize(rawSamples);
        const slow = spikes(probe.samples);
        const rawSlow = spikes(rawSamples);
        ours.push({ ...probe, share: slow.share, callShare: slow.callShare });
        raws.push({ ...rawSummary, share: rawSlow.share });
        add([
          fmtCount(size),
          fmtCount(sessions.length),
          fmtUs(probe.mean),
          fmtUs(probe.p50),
          fmtUs(probe.p95),
          fmtUs(probe.p99),
          `${slow.count} (${fmtPct(slow.share)})`,
          fmtPct1(slow.callShare),
          fmtUs(rawSummary.mean),
          fmtUs(rawSummary.p50),
          `${rawSlow.count} (${fmtPct(rawSlow.share)})`,
          fmtRatio(probe.mean / rawSummary.mean),
          fmtRate(rate),
          `${(backlogMs / 1000).toFixed(1)} s`,
          fileSize(file.path),
        ]);
      },
    );
  } finally {
    look.close();
    raw.close();
    await file.close();
  }
  const sizes = c.checkpoints.map(fmtCount).join(' → ');
  for (const key of ['mean', 'p50'] as const) {
    const values = ours.map((summary) => summary[key]);
    const worst = values.reduce((w, v) => (Math.abs(v / values[0] - 1) > Math.abs(w / values[0] - 1) ? v : w));
    report.target({
      figure: `2. single-message append as the store grows ${sizes} (${key === 'mean' ? 'mean, amortized' : 'p50, typical call'}; each size at its own moment), SQLite`,
      ours: values.map(fmtUs).join(' → '),
      ceiling: raws.map((summary) => fmtUs(summary[key])).join(' → '),
      ratio: `${fmtSigned(worst / values[0] - 1)} (worst)`,
      target: 'report only (the paired rows below carry the target)',
      met: null,
    });
  }
  const smallestSize = fmtCount(c.checkpoints[0]);
  for (const key of ['mean', 'p50'] as const) {
    const growths = paired.map((pair) => pair.large[key] / pair.small[key] - 1);
    const worst = growths.reduce((w, g) => (Math.abs(g) > Math.abs(w) ? g : w), 0);
    report.target({
      figure:
        `2. single-message append, ${smallestSize} vs ${paired.map((pair) => fmtCount(pair.size)).join(' and ')} messages ` +
        `in paired calls (${key === 'mean' ? 'mean, amortized' : 'p50, typical call'}), SQLite`,
      ours: paired.map((pair) => `${fmtUs(pair.small[key])} vs ${fmtUs(pair.large[key])}`).join('; '),
      ceiling: '—',
      ratio: `${fmtSigned(worst)} (worst)`,
      target: 'flat within ± 25 %',
      met: Math.abs(worst) <= 0.25,
    });
  }
  const worstCalls = Math.max(...ours.map((summary) => summary.callShare));
  report.target({
    figure: `2. single-message appends over 5 ms as the store grows ${sizes} (share of calls), SQLite`,
    ours: ours.map((summary) => fmtPct1(summary.callShare)).join(' → '),
    ceiling: '—',
    ratio: `${fmtPct1(worstCalls)} (worst)`,
    target: '< 5 % of calls',
    met: worstCalls < 0.05,
  });
  const shares = (list: { share: number }[]) => list.map((summary) => fmtPct(summary.share)).join(' → ');
  report.note(
    `**Append cost as the store grows (2)**: p50 ${ours.map((x) => fmtUs(x.p50)).join(' → ')}, ` +
      `p99 ${ours.map((x) => fmtUs(x.p99)).join(' → ')} ` +
      `(raw ceiling ${raws.map((x) => fmtUs(x.p50)).join(' → ')}); mean ` +
      `${ours.map((x) => fmtUs(x.mean)).join(' → ')} (raw ceiling on the same file: ` +
      `${raws.map((x) => fmtUs(x.mean)).join(' → ')}); calls over 5 ms ` +
      `${ours.map((x) => fmtPct1(x.callShare)).join(' → ')} of the calls, ${shares(ours)} of the time for the ` +
      `store, ${shares(raws)} for the raw ceiling. FTS5 segment merging is off the request path ` +
      '(docs/search.md, “Index segments and merging”: `automerge = 0`; a worker merges when the file is quiet; ' +
      'a write merges 64 segments of one level itself only when nothing merged them): an append writes its own ' +
      'segment and commits. Each size is probed once the merger has merged what the build left (the build never ' +
      'pauses, so its segments pile up to 63 per level; probed straight after it, one probe met the crisis merge ' +
      'of a level of large build segments — seconds at 10⁶ — a backlog a store grown by real traffic merges in ' +
      'its quiet moments). The probes are one burst with no quiet moment, so the crisis merges of their own ' +
      'one-message segments (64 per level) are in the mean. The raw ceiling runs on the same file, with the same ' +
      'settings. What is left of the slow calls is WAL and scheduling noise (the raw ceiling’s share shows how ' +
      'much of it the machine adds); the mean is the noisiest figure of the run.',
  );
  report.note(
    `**Append cost as the store grows, paired (2)**: each size above is timed at its own moment, minutes apart ` +
      `on a shared machine whose speed drifts, so at each larger size a fresh store of ${smallestSize} messages ` +
      '(built the same way, merged the same way) and the large store take the probes call by call in turn — ' +
      'neither file is ever quiet long enough for its merger, so both keep the burst’s own crisis merges: ' +
      paired
        .map(
          (pair) =>
            `${fmtCount(pair.size)}: mean ${fmtUs(pair.small.mean)} vs ${fmtUs(pair.large.mean)} ` +
            `(${fmtSigned(pair.large.mean / pair.small.mean - 1)}), p50 ${fmtUs(pair.small.p50)} vs ` +
            `${fmtUs(pair.large.p50)}, calls over 5 ms ${fmtPct1(pair.small.callShare)} vs ${fmtPct1(pair.large.callShare)}` +
            ` (${fmtPct(pair.small.share)} vs ${fmtPct(pair.large.share)} of the time)`,
        )
        .join('; ') +
      '. The paired rows judge the target: they compare the sizes, not the moments.',
  );
}

interface PairedAppends {
  small: Summary & { share: number; callShare: number };
  large: Summary & { share: number; callShare: number };
}

/**
 * The probes again, call by call in turn on `large` and on a fresh store of the smallest size: the
 * growth figure without the machine's drift between checkpoints.
 */
async function pairedWithSmallest(
  large: StateStore,
  largeSessions: readonly string[],
  largeLook: Database.Database,
  c: BenchConfig['growth'],
  factory: MessageFactory,
  rng: Rng,
): Promise<PairedAppends> {
  const file = await openSqliteStore(`growth-smallest-${largeSessions.length}`, LIKE_THE_CEILING);
  const look = new Database(file.path, { readonly: true });
  try {
    let smallSessions: string[] = [];
    await growStore(file.store, [c.checkpoints[0]], { batch: c.buildBatch, seed: 3, idPrefix: 'g' }, async (_, ids) => {
      smallSessions = ids;
    });
    await untilFtsMerged(look);
    await untilFtsMerged(largeLook);
    const warmup = 100;
    const stores = [file.store, large];
    // Every call appends a message of its own (warm-up included): no call is a dedupe hit.
    const inputs = stores.map(() => factory.messages(c.probes + warmup));
    const targets = [smallSessions, largeSessions].map((ids) => inputs[0].map(() => rng.pick(ids)));
    const next = [0, 0];
    await settle();
    const [smallSamples, largeSamples] = await sampleAlternating(
      c.probes,
      [0, 1].map((which) => () => {
        const at = next[which]++;
        return stores[which].messages.append(ADMIN_CTX, targets[which][at], { messages: [inputs[which][at]] });
      }),
      warmup,
    );
    const describe = (samples: number[]) => {
      const slow = spikes(samples);
      return { ...summarize(samples), share: slow.share, callShare: slow.callShare };
    };
    return { small: describe(smallSamples), large: describe(largeSamples) };
  } finally {
    look.close();
    await file.close();
  }
}

/** Figure 5 (PostgreSQL): single and 100-message appends through the store (no raw ceiling). */
export async function appendThroughputPg(report: Report, config: BenchConfig, open: () => Promise<BenchStore>) {
  const c = config.append;
  report.section(
    'Append throughput (PostgreSQL)',
    `As on SQLite, through the store only (no raw ceiling): ${c.sessions} sessions, ${c.rounds} rounds of ` +
      `${c.singlePerRound} single-message appends and ${c.batchesPerRound} × ${c.batchSize}-message batches; figures ` +
      'are the median round.',
  );
  const file = await open();
  try {
    const sessions = Array.from({ length: c.sessions }, (_, i) => `s-${String(i).padStart(4, '0')}`);
    await createSessions(file.store, sessions);
    const variant = storeVariant('store', file.store, new MessageFactory(1).messages(POOL));
    for (let round = 0; round < c.rounds; round++) await runRound(variant, sessions, c, round === 0);
    const all = summarize(variant.singles);
    const add = report.table('Append throughput (PostgreSQL)', [
      'variant',
      'single: µs / append (median round)',
      'single p50',
      'single p95',
      '100-batch: msg/s (median round)',
    ]);
    const single = median(variant.roundSingleMeans);
    const rate = median(variant.roundBatchRates);
    add(['store: `store.messages.append`', fmtUs(single), fmtUs(all.p50), fmtUs(all.p95), fmtRate(rate)]);
    report.target({
      figure: '5. single-message append, PostgreSQL',
      ours: `${fmtUs(single)} / append`,
      ceiling: '—',
      ratio: '—',
      target: 'report only',
      met: null,
    });
    report.target({
      figure: '5. 100-message batch append, PostgreSQL',
      ours: fmtRate(rate),
      ceiling: '—',
      ratio: '—',
      target: 'report only',
      met: null,
    });
  } finally {
    await file.close();
  }
}
