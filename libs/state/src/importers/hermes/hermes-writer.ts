import type { SessionRow } from '../../db/database.js';
import type { SqlDialect } from '../../db/sql-dialect.js';
import type { Tx } from '../../db/unit-of-work.js';
import type { ReportDelta } from '../../domain/import-report.js';
import { isBusy } from '../../repositories/session.repository.js';
import { type DeletionEngine, HIDDEN_FOR_DELETION } from '../../services/deletion.engine.js';
import { HermesChunkedWriter } from './hermes-chunked.writer.js';
import { HermesLedgerComparer } from './hermes-ledger-comparison.js';
import type { MappedSession } from './hermes-mapper.js';
import type { RunMemory } from './hermes-run-memory.js';
import { HermesUpdateWriter, type PendingUpdate } from './hermes-update.writer.js';
import {
  countWritten,
  HERMES_SOURCE,
  HermesWriteParts,
  halfImportedHere,
  LEDGER_IMPORTING,
  remainingOf,
  type WriteOptions,
} from './hermes-write-parts.js';

/** What `writeSessions` left to the caller. */
export interface WriteOutcome {
  /**
   * Sessions not written because old rows hold their id (hidden for deletion: a replaced session,
   * a half-imported one whose source changed): purge `purge` (`DeletionEngine.purgeNow`), then
   * write the session again.
   */
  blocked: { session: MappedSession; purge: string[] }[];
  /** An update that wrote only its first chunk (only with `chunkMessages`). */
  pending: PendingUpdate | undefined;
}

/**
 * Writes mapped Hermes sessions through the repositories every other write uses — session rows,
 * messages (search postings follow in the same statements), counters with their revision, routes,
 * generations, the import ledger — inside the caller's unit of work.
 */

export class HermesWriter {
  readonly parts: HermesWriteParts;
  readonly ledgerComparer = new HermesLedgerComparer();
  /** Sessions too big for one unit of work. */
  readonly chunked: HermesChunkedWriter;
  /** Sessions imported before. */
  readonly updates: HermesUpdateWriter;
  /**
   * Messages a unit of work may still remove inline for replaced conflicts: together at most
   * `purgeLaterAbove`, like the messages it writes — a batch of small sessions each replacing one
   * just under the threshold would otherwise remove them all in one transaction.
   */
  private readonly inlineRemovals = new WeakMap<Tx, { left: number }>();

  constructor(dialect: SqlDialect, deletion: DeletionEngine) {
    this.parts = new HermesWriteParts(dialect, deletion);
    this.chunked = new HermesChunkedWriter(this.parts, this.ledgerComparer);
    this.updates = new HermesUpdateWriter(this.parts, this.ledgerComparer, (...args) => this.conflict(...args));
  }

  async writeSessions(
    tx: Tx,
    batch: readonly MappedSession[],
    options: WriteOptions,
    memory: RunMemory,
    delta: ReportDelta,
  ): Promise<WriteOutcome> {
    const outcome: WriteOutcome = { blocked: [], pending: undefined };
    const removedEarlier = options.dryRun ? new Set(memory.removed) : undefined;
    const ledger = await this.parts.ledger.sessionsBySourceIds(
      tx.db,
      HERMES_SOURCE,
      batch.map((session) => session.sourceId),
    );
    // Hidden rows too: a session an interrupted import left half-written is resumed, not re-created.
    const existing = new Map(
      (
        await this.parts.sessions.listByIdsIncludingHidden(
          tx.db,
          batch.map((session) => session.id),
        )
      ).map((row) => [row.id, row]),
    );
    for (const session of batch) {
      for (const warning of session.warnings) delta.warn(warning);
      const entry = ledger.get(session.sourceId);
      let row = existing.get(session.id);
      if (row?.hidden_for === HIDDEN_FOR_DELETION) {
        // Deleted here, its rows still being purged: the id is free once they are gone.
        if (options.purgeLaterAbove !== undefined) {
          outcome.blocked.push({ session, purge: [row.id] });
          continue;
        }
        // A dry run: answer as the store will once they are.
        if (!options.dryRun) {
          await this.parts.messages.deleteForSessions(tx.db, [row.id]);
          await this.parts.sessions.deleteByIds(tx.db, [row.id]);
        }
        row = undefined;
      }
      // A dry run's replace in an earlier unit removed it (with a conflicting parent): gone, as it
      // would be by now. (One removed in this unit still counts as here: a real run decides the whole
      // unit from the rows it read at its start.)
      if (row && removedEarlier?.has(row.id)) row = undefined;
      if (row && halfImportedHere(row, entry, session)) {
        // Left half-written by an interrupted run (split then, small enough for one unit now).
        const done = await this.chunked.resumePoint(tx, session, entry, options);
        if (done) {
          await this.chunked.finishSplit(tx, session, remainingOf(session, done), options, memory, delta);
          continue;
        }
        if (options.purgeLaterAbove !== undefined) {
          outcome.blocked.push({ session, purge: [session.id] });
          continue;
        }
        row = undefined;
      }
      if (!row) {
        if (entry && entry.state !== LEDGER_IMPORTING && options.onConflict !== 'replace') {
          delta.sessions.skipped++;
          delta.messages.skipped += session.messages.length;
          delta.warn(
            `session ${session.sourceId}: deleted here since it was imported; not re-created (--on-conflict=replace imports it again)`,
          );
          continue;
        }
        await this.create(tx, session, options, memory, delta);
        continue;
      }
      const ours =
        entry !== undefined &&
        entry.state === 'imported' &&
        entry.session_id === session.id &&
        entry.identity === session.identity &&
        entry.snapshot !== null;
      if (!ours) {
        const why = !entry
          ? 'a session with this id exists here and was not imported from this store'
          : entry.state !== 'imported'
            ? 'this id was deleted here and is now held by another session'
            : 'a different session with this id was imported before (another store?)';
        const purge = await this.conflict(tx, session, row, why, options, memory, delta);
        if (purge) outcome.blocked.push({ session, purge });
        continue;
      }
      const result = await this.updates.update(tx, session, row, entry, options, memory, delta);
      if (Array.isArray(result)) outcome.blocked.push({ session, purge: result });
      else if (result) outcome.pending = result;
    }
    return outcome;
  }

  /** A new session with its whole transcript, counters, usage and ledger entries. */
  private async create(
    tx: Tx,
    session: MappedSession,
    options: WriteOptions,
    memory: RunMemory,
    delta: ReportDelta,
  ): Promise<void> {
    const s = session.snapshot;
    if (!options.dryRun) await this.parts.profiles.ensure(tx.db, session.profile, options.now);
    const title = await this.parts.freeTitle(tx, session, s.title, memory, delta);
    const preview = await this.parts.previewFor(tx, session, memory);
    if (!options.dryRun) {
      await this.parts.sessions.insert(tx.db, this.parts.newRow(session, title, options.now));
      await this.parts.insertMessages(tx, session.id, session.messages, this.parts.eligible(session));
      await this.parts.countAndRecord(tx, session, session, preview);
      await this.parts.saveLedger(tx, session, title, options);
    }
    countWritten(session, memory, delta);
    delta.messages.created += session.messages.length;
    if (s.lineageKind) delta.lineage[s.lineageKind]++;
    this.parts.remember(session, title, preview, memory, delta);
  }

  /**
   * The id is taken here by something else: left alone, or (--on-conflict=replace) replaced.
   * Returns the ids to purge (and then write the session again) when the replaced session's rows
   * are too many for this unit — they are hidden and purged in chunks — or when the imported one
   * is to be written in chunks itself (nothing to purge then).
   */
  private async conflict(
    tx: Tx,
    session: MappedSession,
    row: SessionRow,
    why: string,
    options: WriteOptions,
    memory: RunMemory,
    delta: ReportDelta,
  ): Promise<string[] | undefined> {
    delta.sessions.conflicts++;
    if (options.onConflict !== 'replace') {
      delta.messages.skipped += session.messages.length;
      delta.warn(`conflict: session ${session.id}: ${why}; left alone (--on-conflict=replace overwrites it)`);
      return undefined;
    }
    if (isBusy(row, options.now)) {
      delta.messages.skipped += session.messages.length;
      delta.warn(`conflict: session ${session.id}: ${why}; it has a live turn, so it was not replaced`);
      return undefined;
    }
    // Through the deletion engine: a receipt, delegate children with it, other children orphaned.
    // Sessions bigger than a unit of work leave every reader now and their rows in chunks after;
    // the id is written again once they are gone (the caller purges them first).
    const plan = await this.parts.deletion.plan(tx.db, [row], false);
    if (options.dryRun) {
      // Nothing removed: later sessions of the run take these rows for gone, as they would be.
      for (const id of plan.members.keys()) memory.removed.add(id);
      delta.warn(`conflict: session ${session.id}: ${why}; replaced by the imported one`);
      memory.replaced.add(session.id);
      await this.create(tx, session, options, memory, delta);
      return undefined;
    }
    let purgeLaterAbove: number | undefined;
    if (options.purgeLaterAbove !== undefined) {
      const budget = this.inlineRemovals.get(tx) ?? { left: options.purgeLaterAbove };
      this.inlineRemovals.set(tx, budget);
      purgeLaterAbove = Math.max(0, Math.min(options.purgeLaterAbove, budget.left));
      for (const member of plan.members.values()) {
        const messages = Number(member.row.message_count);
        if (messages <= purgeLaterAbove) budget.left -= messages;
      }
    }
    const removed = await this.parts.deletion.execute(tx, plan, {
      origin: 'import_replace',
      intent: 'maintenance',
      reason: 'import_replace',
      actor: options.actor,
      notice: options.notice,
      ...(purgeLaterAbove === undefined ? { rowsNow: true } : { purgeLaterAbove }),
    });
    delta.warn(`conflict: session ${session.id}: ${why}; replaced by the imported one`);
    // Counted as an update of the id when it is written: the session was there before.
    memory.replaced.add(session.id);
    const tooBig = options.chunkMessages !== undefined && session.messages.length > options.chunkMessages;
    if (removed.purging.length > 0 || tooBig) return removed.purging;
    await this.create(tx, session, options, memory, delta);
    return undefined;
  }
}
