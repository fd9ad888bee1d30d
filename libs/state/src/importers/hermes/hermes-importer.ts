import type { ImportProgress, ImportReport, OnConflict, Principal } from '@statehouse/contracts';
import { type BetweenChunks, CHUNK_BUDGET_MS, ChunkSizer, reportChunk } from '../../db/chunks.js';
import type { Db } from '../../db/database.js';
import { isUniqueViolation, type SqlDialect } from '../../db/sql-dialect.js';
import type { Tx, UnitOfWork } from '../../db/unit-of-work.js';
import type { DeletionNotice } from '../../domain/deletion-notice.js';
import { ImportInputError } from '../../domain/import-errors.js';
import { ImportReportBuilder, ReportDelta } from '../../domain/import-report.js';
import { SessionRepository } from '../../repositories/session.repository.js';
import type { DeletionEngine } from '../../services/deletion.engine.js';
import type { Clock } from '../../shared/clock.js';
import { DomainError, StoreUnavailableError } from '../../shared/errors.js';
import { type LineageNode, type LineagePlan, planLineage } from './hermes-lineage.js';
import {
  type MappedMessage,
  type MappedSession,
  mapSessionId,
  mapSource,
  markersOf,
  resolveProfile,
  SessionMapper,
} from './hermes-mapper.js';
import { HermesReader, type HermesRow, type HermesSessionRow } from './hermes-reader.js';
import { HermesRoutesWriter } from './hermes-routes.writer.js';
import { RunMemory } from './hermes-run-memory.js';
import { HermesRuntimeWriter } from './hermes-runtime.writer.js';
import { ownedFile, type Snapshot, snapshotFile } from './hermes-snapshot.js';
import type { PendingUpdate } from './hermes-update.writer.js';
import { counter, epochMs, jsonObject, nonEmpty, Repairs, text } from './hermes-values.js';
import { remainingOf, type WriteOptions } from './hermes-write-parts.js';
import { HermesWriter } from './hermes-writer.js';

export const DEFAULT_PROFILE = 'default';

/**
 * How long one unit of work may hold the write lock (SQLite: one writer for every process): the
 * budget of every long operation's chunks (db/chunks.ts). Units are sized a little under it from
 * the time of the last ones, and a whole unit (a batch of sessions, a chunk of one session) cannot
 * stop half-way as a time-boxed chunk does: aimed at 40 ms, the slowest held it 84 ms (a session of
 * 10⁵ messages, on an idle machine).
 */
export const BATCH_TARGET_MS = CHUNK_BUDGET_MS;
const FIRST_BATCH_MESSAGES = 300;
const MAX_BATCH_MESSAGES = 5000;
const MIN_BATCH_MESSAGES = 50;
const MAX_BATCH_SESSIONS = 200;
const ROUTES_PER_UNIT = 100;
const GENERATIONS_PER_UNIT = 200;
const RUNTIME_ROWS_PER_UNIT = 100;

/**
 * Hermes' runtime tables that have no place here, and why (the report says so when they hold rows;
 * docs/migrating-from-hermes.md).
 */
const NOT_IMPORTED: [table: string, why: string][] = [
  [
    'gateway_heartbeats',
    'liveness of Hermes processes; a Statehouse gateway registers itself with its first heartbeat (docs/domain.md §10.1), and imported sessions are owned by no gateway',
  ],
  ['compression_locks', 'locks held by Hermes processes; compressions here are one transaction each'],
  ['session_turn_leases', 'turn leases of Hermes processes; a turn here is leased when it begins'],
  ['session_deletion_receipts', "Hermes' own deletion history; Statehouse receipts record deletions made here"],
];
/**
 * A session with more messages than this is written in chunks (a hidden row until its last chunk
 * commits) instead of in one unit of work. Writing a message costs ≈ 35–70 µs on SQLite (its
 * postings, its ledger entry), so a unit of this many stays near BATCH_TARGET_MS; the chunks
 * themselves are sized from measured time like the batches.
 */
export const SPLIT_SESSIONS_ABOVE = 1000;
/**
 * Messages read and mapped between two turns of the event loop. Reading and mapping one costs
 * ≈ 15–60 µs (its fingerprint's hash, its JSON; the more on a loaded machine), so a page stays
 * near 5–15 ms, and a page's raw rows are all the importer holds of the source at a time.
 */
export const READ_PAGE_MESSAGES = 250;

export interface HermesImportOptions {
  /** The Hermes file. It is copied (with its -wal) into a private directory and never opened itself. */
  path: string;
  /** Set when `path` is already a private file of this process (an upload) in this directory. */
  ownedDir?: string;
  /** Profile for sessions without profile_name or origin.profile (default `default`). */
  profile?: string;
  onConflict: OnConflict;
  /**
   * Decide and count every unit of work as a write would, from reads only: the same report, nothing
   * written, no write lock taken (SQLite) however large a session is.
   */
  dryRun: boolean;
  jobId: string | null;
  actor: Principal;
  signal?: AbortSignal;
  /** After each committed unit of work (progress bars, events). */
  onProgress?(progress: ImportProgress, report: ImportReport): void;
  /** Inside each unit of work, before it commits: progress rows and leases move with the data. */
  persist?(
    tx: Tx,
    progress: ImportProgress,
    report: ImportReport,
    conversations: { id: string; title: string | null }[],
  ): Promise<void>;
  /** Target write-lock time per unit of work (default BATCH_TARGET_MS). */
  batchTargetMs?: number;
  /**
   * Sessions with more messages than this are written in chunks (default SPLIT_SESSIONS_ABOVE).
   * Dry runs decide every session in one unit (they write nothing, so they hold no lock a chunk would
   * bound; their reading and mapping go in pages like a real run's).
   */
  splitSessionsAbove?: number;
  /**
   * Messages read and mapped between two turns of the event loop (default READ_PAGE_MESSAGES;
   * tests force small pages).
   */
  readPageMessages?: number;
  /** Upper bound of a chunk of a session written in chunks, in messages (tests; default: sized by time). */
  maxSessionChunk?: number;
  /**
   * After each committed chunk of a session written in chunks, except its last (tests: stop there,
   * look, or fail as a crash would). The import waits for it.
   */
  betweenSessionChunks?(info: { sessionId: string; messagesWritten: number; messagesTotal: number }): Promise<void>;
}

export interface HermesImportResult {
  report: ImportReport;
  conversations: { id: string; title: string | null }[];
  progress: ImportProgress;
  /** Longest write transaction of the run, in ms (the bound the batching aims at). */
  longestUnitMs: number;
  /**
   * Most messages one write transaction wrote: a whole session's at most, or a chunk's when the
   * session was written in chunks (a figure that does not depend on the machine's speed).
   */
  longestUnitMessages: number;
  /** Median and 95th percentile of the write transactions' durations, in ms. */
  unitP50Ms: number;
  unitP95Ms: number;
  units: number;
}

export class ImportAbortedError extends DomainError {
  constructor() {
    super('store_unavailable', 'the import was interrupted; import the same file again to resume');
  }
}

interface PlannedSession {
  raw: unknown;
  id: string;
  messages: number;
}

/** A unit of work's writes: what the run's progress becomes once it commits. */
type UnitWork = (tx: Tx, delta: ReportDelta) => Promise<ImportProgress>;

/** One run's state, shared by its phases (`HermesImporter.run`). */
interface ImportRun {
  options: HermesImportOptions;
  builder: ImportReportBuilder;
  progress: ImportProgress;
  reader: HermesReader;
  planned: Awaited<ReturnType<HermesImporter['plan']>>;
  memory: RunMemory;
  /** Sessions with more messages than this are written in chunks. */
  splitAbove: number;
  /** The write options of a unit starting now. */
  writeOptions: () => WriteOptions;
  /** Runs one unit of work (`HermesImporter.unit`); returns how long it held the transaction (ms). */
  unit: (work: UnitWork) => Promise<number>;
  stats: { longestUnitMs: number; longestUnitMessages: number; units: number };
  unitTimes: number[];
}

/**
 * The Hermes import engine: snapshot → probe → plan lineage → batches of whole sessions, each one
 * unit of work through the repositories every write uses (a session is never half-written; a
 * killed run resumes from the ledger) → routes → conversation generations.
 */
export class HermesImporter {
  private readonly writer: HermesWriter;
  private readonly routesWriter: HermesRoutesWriter;
  private readonly runtimeWriter: HermesRuntimeWriter;
  private readonly sessions: SessionRepository;

  constructor(
    private readonly db: Db,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    dialect: SqlDialect,
    private readonly deletion: DeletionEngine,
    /**
     * The pause between two chunks of one session (the store's: on a file it merges search-index
     * segments meanwhile, so ~100 chunks in a row never reach a crisis merge inside one of them).
     */
    private readonly betweenChunks: BetweenChunks = yieldToEventLoop,
  ) {
    this.writer = new HermesWriter(dialect, deletion);
    this.routesWriter = new HermesRoutesWriter(dialect);
    this.runtimeWriter = new HermesRuntimeWriter(dialect);
    this.sessions = new SessionRepository(dialect);
  }

  async run(options: HermesImportOptions): Promise<HermesImportResult> {
    const builder = new ImportReportBuilder();
    const progress: ImportProgress = {
      phase: 'reading',
      sessionsTotal: 0,
      sessionsDone: 0,
      messagesTotal: 0,
      messagesDone: 0,
    };
    options.onProgress?.({ ...progress }, builder.report());
    const snapshot: Snapshot = options.ownedDir
      ? ownedFile(options.path, options.ownedDir)
      : await snapshotFile(options.path);
    let reader: HermesReader | undefined;
    // The sessions a run replaces reach deletion observers in one call, when the run ends.
    const notice = this.deletion.notice();
    try {
      reader = await HermesReader.open(snapshot.path);
      for (const note of reader.schema.notes) builder.warn(`source: ${note}`);
      const run = await this.start(reader, options, builder, progress, notice);
      await this.sessionsPhase(run);
      await this.routesPhase(run);
      await this.generationsPhase(run);
      await this.runtimePhase(run);
      return this.finish(run);
    } finally {
      notice.dispatch();
      reader?.close();
      await snapshot.release();
    }
  }

  /** Reports the run's next phase. */
  private enter(run: Pick<ImportRun, 'options' | 'builder' | 'progress'>, phase: ImportProgress['phase']): void {
    run.progress.phase = phase;
    run.options.onProgress?.({ ...run.progress }, run.builder.report());
  }

  /** The planning phase (lineage of the whole file), and what every later phase of the run shares. */
  private async start(
    reader: HermesReader,
    options: HermesImportOptions,
    builder: ImportReportBuilder,
    progress: ImportProgress,
    notice: DeletionNotice,
  ): Promise<ImportRun> {
    this.enter({ options, builder, progress }, 'planning');
    const fallbackProfile = options.profile ?? DEFAULT_PROFILE;
    const planned = await this.plan(reader, fallbackProfile, builder);
    progress.sessionsTotal = planned.order.length;
    progress.messagesTotal = planned.order.reduce((sum, session) => sum + session.messages, 0);
    const splitAbove = options.splitSessionsAbove ?? SPLIT_SESSIONS_ABOVE;
    const run: ImportRun = {
      options,
      builder,
      progress,
      reader,
      planned,
      memory: new RunMemory((id) => plannedTip(id, planned.lineage, planned.nodes)),
      splitAbove,
      writeOptions: () => ({
        onConflict: options.onConflict,
        jobId: options.jobId,
        actor: options.actor,
        now: this.clock.now(),
        notice,
        // Old rows too many for one unit are purged in chunks first (a dry run purges nothing).
        ...(options.dryRun ? { dryRun: true } : { purgeLaterAbove: splitAbove }),
      }),
      unit: (work) => this.unit(run, work),
      stats: { longestUnitMs: 0, longestUnitMessages: 0, units: 0 },
      unitTimes: [],
    };
    return run;
  }

  /**
   * One unit of work of the run: its writes, the job's progress persisted in the same transaction,
   * then the report and the figures moved on. Retried when another writer took an id or a title
   * between its reads and its writes. Returns how long it held the transaction (ms).
   */
  private async unit(run: ImportRun, work: UnitWork): Promise<number> {
    const { options, builder, progress, stats } = run;
    for (let attempt = 1; ; attempt++) {
      const delta = new ReportDelta();
      const started = performance.now();
      try {
        const next = await this.transaction(options.dryRun, async (tx) => {
          const after = await work(tx, delta);
          if (!options.dryRun && options.persist) {
            await options.persist(tx, after, builder.report(delta), builder.conversationsWith(delta));
          }
          return after;
        });
        const elapsed = performance.now() - started;
        if (!options.dryRun) {
          reportChunk({
            operation: 'import',
            heldMs: elapsed,
            rows: next.messagesDone - progress.messagesDone,
            steps: 1,
            lastStepStartMs: 0,
          });
        }
        stats.longestUnitMs = Math.max(stats.longestUnitMs, elapsed);
        if (!options.dryRun) {
          stats.longestUnitMessages = Math.max(stats.longestUnitMessages, delta.messages.created);
        }
        stats.units++;
        run.unitTimes.push(elapsed);
        builder.merge(delta);
        Object.assign(progress, next);
        if (options.dryRun && options.persist) {
          await this.uow.run(null, (tx) =>
            options.persist!(tx, { ...progress }, builder.report(), builder.conversationsWith()),
          );
        }
        options.onProgress?.({ ...progress }, builder.report());
        return elapsed;
      } catch (error) {
        // Another writer took an id or a title between our reads and our writes: decide again.
        if (attempt < 3 && isUniqueViolation(error)) continue;
        throw error;
      }
    }
  }

  /**
   * The sessions, in planned order: batches of whole sessions sized to the target lock time, and
   * each session too big for one unit in chunks of its own (`writeInChunks`).
   */
  private async sessionsPhase(run: ImportRun): Promise<void> {
    const { options, planned, reader, progress } = run;
    this.enter(run, 'sessions');
    const target = options.batchTargetMs ?? BATCH_TARGET_MS;
    const split = (session: PlannedSession) => !options.dryRun && session.messages > run.splitAbove;
    const sizer = new ChunkSizer(FIRST_BATCH_MESSAGES, MIN_BATCH_MESSAGES, MAX_BATCH_MESSAGES, target);
    let budget = FIRST_BATCH_MESSAGES;
    let index = 0;
    while (index < planned.order.length) {
      if (options.signal?.aborted) throw new ImportAbortedError();
      if (split(planned.order[index])) {
        const [session] = await this.read(reader, [planned.order[index]], planned, run.builder, options);
        if (session) await this.writeInChunks(session, run, sizer);
        else progress.sessionsDone++;
        index++;
        await yieldToEventLoop();
        continue;
      }
      let end = index;
      let messages = 0;
      while (
        end < planned.order.length &&
        end - index < MAX_BATCH_SESSIONS &&
        (end === index || (messages + planned.order[end].messages <= budget && !split(planned.order[end])))
      ) {
        messages += planned.order[end].messages;
        end++;
      }
      const elapsed = await this.writeBatch(run, planned.order.slice(index, end), messages);
      // Hold each unit near the target lock time: scale the next one by how far this one was off
      // (bounded steps, aiming a little under the target).
      const scale = Math.min(1.5, Math.max(0.5, (0.9 * target) / Math.max(elapsed, 0.1)));
      budget = Math.min(MAX_BATCH_MESSAGES, Math.max(MIN_BATCH_MESSAGES, Math.floor(budget * scale)));
      index = end;
      // The store's pause, as between a huge session's chunks: index segments merged (unmerged,
      // the segments of a long chunked write pile up to a crisis merge inside one of its chunks,
      // search/fts-merge.test.ts) and the lock left free for writers of other processes
      // (hermes-import-pause.test.ts).
      await this.betweenChunks(elapsed);
    }
  }

  /**
   * One batch of whole sessions in one unit, then those whose id old rows still hold, once those
   * are purged. Returns how long the batch's unit held the transaction (ms).
   */
  private async writeBatch(run: ImportRun, batch: readonly PlannedSession[], messages: number): Promise<number> {
    const { options, progress, memory } = run;
    const mapped = await this.read(run.reader, batch, run.planned, run.builder, options);
    // A dry run decides a huge session in one read-only unit: its ledger is read and compared
    // ahead, in pages, as a real run's first chunk has it (inside, that was one slice of ≈ 1.4 s
    // for 10⁵ entries); the unit checks it still holds.
    const largest = mapped.reduce<MappedSession | undefined>(
      (max, session) => (max && max.messages.length >= session.messages.length ? max : session),
      undefined,
    );
    const knownLedger =
      options.dryRun && largest && largest.messages.length > run.splitAbove
        ? await this.writer.ledgerComparer.readLedgerAhead(this.db, largest, yieldToEventLoop)
        : undefined;
    let blocked: { session: MappedSession; purge: string[] }[] = [];
    const elapsed = await run.unit(async (tx, delta) => {
      blocked = (await this.writer.writeSessions(tx, mapped, { ...run.writeOptions(), knownLedger }, memory, delta))
        .blocked;
      return {
        ...progress,
        sessionsDone: progress.sessionsDone + batch.length,
        messagesDone: progress.messagesDone + messages,
      };
    });
    // Sessions whose id old rows still hold: purge those in chunks, then write them again.
    for (let attempt = 1; blocked.length > 0; attempt++) {
      if (attempt > 3) throw new StoreUnavailableError('old rows keep holding imported ids; retry');
      await this.purge(blocked.flatMap((b) => b.purge));
      const again = blocked.map((b) => b.session);
      await run.unit(async (tx, delta) => {
        blocked = (await this.writer.writeSessions(tx, again, run.writeOptions(), memory, delta)).blocked;
        return { ...progress };
      });
    }
    return elapsed;
  }

  /** The gateway routes (session keys to sessions), a unit per ROUTES_PER_UNIT. */
  private async routesPhase(run: ImportRun): Promise<void> {
    const { options, progress } = run;
    this.enter(run, 'routes');
    const routes = run.reader.routingEntries();
    for (let i = 0; i < routes.length; i += ROUTES_PER_UNIT) {
      if (options.signal?.aborted) throw new ImportAbortedError();
      const part = routes.slice(i, i + ROUTES_PER_UNIT);
      await run.unit(async (tx, delta) => {
        await this.routesWriter.writeRoutes(tx, part, run.writeOptions(), run.memory, delta);
        return { ...progress };
      });
      await yieldToEventLoop();
    }
  }

  /** Conversation generations, a unit per GENERATIONS_PER_UNIT. */
  private async generationsPhase(run: ImportRun): Promise<void> {
    const { progress } = run;
    this.enter(run, 'generations');
    const generations = this.generations(run.reader, run.planned.impliedGenerations);
    for (let i = 0; i < generations.length; i += GENERATIONS_PER_UNIT) {
      const part = generations.slice(i, i + GENERATIONS_PER_UNIT);
      await run.unit(async (tx) => {
        await this.routesWriter.writeGenerations(tx, part, run.writeOptions());
        return { ...progress };
      });
      await yieldToEventLoop();
    }
  }

  /** The runtime state (delegations, delivery obligations), and a warning per table not imported. */
  private async runtimePhase(run: ImportRun): Promise<void> {
    const { options, progress, reader, builder } = run;
    this.enter(run, 'runtime');
    const delegations = readRuntime(() => reader.delegations(), 'async_delegations', builder);
    for (let i = 0; i < delegations.length; i += RUNTIME_ROWS_PER_UNIT) {
      if (options.signal?.aborted) throw new ImportAbortedError();
      const part = delegations.slice(i, i + RUNTIME_ROWS_PER_UNIT);
      await run.unit(async (tx, delta) => {
        await this.runtimeWriter.writeDelegations(tx, part, run.writeOptions(), run.memory, delta);
        return { ...progress };
      });
      await yieldToEventLoop();
    }
    const obligations = readRuntime(() => reader.obligations(), 'delivery_obligations', builder);
    const sessionForKey = obligations.length > 0 ? sessionsByKey(reader, run.planned.nodes) : new Map<string, string>();
    for (let i = 0; i < obligations.length; i += RUNTIME_ROWS_PER_UNIT) {
      if (options.signal?.aborted) throw new ImportAbortedError();
      const part = obligations.slice(i, i + RUNTIME_ROWS_PER_UNIT);
      await run.unit(async (tx, delta) => {
        await this.runtimeWriter.writeObligations(tx, part, sessionForKey, run.writeOptions(), run.memory, delta);
        return { ...progress };
      });
      await yieldToEventLoop();
    }
    for (const [table, why] of NOT_IMPORTED) {
      const rows = readRuntime(() => [reader.rowCount(table)], table, builder)[0] ?? 0;
      if (rows > 0) builder.warn(`${table}: ${rows} row(s) not imported — ${why}`);
    }
  }

  /** The run's result: its report, progress and unit figures. */
  private finish(run: ImportRun): HermesImportResult {
    const { progress, unitTimes } = run;
    progress.phase = 'done';
    const report = run.builder.report();
    run.options.onProgress?.({ ...progress }, report);
    unitTimes.sort((a, b) => a - b);
    const at = (q: number) =>
      unitTimes.length ? unitTimes[Math.min(unitTimes.length - 1, Math.floor(unitTimes.length * q))] : 0;
    return {
      report,
      conversations: run.builder.conversationsWith(),
      progress: { ...progress },
      ...run.stats,
      unitP50Ms: at(0.5),
      unitP95Ms: at(0.95),
    };
  }

  /**
   * One session too big for a unit of work, in several. A new one: the first writes its row hidden
   * with the first messages (and the ledger entry `importing`), the middle ones append messages,
   * the last appends the rest and makes it visible with its counters and rollups. One imported
   * before with more new messages than a unit holds: every chunk appends visible messages, counted
   * as appends are, and the last moves the rest of the update (fields, usage, ledger snapshot).
   * Old rows holding the id (a replaced conflict, a half-imported session whose source changed)
   * are purged in chunks first, then the session starts again. A run interrupted between two
   * chunks resumes after the messages the ledger holds. Chunks are sized from measured time.
   */
  private async writeInChunks(session: MappedSession, run: ImportRun, sizer: ChunkSizer): Promise<void> {
    const { unit, writeOptions, memory, progress, options } = run;
    const total = session.messages.length;
    await this.writer.parts.prepareTotals(session, yieldToEventLoop);
    const chunkSize = () => Math.min(sizer.size, options.maxSessionChunk ?? Number.POSITIVE_INFINITY);
    // The first unit decides (from the store, inside its transaction) where the session starts.
    let pending: MappedMessage[] = [];
    let update: PendingUpdate | undefined;
    let purge: string[] | undefined;
    let rows = 0;
    let elapsed = 0;
    for (let attempt = 1; ; attempt++) {
      // The session's ledger (10⁵ entries for a session of 10⁵ messages imported before) is read
      // here, holding no lock; the unit checks it still holds and reads it again only if not.
      const knownLedger = await this.writer.ledgerComparer.readLedgerAhead(this.db, session, yieldToEventLoop);
      const firstOptions = (): WriteOptions => ({ ...writeOptions(), knownLedger });
      elapsed = await unit(async (tx, delta) => {
        pending = [];
        update = undefined;
        purge = undefined;
        const start = await this.writer.chunked.splitStart(tx, session, firstOptions());
        if (start.kind === 'blocked') {
          purge = start.purge;
          return { ...progress };
        }
        const remaining = start.kind === 'resume' ? remainingOf(session, start.done) : session.messages;
        const size = chunkSize();
        rows = remaining.length;
        if (start.kind === 'whole' || (start.kind === 'fresh' && remaining.length <= size)) {
          // Imported before, a conflict, or small enough after all: the whole-session rules, at most
          // `size` messages of it in this unit.
          const outcome = await this.writer.writeSessions(
            tx,
            [session],
            { ...firstOptions(), chunkMessages: size },
            memory,
            delta,
          );
          if (outcome.blocked.length > 0) {
            purge = outcome.blocked[0].purge;
            return { ...progress };
          }
          if (outcome.pending) {
            update = outcome.pending;
            pending = update.fresh.slice(update.written);
            rows = update.written;
            return { ...progress, messagesDone: progress.messagesDone + total - pending.length };
          }
        } else if (remaining.length <= size) {
          await this.writer.chunked.finishSplit(tx, session, remaining, writeOptions(), memory, delta);
        } else {
          const first = remaining.slice(0, size);
          if (start.kind === 'fresh')
            await this.writer.chunked.openSplit(tx, session, first, writeOptions(), memory, delta);
          else await this.writer.chunked.appendSplit(tx, session, first, delta);
          pending = remaining.slice(size);
          rows = first.length;
          return { ...progress, messagesDone: progress.messagesDone + total - pending.length };
        }
        return { ...progress, sessionsDone: progress.sessionsDone + 1, messagesDone: progress.messagesDone + total };
      });
      if (purge === undefined) break;
      if (attempt > 3) throw new StoreUnavailableError(`old rows keep holding session ${session.id}; retry`);
      // Old rows hold the id: purged in chunks, then the session starts again from the store's state.
      await this.purge(purge);
      if (options.signal?.aborted) throw new ImportAbortedError();
    }
    sizer.record(elapsed, rows);
    const moving = update;
    // An update's rewinds and compactions of imported messages: a chunk per unit, all before its
    // last unit (which then has only its new messages and the session's fields to write).
    while (moving && moving.movedDone < moving.moved.length) {
      if (options.signal?.aborted) throw new ImportAbortedError();
      await this.betweenChunks(elapsed);
      const count = chunkSize();
      let applied = 0;
      elapsed = await unit(async (tx) => {
        applied = await this.writer.updates.continueMoves(tx, moving, count);
        return { ...progress };
      });
      sizer.record(elapsed, applied);
    }
    // An update always ends with its last unit, even with no new message left to write.
    for (let offset = 0, finished = update === undefined; offset < pending.length || !finished; ) {
      await options.betweenSessionChunks?.({
        sessionId: session.id,
        messagesWritten: total - pending.length + offset,
        messagesTotal: total,
      });
      if (options.signal?.aborted) throw new ImportAbortedError();
      await this.betweenChunks(elapsed);
      const part = pending.slice(offset, offset + chunkSize());
      const last = offset + part.length === pending.length;
      if (last) finished = true;
      const updating = update;
      elapsed = await unit(async (tx, delta) => {
        if (!last) {
          if (updating) await this.writer.updates.continueUpdate(tx, updating, part, delta);
          else await this.writer.chunked.appendSplit(tx, session, part, delta);
          return { ...progress, messagesDone: progress.messagesDone + part.length };
        }
        if (updating) await this.writer.updates.finishUpdate(tx, updating, part, writeOptions(), memory, delta);
        else await this.writer.chunked.finishSplit(tx, session, part, writeOptions(), memory, delta);
        return {
          ...progress,
          sessionsDone: progress.sessionsDone + 1,
          messagesDone: progress.messagesDone + part.length,
        };
      });
      sizer.record(elapsed, part.length);
      offset += part.length;
    }
  }

  /** Removes old rows hidden for deletion, a time-boxed chunk per transaction (the deletion purge's). */
  private async purge(ids: readonly string[]): Promise<void> {
    for (const id of new Set(ids)) await this.deletion.purgeNow(this.uow, id, this.betweenChunks);
  }
  /** A dry run's units only read (the writer writes nothing with `dryRun`): no transaction, no write lock. */
  private transaction<T>(dryRun: boolean, work: (tx: Tx) => Promise<T>): Promise<T> {
    return dryRun ? this.uow.readOnly(work) : this.uow.run(null, work);
  }

  /**
   * Reads every session's planning columns, maps ids and profiles, and plans the lineage of the
   * whole file (parents outside it are looked up here).
   */
  private async plan(reader: HermesReader, fallbackProfile: string, builder: ImportReportBuilder) {
    let rows: HermesSessionRow[];
    let counts: ReadonlyMap<string, number>;
    try {
      rows = reader.planningRows();
      counts = reader.messageCounts();
    } catch (error) {
      throw ImportInputError.fromSqlite(error);
    }
    const now = this.clock.now();
    const nodes: LineageNode[] = [];
    const bySourceKey = new Map<string, PlannedSession>();
    const profileNotes = new Map<string, number>();
    const seen = new Set<string>();
    for (const row of rows) {
      const repairs = new Repairs();
      const rawKey = text(row.id, repairs) ?? '';
      const mapped = mapSessionId(row.id);
      if (seen.has(mapped.id)) {
        builder.warn(`session ${rawKey}: its id maps to ${mapped.id}, which another session of the file has; skipped`);
        continue;
      }
      seen.add(mapped.id);
      if (mapped.changed) builder.warn(`session ${rawKey}: id is not valid here; imported as ${mapped.id}`);
      const { profile, note } = resolveProfile(row, fallbackProfile);
      if (note) profileNotes.set(note, (profileNotes.get(note) ?? 0) + 1);
      const startedAt = epochMs(row.started_at, 'started_at', repairs, now) ?? 0;
      const parentRaw = nonEmpty(row.parent_session_id, repairs);
      nodes.push({
        id: mapped.id,
        parentId: parentRaw === null ? null : mapSessionId(parentRaw).id,
        profile,
        source: mapSource(row.source),
        createdSource: mapSource(row.created_source ?? row.source),
        startedAt,
        endedAt: epochMs(row.ended_at, 'ended_at', repairs, now),
        endReason: nonEmpty(row.end_reason, repairs),
        sessionKey: nonEmpty(row.session_key, repairs),
        markers: markersOf(row.model_config),
      });
      bySourceKey.set(mapped.id, { raw: row.id, id: mapped.id, messages: counts.get(String(row.id)) ?? 0 });
    }
    for (const [note, n] of profileNotes) builder.warn(`${note}${n > 1 ? ` (${n} sessions)` : ''}`);

    // Parents that are not in this file may be here already (an earlier import, a pruned source).
    const missingParents = [
      ...new Set(nodes.flatMap((node) => (node.parentId && !bySourceKey.has(node.parentId) ? [node.parentId] : []))),
    ];
    const existing = new Map<string, LineageNode>();
    for (const row of await this.sessions.listByIds(this.db, missingParents)) {
      existing.set(row.id, {
        id: row.id,
        parentId: row.parent_session_id,
        profile: row.profile,
        source: row.source,
        createdSource: row.created_source,
        startedAt: Number(row.started_at),
        endedAt: row.ended_at === null ? null : Number(row.ended_at),
        endReason: row.end_reason,
        sessionKey: row.session_key,
        markers: {},
        delegated: Number(row.delegated) === 1,
      });
    }
    const lineage = planLineage(nodes, existing);
    for (const warning of lineage.warnings) builder.warn(warning);
    const profiles = new Map(nodes.map((node) => [node.id, node.profile]));
    return {
      nodes: new Map(nodes.map((node) => [node.id, node])),
      order: lineage.order.map((id) => bySourceKey.get(id)!),
      lineage,
      profiles,
      impliedGenerations: lineage.impliedGenerations,
    };
  }

  /**
   * Reads and maps one batch. A batch the file cannot give whole (a corrupt page) is read session
   * by session; what cannot be read is skipped with a warning — never half-imported. Messages are
   * read and mapped a page at a time with the event loop let run between pages: a session of 10⁵
   * messages took one synchronous slice of 3–6 s to read and map whole
   * (docs/decisions/0021-import-preparation-off-the-event-loop.md).
   */
  private async read(
    reader: HermesReader,
    batch: readonly PlannedSession[],
    planned: Awaited<ReturnType<HermesImporter['plan']>>,
    builder: ImportReportBuilder,
    options: Pick<HermesImportOptions, 'readPageMessages' | 'signal'>,
  ): Promise<MappedSession[]> {
    const pageSize = Math.max(1, options.readPageMessages ?? READ_PAGE_MESSAGES);
    const load = async (part: readonly PlannedSession[]): Promise<MappedSession[]> => {
      const raws = part.map((session) => session.raw);
      const rows = fromFile(() => reader.sessions(raws));
      const usage = fromFile(() => reader.usage(raws));
      const now = this.clock.now();
      const rowsById = new Map(rows.map((row) => [mapSessionId(row.id).id, row]));
      const mapping = part.flatMap((session) => {
        const row = rowsById.get(session.id);
        return row ? [{ session, mapper: new SessionMapper(row, reader.schema, now) }] : [];
      });
      // The messages of a session go to its mapper (two sessions of the file may share a key).
      const byKey = new Map<string, SessionMapper[]>();
      for (const { session, mapper } of mapping) {
        const key = String(session.raw);
        byKey.set(key, [...(byKey.get(key) ?? []), mapper]);
      }
      const pages = reader.messagePages(raws, pageSize);
      try {
        for (;;) {
          const next = fromFile(() => pages.next());
          if (next.done) break;
          const page = next.value;
          for (let i = 0; i < page.length; ) {
            // A page holds the session's rows in a run (ordered by session): hand each run over whole.
            const key = String(page[i].session_id);
            let end = i + 1;
            while (end < page.length && String(page[end].session_id) === key) end++;
            const run = page.slice(i, end);
            for (const mapper of byKey.get(key) ?? []) mapper.addMessages(run);
            i = end;
          }
          if (options.signal?.aborted) throw new ImportAbortedError();
          await yieldToEventLoop();
        }
      } finally {
        pages.return(undefined);
      }
      return mapping.map(({ session, mapper }) => {
        const decision = planned.lineage.decisions.get(session.id)!;
        return mapper.finish(usage.get(String(session.raw)) ?? [], {
          id: session.id,
          profile: planned.profiles.get(session.id)!,
          parentId: decision.parentId,
          lineageKind: decision.kind,
          delegated: planned.lineage.delegated.has(session.id),
          conversationGeneration: planned.lineage.conversationGeneration.get(session.id) ?? 0,
        });
      });
    };
    try {
      return await load(batch);
    } catch (error) {
      if (!(error instanceof UnreadableFile)) throw error;
    }
    const mapped: MappedSession[] = [];
    for (const session of batch) {
      try {
        mapped.push(...(await load([session])));
      } catch (error) {
        if (!(error instanceof UnreadableFile)) throw error;
        builder.warn(
          `session ${String(session.raw)}: cannot be read from the file (${(error.cause as Error).message}); skipped`,
        );
      }
    }
    return mapped;
  }

  /** The file's conversation_generations, or (older files) what its reset-class ends imply. */
  private generations(reader: HermesReader, implied: Map<string, number>) {
    const out: { source: string; sessionKey: string; generation: number }[] = [];
    const repairs = new Repairs();
    if (reader.has('conversation_generations')) {
      for (const row of reader.generations()) {
        const sessionKey = nonEmpty(row.session_key, repairs);
        const generation = counter(row.generation);
        if (sessionKey && generation > 0) {
          out.push({ source: text(row.source, repairs) ?? '', sessionKey, generation });
        }
      }
      return out;
    }
    for (const [peer, generation] of implied) {
      const [source, sessionKey] = peer.split('\n');
      out.push({ source, sessionKey, generation });
    }
    return out;
  }
}

/**
 * The tip of a compression chain by the plan: follow compression children, preferring one that
 * itself ended by compression, then an open one, then the latest (the store's own walk, on the file).
 */
function plannedTip(id: string, plan: LineagePlan, nodes: Map<string, LineageNode>): string {
  const children = new Map<string, LineageNode[]>();
  for (const [childId, decision] of plan.decisions) {
    if (decision.kind !== 'compression' || decision.parentId === null) continue;
    const list = children.get(decision.parentId) ?? [];
    list.push(nodes.get(childId)!);
    children.set(decision.parentId, list);
  }
  let current = id;
  for (let step = 0; step < 1000; step++) {
    const next = children.get(current);
    if (!next || next.length === 0) return current;
    const rank = (node: LineageNode) => [
      node.endReason === 'compression' ? 1 : 0,
      node.endedAt === null ? 1 : 0,
      node.startedAt,
    ];
    next.sort((a, b) => {
      const [x, y] = [rank(a), rank(b)];
      return y[0] - x[0] || y[1] - x[1] || y[2] - x[2] || (a.id < b.id ? 1 : -1);
    });
    current = next[0].id;
  }
  return current;
}

/** A runtime table of the file; one that cannot be read is left out with a warning (sessions are in). */
function readRuntime<T>(read: () => T[], table: string, builder: ImportReportBuilder): T[] {
  try {
    return read();
  } catch (error) {
    builder.warn(`${table}: cannot be read from the file (${(error as Error).message}); not imported`);
    return [];
  }
}

/**
 * The session each routing key of the file stands for: the one its route names, else the newest
 * session on that key (delivery obligations are keyed by chat in Hermes, by session here).
 */
function sessionsByKey(reader: HermesReader, nodes: ReadonlyMap<string, LineageNode>): Map<string, string> {
  const newest = new Map<string, LineageNode>();
  for (const node of nodes.values()) {
    if (!node.sessionKey) continue;
    const seen = newest.get(node.sessionKey);
    if (!seen || node.startedAt > seen.startedAt || (node.startedAt === seen.startedAt && node.id > seen.id)) {
      newest.set(node.sessionKey, node);
    }
  }
  const byKey = new Map([...newest].map(([key, node]) => [key, node.id]));
  const repairs = new Repairs();
  let entries: HermesRow[] = [];
  try {
    entries = reader.routingEntries();
  } catch {
    // Routes that cannot be read were reported by the routes phase; the sessions' keys remain.
  }
  const routedAt = new Map<string, number>();
  for (const entry of entries) {
    const parsed = jsonObject(entry.entry_json, 'gateway_routing.entry_json', repairs);
    const session = parsed?.session_id ?? parsed?.sessionId;
    const key = nonEmpty(parsed?.session_key, repairs) ?? nonEmpty(entry.session_key, repairs);
    if (typeof session !== 'string' || !session || !key) continue;
    const at = Number(entry.updated_at) || 0;
    if ((routedAt.get(key) ?? Number.NEGATIVE_INFINITY) > at) continue;
    routedAt.set(key, at);
    byKey.set(key, mapSessionId(session).id);
  }
  return byKey;
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A read of the source file failed (a corrupt page): the batch is read again session by session. */
class UnreadableFile extends Error {}

function fromFile<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw new UnreadableFile('cannot read the source file', { cause: error });
  }
}
