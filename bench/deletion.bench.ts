import { DeleteSessionQuerySchema } from '@statehouse/contracts';
import type { OperationContext } from '@statehouse/state';
import type Database from 'better-sqlite3';
import { sessionWithMessages, tokensOf } from './lib/build.js';
import type { BenchConfig } from './lib/config.js';
import { MessageFactory, PROFILES } from './lib/data.js';
import { replayAll, type SeededReceipts, seedReceipts } from './lib/receipts.js';
import { fmtCount, fmtMs, fmtPerSecond, fmtRatio, log, type Report } from './lib/report.js';
import { ADMIN, ADMIN_CTX, type BenchStore, openRawSqlite, openSqliteStore } from './lib/stores.js';
import { median, msSince, nowNs, settle } from './lib/timing.js';

const SEARCH_DELETE_TRIGGER = 'messages_search_ad';

/** The raw ceiling of a deletion: the rows and their index postings, nothing else (no receipt, no checks). */
class RawDeleter {
  readonly #db: Database.Database;
  readonly #byCount = new Map<number, { messages: Database.Statement; sessions: Database.Statement }>();

  constructor(db: Database.Database) {
    this.#db = db;
  }

  delete(ids: readonly string[]): void {
    let statements = this.#byCount.get(ids.length);
    if (!statements) {
      const list = ids.map(() => '?').join(', ');
      statements = {
        messages: this.#db.prepare(`delete from messages where session_id in (${list})`),
        sessions: this.#db.prepare(`delete from sessions where id in (${list})`),
      };
      this.#byCount.set(ids.length, statements);
    }
    this.#db.exec('begin immediate');
    try {
      statements.messages.run(...ids);
      statements.sessions.run(...ids);
      this.#db.exec('commit');
    } catch (error) {
      if (this.#db.inTransaction) this.#db.exec('rollback');
      throw error;
    }
  }
}

/** The raw ceiling of a replay page: the prepared SELECT and the JSON columns parsed, no layer. */
function rawReplay(db: Database.Database, pageSize: number) {
  const page = db.prepare('select * from deletion_receipts where sequence > ? order by sequence limit ?');
  return () =>
    replayAll(async (after) => {
      const rows = page.all(after, pageSize + 1) as { sequence: number; counts: string; identities: string }[];
      const items = rows.slice(0, pageSize).map((row) => ({
        ...row,
        counts: JSON.parse(row.counts),
        identities: JSON.parse(row.identities),
      }));
      return { items, nextCursor: rows.length > pageSize ? String(items[items.length - 1].sequence) : null };
    });
}

export interface DeletionTarget {
  dialect: 'SQLite' | 'PostgreSQL';
  deleteSessions: number;
  bulkRounds: number;
  receipts: number;
  replayRounds: number;
  open(): Promise<BenchStore>;
  raw?(location: string): Database.Database;
}

/**
 * Figures 8 and 9: single delete of a session with 10⁴ messages, bulk delete of 500 small
 * sessions (and of 50, the comparison in docs/performance-targets.md), and replay of 10⁵ receipts — on one store
 * that already holds the seeded receipts, so every deletion appends to a long chain.
 */
export async function deletionBench(report: Report, config: BenchConfig, target: DeletionTarget): Promise<void> {
  const c = config.deletion;
  const sqlite = target.dialect === 'SQLite';
  const file = await target.open();
  const store = file.store;
  const raw = target.raw?.(file.location);
  const rawDeleter = raw ? new RawDeleter(raw) : undefined;
  const factory = new MessageFactory(31);
  try {
    log(`  seeding ${fmtCount(target.receipts)} receipts …`);
    const seeded = await seedReceipts(store, target.receipts);

    // 8a. Single delete of a session with 10⁴ messages (If-Match + X-Expected-Generation).
    const phases: { label: string; prefix: string; run: (id: string) => Promise<number> | number }[] = [
      {
        label: '`store.deletion.deleteOne` (If-Match + expected generation)',
        prefix: 'ds',
        run: async (id) => {
          const tokens = await tokensOf(store, id);
          await settle();
          const start = nowNs();
          const response = await store.deletion.deleteOne(ADMIN_CTX, id, DeleteSessionQuerySchema.parse({}), tokens);
          const ms = msSince(start);
          if (response.deletedIds.length !== 1 || !response.receipt) throw new Error('deleteOne did not delete');
          return ms;
        },
      },
    ];
    if (rawDeleter) {
      phases.push({
        label: 'raw: DELETE messages + session in one transaction (better-sqlite3, search triggers fire)',
        prefix: 'dr',
        run: (id) => {
          const start = nowNs();
          rawDeleter.delete([id]);
          return msSince(start);
        },
      });
    }
    const singles = new Map<string, number[]>(phases.map((phase) => [phase.prefix, []]));
    log(`  building ${phases.length * target.deleteSessions} sessions of ${fmtCount(c.deleteMessages)} messages …`);
    const ids = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
    for (const phase of phases) {
      for (const [i, id] of ids(phase.prefix, target.deleteSessions).entries()) {
        await sessionWithMessages(store, factory, { id, profile: PROFILES[i % 3], count: c.deleteMessages });
      }
    }
    for (let i = 0; i < target.deleteSessions; i++) {
      const order = i % 2 === 0 ? phases : [...phases].reverse();
      for (const phase of order) singles.get(phase.prefix)!.push(await phase.run(`${phase.prefix}-${i}`));
    }
    // Without the search delete trigger (raw only, at the end of this part): what FTS5 costs in a delete.
    let noSearch: number[] = [];
    if (raw && rawDeleter) {
      const extra = ids('dn', Math.min(3, target.deleteSessions));
      for (const [i, id] of extra.entries()) {
        await sessionWithMessages(store, factory, { id, profile: PROFILES[i % 3], count: c.deleteMessages });
      }
      const { sql: trigger } = raw
        .prepare('select sql from sqlite_master where name = ?')
        .get(SEARCH_DELETE_TRIGGER) as {
        sql: string;
      };
      raw.exec(`drop trigger ${SEARCH_DELETE_TRIGGER}`);
      noSearch = extra.map((id) => {
        const start = nowNs();
        rawDeleter.delete([id]);
        return msSince(start);
      });
      raw.exec(trigger);
    }

    // 8b. Bulk delete: one call, sessions of a few messages each, over three profiles (a receipt per profile).
    const bulkSizes = [...new Set([c.bulkSessions, Math.max(1, Math.round(c.bulkSessions / 10))])];
    const bulk = new Map<string, number[]>();
    let bulkIndex = 0;
    const makeBulk = async (count: number) => {
      const items: { id: string; revision: number; generation: number }[] = [];
      for (let i = 0; i < count; i++) {
        const session = await store.sessions.create(ADMIN_CTX, {
          id: `b-${bulkIndex++}`,
          profile: PROFILES[i % 3],
          source: 'telegram',
          messages: factory.messages(c.bulkMessagesPerSession),
        });
        items.push({ id: session.id, revision: session.revision, generation: session.generation });
      }
      return items;
    };
    log(`  bulk deletes: ${target.bulkRounds} rounds of ${bulkSizes.join(' and ')} sessions …`);
    for (let round = 0; round < target.bulkRounds; round++) {
      for (const size of bulkSizes) {
        const items = await makeBulk(size);
        await settle();
        const start = nowNs();
        const response = await store.deletion.bulkDelete(ADMIN_CTX, { items, includeCompressionChain: false });
        const ms = msSince(start);
        if (response.deletedIds.length !== size || response.skipped.length > 0) {
          throw new Error(`bulk delete removed ${response.deletedIds.length} of ${size}`);
        }
        bulk.set(`store-${size}`, [...(bulk.get(`store-${size}`) ?? []), ms]);
        if (rawDeleter) {
          const rawItems = await makeBulk(size);
          await settle();
          const rawStart = nowNs();
          rawDeleter.delete(rawItems.map((item) => item.id));
          bulk.set(`raw-${size}`, [...(bulk.get(`raw-${size}`) ?? []), msSince(rawStart)]);
        }
      }
    }

    const addDelete = report.table(
      `Deletes (${target.dialect})`,
      ['operation', 'variant', 'median', 'sessions/s', 'runs', 'vs raw'],
      `Single delete: fresh sessions of ${fmtCount(c.deleteMessages)} messages (built with appends of 1000). Bulk ` +
        `delete: fresh sessions of ${c.bulkMessagesPerSession} messages each over three profiles (one receipt per ` +
        `profile), all ids in one \`store.deletion.bulkDelete\` call with their revision and generation.`,
    );
    const single = median(singles.get('ds')!);
    const rawSingle = rawDeleter ? median(singles.get('dr')!) : Number.NaN;
    addDelete([
      `one session, ${fmtCount(c.deleteMessages)} messages`,
      phases[0].label,
      fmtMs(single),
      '—',
      String(target.deleteSessions),
      rawDeleter ? fmtRatio(single / rawSingle) : '—',
    ]);
    if (rawDeleter) {
      addDelete(['', phases[1].label, fmtMs(rawSingle), '—', String(target.deleteSessions), '1.00×']);
      addDelete([
        '',
        'raw: the same, search delete trigger dropped (what FTS5 costs)',
        fmtMs(median(noSearch)),
        '—',
        String(noSearch.length),
        fmtRatio(median(noSearch) / rawSingle),
      ]);
    }
    for (const size of bulkSizes) {
      const ours = median(bulk.get(`store-${size}`)!);
      const rawMs = bulk.has(`raw-${size}`) ? median(bulk.get(`raw-${size}`)!) : Number.NaN;
      addDelete([
        `bulk, ${fmtCount(size)} sessions × ${c.bulkMessagesPerSession} messages`,
        '`store.deletion.bulkDelete`',
        fmtMs(ours),
        fmtPerSecond(size / (ours / 1000), 'sessions'),
        String(target.bulkRounds),
        rawDeleter ? fmtRatio(ours / rawMs) : '—',
      ]);
      if (rawDeleter) {
        addDelete([
          '',
          'raw: DELETE … IN (ids) in one transaction',
          fmtMs(rawMs),
          fmtPerSecond(size / (rawMs / 1000), 'sessions'),
          String(target.bulkRounds),
          '1.00×',
        ]);
      }
    }
    const bulkMs = median(bulk.get(`store-${c.bulkSessions}`)!);
    report.target({
      figure: `8a. delete of a session with ${fmtCount(c.deleteMessages)} messages, ${target.dialect}`,
      ours: `${fmtMs(single)} (median of ${target.deleteSessions})`,
      ceiling: rawDeleter ? fmtMs(rawSingle) : '—',
      ratio: rawDeleter ? fmtRatio(single / rawSingle) : '—',
      target: 'report only',
      met: null,
    });
    report.target({
      figure: `8b. bulk delete of ${fmtCount(c.bulkSessions)} sessions (${c.bulkMessagesPerSession} messages each), one call, ${target.dialect}`,
      ours: `${fmtMs(bulkMs)}, ${fmtPerSecond(c.bulkSessions / (bulkMs / 1000), 'sessions')}`,
      ceiling: rawDeleter ? fmtMs(median(bulk.get(`raw-${c.bulkSessions}`)!)) : '—',
      ratio: rawDeleter ? fmtRatio(bulkMs / median(bulk.get(`raw-${c.bulkSessions}`)!)) : '—',
      target: 'report only',
      met: null,
    });

    // 9. Receipt replay: every receipt, pages of 1000, through the store (and raw SQL on SQLite).
    const member: OperationContext = {
      principal: { ...ADMIN, id: 'bench-member', role: 'member', profiles: ['work'] },
      channel: 'api',
    };
    const replays: { label: string; run: () => Promise<{ receipts: number; ms: number; pages: number }> }[] = [
      {
        label: `\`store.receipts.list\`, admin, limit ${c.pageSize}`,
        run: () => replayAll((after) => store.receipts.list(ADMIN_CTX, { after, limit: c.pageSize })),
      },
      {
        label: `\`store.receipts.list\`, member of one profile (\`work\`), limit ${c.pageSize}`,
        run: () => replayAll((after) => store.receipts.list(member, { after, limit: c.pageSize })),
      },
    ];
    if (raw) {
      replays.push({
        label: `raw: prepared SELECT … where sequence > ? order by sequence limit ${c.pageSize + 1}, JSON columns parsed`,
        run: rawReplay(raw, c.pageSize),
      });
    }
    const rates = replays.map(() => [] as number[]);
    const counts = replays.map(() => 0);
    for (let round = 0; round < target.replayRounds; round++) {
      for (let k = 0; k < replays.length; k++) {
        const index = (k + round) % replays.length;
        const result = await replays[index].run();
        rates[index].push(result.receipts / (result.ms / 1000));
        counts[index] = result.receipts;
      }
      log(`  replay round ${round + 1}: ${rates.map((r) => fmtPerSecond(r[r.length - 1], 'receipts')).join(', ')}`);
    }
    const total = counts[0];
    // The seeded chain and the real receipts the store appended to it must verify as one chain.
    await settle();
    const verifyStart = nowNs();
    const verified = await store.receipts.verify(ADMIN_CTX);
    const verifyMs = msSince(verifyStart);
    if (!verified.ok || verified.checked !== total) {
      throw new Error(`the receipt chain does not verify: ${JSON.stringify(verified)}`);
    }
    const addReplay = report.table(
      `Receipt replay of ${fmtCount(total)} receipts (${target.dialect})`,
      ['replay', 'receipts', 'receipts/s (median round)', 'slowest round', 'vs raw'],
      receiptSetup(seeded, verifyMs, target.replayRounds),
    );
    const rawRate = raw ? median(rates[rates.length - 1]) : Number.NaN;
    for (const [i, replay] of replays.entries()) {
      const rate = median(rates[i]);
      addReplay([
        replay.label,
        fmtCount(counts[i]),
        fmtPerSecond(rate, 'receipts'),
        fmtPerSecond(Math.min(...rates[i]), 'receipts'),
        raw ? `${Math.round((rate / rawRate) * 100)} %` : '—',
      ]);
    }
    addReplay([
      '`store.receipts.verify` (the whole chain, every hash recomputed; once, after the replays)',
      fmtCount(verified.checked),
      fmtPerSecond(verified.checked / (verifyMs / 1000), 'receipts'),
      '—',
      '—',
    ]);
    const replayRate = median(rates[0]);
    report.target({
      figure: `9. receipt replay of ${fmtCount(total)} receipts (\`store.receipts.list\`, pages of ${c.pageSize}), ${target.dialect}`,
      ours: fmtPerSecond(replayRate, 'receipts'),
      ceiling: raw ? fmtPerSecond(rawRate, 'receipts') : '—',
      ratio: raw ? `${Math.round((replayRate / rawRate) * 100)} %` : '—',
      target: sqlite ? '≥ 20,000 receipts/s' : 'report only',
      met: sqlite ? replayRate >= 20_000 : null,
    });
    const bulkSmall = bulkSizes.length > 1 ? median(bulk.get(`store-${bulkSizes[1]}`)!) : undefined;
    report.note(
      `**Deletes (8${sqlite ? '' : `, ${target.dialect}`})**: a session with ${fmtCount(c.deleteMessages)} messages ` +
        `goes in ${fmtMs(single)}${rawDeleter ? ` (raw DELETE of the same rows: ${fmtMs(rawSingle)}, ${fmtRatio(single / rawSingle)}; without the search delete trigger ${fmtMs(median(noSearch))} — removing each message’s postings from both FTS5 indexes is most of a delete)` : ''}. ` +
        `A bulk delete of ${fmtCount(c.bulkSessions)} sessions takes ${fmtMs(bulkMs)} ` +
        `(${fmtPerSecond(c.bulkSessions / (bulkMs / 1000), 'sessions')})` +
        (bulkSmall !== undefined
          ? `, of ${fmtCount(bulkSizes[1])} sessions ${fmtMs(bulkSmall)}` +
            (bulkSizes[1] === 50 ? ' (Hermes’ Python store, docs/performance-targets.md: 13–23 ms for 50)' : '')
          : '') +
        `; each writes one receipt per profile into a chain already ${fmtCount(target.receipts)} long.`,
    );
    report.note(
      `**Receipt replay (9${sqlite ? '' : `, ${target.dialect}`})**: ${fmtCount(total)} receipts replayed in pages ` +
        `of ${c.pageSize} at ${fmtPerSecond(replayRate, 'receipts')} through the store as an admin ` +
        `(${fmtPerSecond(median(rates[1]), 'receipts')} as a member of one profile, who reads ` +
        `${Math.round((counts[1] / total) * 100)} % of them)` +
        (raw ? `; the raw SELECT with the JSON columns parsed reaches ${fmtPerSecond(rawRate, 'receipts')}` : '') +
        `. Verifying the whole chain (sha256 over each receipt’s canonical JSON) runs at ` +
        `${fmtPerSecond(verified.checked / (verifyMs / 1000), 'receipts')}.`,
    );
  } finally {
    raw?.close();
    await file.close();
  }
}

function receiptSetup(seeded: SeededReceipts, verifyMs: number, rounds: number): string {
  return (
    `${fmtCount(seeded.count)} receipts seeded in bulk (${(seeded.ms / 1000).toFixed(1)} s; ${seeded.identities.toFixed(1)} ` +
    `removed sessions and ${(seeded.bytes / 1024).toFixed(1)} KB of JSON per receipt on average), plus the real ones ` +
    `of the deletes above, which the store’s writer appended to the same chain; the whole chain verified by the ` +
    `store in ${(verifyMs / 1000).toFixed(1)} s. ${rounds} rounds, the variants rotated each round; every replay ` +
    'reads from cursor 0 to the end.'
  );
}

export async function deletionSqlite(report: Report, config: BenchConfig): Promise<void> {
  report.section(
    'Deletion and receipt replay (SQLite)',
    'One store file; 10⁵ receipts are seeded first (see below), then every delete of this part runs through the ' +
      'store and appends its receipts to that chain. Each store call is timed alone, in turn with a raw ceiling on ' +
      'a fresh session of the same shape in the same file (better-sqlite3: the DELETE statements only — no ' +
      'receipt, no fencing or busy checks, no orphaning). Receipts are seeded with the store’s hash chain but ' +
      'without its writer, which is not exposed: every row’s hash is the exported `receiptHash` of the receipt ' +
      'document, exactly as the writer computes it — and at the end of the part `store.receipts.verify` must ' +
      'accept the whole chain, the seeded rows and the real receipts the deletes appended to them, or the run fails.',
  );
  await deletionBench(report, config, {
    dialect: 'SQLite',
    deleteSessions: config.deletion.deleteSessions,
    bulkRounds: config.deletion.bulkRounds,
    receipts: config.deletion.receipts,
    replayRounds: config.deletion.replayRounds,
    open: () => openSqliteStore('deletion'),
    raw: (path) => openRawSqlite(path),
  });
}

export async function deletionPg(report: Report, config: BenchConfig, open: () => Promise<BenchStore>): Promise<void> {
  report.section(
    'Deletion and receipt replay (PostgreSQL)',
    'As on SQLite, without raw ceilings: receipts seeded in bulk with the store’s hash chain (`overriding system ' +
      'value`, then the identity moved past them), deletes and replay through the store, and the whole chain ' +
      'verified by the store at the end.',
  );
  const c = config.pg.deletion;
  await deletionBench(report, config, {
    dialect: 'PostgreSQL',
    deleteSessions: c.deleteSessions,
    bulkRounds: c.bulkRounds,
    receipts: c.receipts,
    replayRounds: c.replayRounds,
    open,
  });
}
