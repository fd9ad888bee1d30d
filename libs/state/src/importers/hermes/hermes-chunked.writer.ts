import type { Tx } from '../../db/unit-of-work.js';
import type { ReportDelta } from '../../domain/import-report.js';
import type { ImportSessionRow } from '../../repositories/import-ledger.repository.js';
import { HOUR_MS } from '../../repositories/usage-rollup.repository.js';
import { HIDDEN_FOR_DELETION } from '../../services/deletion.engine.js';
import { StoreUnavailableError } from '../../shared/errors.js';
import type { HermesLedgerComparer } from './hermes-ledger-comparison.js';
import type { MappedMessage, MappedSession } from './hermes-mapper.js';
import type { RunMemory } from './hermes-run-memory.js';
import {
  countWritten,
  HERMES_SOURCE,
  type HermesWriteParts,
  HIDDEN_FOR_IMPORT,
  halfImportedHere,
  LEDGER_IMPORTING,
  type WriteOptions,
} from './hermes-write-parts.js';

/**
 * Where a session too big for one unit of work starts: from scratch, after what is already written,
 * through the whole-session rules (`writeSessions`), or — old rows still holding its id, hidden for
 * deletion — after those rows are purged.
 */
export type SplitStart =
  | { kind: 'fresh' }
  | { kind: 'resume'; done: ReadonlySet<number> }
  | { kind: 'whole' }
  | { kind: 'blocked'; purge: string[] };

/**
 * Writes a session too big for one unit of work in chunks: its row hidden from every reader with
 * the first messages, more messages in the middle units, and everything a whole-session import
 * writes with the last; resumes what an interrupted run left half-written.
 */
export class HermesChunkedWriter {
  constructor(
    private readonly parts: HermesWriteParts,
    private readonly comparer: HermesLedgerComparer,
  ) {}

  /**
   * How a session too big for one unit of work is written: from scratch (nothing of it here), after
   * what an interrupted run already wrote (its row hidden, the ledger `importing`), or — anything
   * else (imported before, a conflict, a tombstone) — through `writeSessions` in one unit.
   */
  async splitStart(tx: Tx, session: MappedSession, options: WriteOptions): Promise<SplitStart> {
    const entry = (await this.parts.ledger.sessionsBySourceIds(tx.db, HERMES_SOURCE, [session.sourceId])).get(
      session.sourceId,
    );
    const row = await this.parts.sessions.findIncludingHidden(tx.db, session.id);
    if (!row) {
      // An `importing` entry without its row: the half-written session was removed; start again.
      // A tombstone with --on-conflict=replace (or a conflict replaced just before): written anew.
      return !entry || entry.state === LEDGER_IMPORTING || options.onConflict === 'replace'
        ? { kind: 'fresh' }
        : { kind: 'whole' };
    }
    if (row.hidden_for === HIDDEN_FOR_DELETION) return { kind: 'blocked', purge: [row.id] };
    if (!halfImportedHere(row, entry, session)) return { kind: 'whole' };
    const done = await this.resumePoint(tx, session, entry, options);
    if (done) return { kind: 'resume', done };
    return options.purgeLaterAbove !== undefined ? { kind: 'blocked', purge: [session.id] } : { kind: 'fresh' };
  }

  /**
   * The source messages a half-written session already holds here; null when the source changed
   * them since (or the session is gone): then the half-written rows are removed — nobody ever saw
   * them, so without a receipt — and the caller writes the session from scratch. With
   * `purgeLaterAbove` they are hidden for deletion and purged in chunks first (the caller waits for
   * that: `blocked`); without, removed in this unit; in a dry run, left as they are (the caller
   * answers as if they were gone).
   */
  async resumePoint(
    tx: Tx,
    session: MappedSession,
    entry: ImportSessionRow | undefined,
    options: WriteOptions,
  ): Promise<Set<number> | null> {
    const compared = await this.comparer.compareLedger(tx, session, entry, options);
    if (compared.intact) return new Set(compared.done);
    if (options.dryRun) return null;
    if (options.purgeLaterAbove !== undefined) {
      await this.parts.deletion.purgeLater(tx, [session.id]);
      return null;
    }
    await this.parts.messages.deleteForSessions(tx.db, [session.id]);
    await this.parts.sessions.deleteByIds(tx.db, [session.id]);
    return null;
  }

  /**
   * The first unit of a session written in chunks: the row, hidden from every reader, with its first
   * messages, and the ledger entry `importing` (so an interrupted run resumes it). Counters, usage
   * and the rollups wait for the last chunk.
   */
  async openSplit(
    tx: Tx,
    session: MappedSession,
    first: readonly MappedMessage[],
    options: WriteOptions,
    memory: RunMemory,
    delta: ReportDelta,
  ): Promise<void> {
    const s = session.snapshot;
    await this.parts.profiles.ensure(tx.db, session.profile, options.now);
    const title = await this.parts.freeTitle(tx, session, s.title, memory, delta);
    await this.parts.sessions.insert(tx.db, {
      ...this.parts.newRow(session, title, options.now),
      hidden_for: HIDDEN_FOR_IMPORT,
    });
    // The insert trigger counted the session's start; a hidden session counts nowhere until its
    // last chunk makes it visible (finishSplit counts it then). Doing it here rather than in the
    // triggers keeps one rule for them (every visible insert counts) and both dialects' trigger
    // functions untouched: the importer is the only writer that creates hidden rows.
    await this.parts.usageRollups.removeSession(tx.db, session.id);
    await this.parts.insertMessages(tx, session.id, first, this.parts.eligible(session));
    await this.parts.ledger.upsertSession(tx.db, {
      source: HERMES_SOURCE,
      source_session_id: session.sourceId,
      session_id: session.id,
      identity: session.identity,
      snapshot: null,
      messages_hash: null,
      state: LEDGER_IMPORTING,
      job_id: options.jobId,
      imported_at: options.now,
    });
    delta.messages.created += first.length;
  }

  /** A middle chunk: more messages of the hidden session (and their ledger entries). */
  async appendSplit(tx: Tx, session: MappedSession, part: readonly MappedMessage[], delta: ReportDelta): Promise<void> {
    const row = await this.parts.sessions.findIncludingHidden(tx.db, session.id);
    if (!row || row.hidden_for !== HIDDEN_FOR_IMPORT) {
      throw new StoreUnavailableError(
        `session ${session.id} was removed while it was being imported; import the same file again`,
      );
    }
    await this.parts.insertMessages(tx, session.id, part, this.parts.eligible(session));
    delta.messages.created += part.length;
  }

  /**
   * The last chunk: the rest of the messages, then the session becomes visible with everything a
   * whole-session import writes — counters, its start and messages in the usage rollups (exactly
   * once: nothing of it was counted while hidden), model usage, and the ledger entry `imported`.
   */
  async finishSplit(
    tx: Tx,
    session: MappedSession,
    rest: readonly MappedMessage[],
    options: WriteOptions,
    memory: RunMemory,
    delta: ReportDelta,
  ): Promise<void> {
    if (options.dryRun) {
      // What the last chunk would count and report, from the hidden row as it stands.
      const hidden = await this.parts.sessions.findIncludingHidden(tx.db, session.id);
      if (!hidden || hidden.hidden_for !== HIDDEN_FOR_IMPORT) {
        throw new StoreUnavailableError(
          `session ${session.id} was removed while it was being imported; import the same file again`,
        );
      }
      delta.messages.created += rest.length;
      const preview = await this.parts.previewFor(tx, session, memory);
      countWritten(session, memory, delta);
      if (session.snapshot.lineageKind) delta.lineage[session.snapshot.lineageKind]++;
      this.parts.remember(session, hidden.title, preview, memory, delta);
      return;
    }
    await this.appendSplit(tx, session, rest, delta);
    await this.parts.sessions.reveal(tx.db, session.id, HIDDEN_FOR_IMPORT);
    const row = (await this.parts.sessions.findById(tx.db, session.id))!;
    const s = session.snapshot;
    const startedAt = Number(row.started_at);
    // What the insert trigger counts for a visible session (migration 2026-11-30T04.00, SESSION_STARTED).
    await this.parts.usageRollups.record(tx.db, [
      {
        sessionId: row.id,
        hourStart: startedAt - (startedAt % HOUR_MS),
        source: row.source,
        model: row.model ?? '',
        profile: row.profile,
        conversations: Number(row.delegated) === 0 && row.lineage_kind !== 'compression' ? 1 : 0,
        sessions: 1,
      },
    ]);
    const preview = await this.parts.previewFor(tx, session, memory);
    await this.parts.countAndRecord(tx, session, { ...session, profile: row.profile }, preview);
    await this.parts.saveLedger(tx, session, row.title, options);
    countWritten(session, memory, delta);
    if (s.lineageKind) delta.lineage[s.lineageKind]++;
    this.parts.remember(session, row.title, preview, memory, delta);
  }
}
