import type { Principal, TitleSource } from '@statehouse/contracts';
import type { Executor, NewMessageRow, NewSessionRow, SessionPatch, SessionRow } from '../../db/database.js';
import { type DeletionEngine, HIDDEN_FOR_DELETION } from '../../deletion/deletion.engine.js';
import { ORPHAN_REAP_REASON } from '../../gateways/gateway.service.js';
import { MessageRepository } from '../../messages/message.repository.js';
import { substringEligible, substringIndexed } from '../../messages/message-content.js';
import { ProfileRepository } from '../../profiles/profile.repository.js';
import { isBusy, SessionRepository, ZERO_DELTA } from '../../sessions/session.repository.js';
import { availableTitle } from '../../sessions/session-titles.js';
import { DomainError } from '../../shared/errors.js';
import { titleMayReplace } from '../../shared/sanitize.js';
import type { SqlDialect } from '../../shared/sql-dialect.js';
import type { Tx } from '../../shared/unit-of-work.js';
import { appendTriggerContribution, correctionFor, usageContributions } from '../../stats/usage-contributions.js';
import { HOUR_MS, type UsageContribution, UsageRollupRepository } from '../../stats/usage-rollup.repository.js';
import { SessionModelUsageRepository } from '../../usage/session-model-usage.repository.js';
import { ImportLedgerRepository, type ImportMessageRow, type ImportSessionRow } from '../import-ledger.repository.js';
import type { ReportDelta } from '../import-report.js';
import type { MappedMessage, MappedSession, SessionSnapshot } from './hermes-mapper.js';
import type { RunMemory } from './hermes-run-memory.js';

export const HERMES_SOURCE = 'hermes';

/** `sessions.hidden_for` of a session an import writes in chunks, until its last chunk commits. */
export const HIDDEN_FOR_IMPORT = 'import';
/** The ledger state of a source session written in part (its row hidden); `imported` once done. */
export const LEDGER_IMPORTING = 'importing';

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
 * An update of a session imported before whose new messages are too many for one unit of work:
 * the first unit wrote `written` of `fresh`; the importer writes the rest in chunks
 * (`continueUpdate`), the last of them with everything else the update moves (`finishUpdate`).
 */
export interface PendingUpdate {
  session: MappedSession;
  /** Every message new since the last import, in source order. */
  fresh: readonly MappedMessage[];
  /** How many of `fresh` are written (and counted) here. */
  written: number;
  /**
   * Imported messages whose visibility the source moved (rewinds, compactions): the importer applies
   * them a chunk per unit (`continueMoves`) before the last chunk, which applies what is left.
   */
  moved: readonly MovedMessage[];
  /** How many of `moved` are applied. */
  movedDone: number;
}

interface MovedMessage {
  message: MappedMessage;
  messageId: number;
  was: { active: number; compacted: number };
}

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

/** The ledger's snapshot: the source's fields as last imported, plus the title as stored here. */
type LedgerSnapshot = SessionSnapshot & { storedTitle: string | null };

export interface WriteOptions {
  onConflict: 'skip' | 'replace';
  jobId: string | null;
  actor: Principal;
  now: number;
  /**
   * Old rows of a session with more messages than this (a replaced conflict, a half-imported
   * session whose source changed) are hidden and purged in chunks before the id is written again
   * (`WriteOutcome.blocked`). Unset, they are removed inline — or, in a dry run, taken for gone
   * without removing anything.
   */
  purgeLaterAbove?: number;
  /**
   * The most messages this unit may write of one session (a session written in chunks): a longer
   * update leaves the rest as `WriteOutcome.pending`, a replacing session is left to be written in
   * chunks (`blocked`, nothing to purge).
   */
  chunkMessages?: number;
  /**
   * A dry run: every decision and every figure of the report as a write would make them, from
   * reads only — nothing is written, so no write lock is taken (docs/operations.md, Imports). What
   * a write would have changed for a later session of the run is in the run's memory instead.
   */
  dryRun?: boolean;
  /**
   * A session's import ledger read ahead, outside the unit of work (`readLedgerAhead`): used in
   * place of reading it inside when it still holds (`importedMessages`).
   */
  knownLedger?: KnownLedger;
}

/**
 * A session's ledger as read outside any transaction — its entry, and its message entries compared
 * with the source's messages. A session imported before with 10⁵ messages has 10⁵ message entries:
 * reading and comparing them inside the first unit of its update held the write lock ≈ 1 s.
 */
export interface KnownLedger {
  sessionId: string;
  entry: ImportSessionRow | undefined;
  comparison: LedgerComparison;
}

/** A session's message entries in the ledger, compared with its messages in the source. */
export interface LedgerComparison {
  /** Source messages without an entry (new since the last import), in source order. */
  fresh: MappedMessage[];
  /** Imported messages whose visibility the source moved. */
  moved: MovedMessage[];
  /** Imported messages whose content changed in the source. */
  changed: number;
  /** Every entry's message is still in the source, unchanged (a half-written session may resume). */
  intact: boolean;
  /** Source ids with an entry. */
  done: ReadonlySet<number>;
  /** The lowest and highest source id with an entry (null: none). */
  lowest: number | null;
  highest: number | null;
}

/** Plain session fields a later import may move: [snapshot field, column]. */
const PLAIN_FIELDS = [
  ['source', 'source'],
  ['sessionKey', 'session_key'],
  ['userId', 'user_id'],
  ['chatId', 'chat_id'],
  ['chatType', 'chat_type'],
  ['threadId', 'thread_id'],
  ['displayName', 'display_name'],
  ['origin', 'origin'],
  ['transportProfile', 'transport_profile'],
  ['model', 'model'],
  ['modelConfig', 'model_config'],
  ['archived', 'archived'],
  ['pinned', 'pinned'],
  ['hidden', 'hidden'],
] as const satisfies readonly (readonly [keyof SessionSnapshot, keyof SessionRow])[];

const COUNTERS = [
  ['inputTokens', 'inputTokens'],
  ['outputTokens', 'outputTokens'],
  ['cacheReadTokens', 'cacheReadTokens'],
  ['cacheWriteTokens', 'cacheWriteTokens'],
  ['reasoningTokens', 'reasoningTokens'],
  ['estimatedCostUsd', 'estimatedCostUsd'],
] as const;

const normalizeCell = (value: unknown) =>
  typeof value === 'number' || typeof value === 'bigint' ? Number(value) : value;
const same = (a: unknown, b: unknown) => normalizeCell(a) === normalizeCell(b);

function snapshotsEqual(a: SessionSnapshot, b: SessionSnapshot): boolean {
  for (const key of Object.keys(b) as (keyof SessionSnapshot)[]) if (!same(a[key], b[key])) return false;
  return true;
}

/**
 * Writes mapped Hermes sessions through the repositories every other write uses — session rows,
 * messages (search postings follow in the same statements), counters with their revision, routes,
 * generations, the import ledger — inside the caller's unit of work.
 */
export class HermesWriter {
  private readonly sessions: SessionRepository;
  private readonly messages = new MessageRepository();
  private readonly profiles = new ProfileRepository();
  private readonly ledger = new ImportLedgerRepository();
  private readonly usage = new SessionModelUsageRepository();
  private readonly usageRollups = new UsageRollupRepository();
  /**
   * Messages a unit of work may still remove inline for replaced conflicts: together at most
   * `purgeLaterAbove`, like the messages it writes — a batch of small sessions each replacing one
   * just under the threshold would otherwise remove them all in one transaction.
   */
  private readonly inlineRemovals = new WeakMap<Tx, { left: number }>();
  private readonly totals = new WeakMap<
    MappedSession,
    { counted: number; toolCalls: number; contributions: UsageContribution[] }
  >();

  constructor(
    dialect: SqlDialect,
    private readonly deletion: DeletionEngine,
  ) {
    this.sessions = new SessionRepository(dialect);
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
    const ledger = await this.ledger.sessionsBySourceIds(
      tx.db,
      HERMES_SOURCE,
      batch.map((session) => session.sourceId),
    );
    // Hidden rows too: a session an interrupted import left half-written is resumed, not re-created.
    const existing = new Map(
      (
        await this.sessions.listByIdsIncludingHidden(
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
          await this.messages.deleteForSessions(tx.db, [row.id]);
          await this.sessions.deleteByIds(tx.db, [row.id]);
        }
        row = undefined;
      }
      // A dry run's replace in an earlier unit removed it (with a conflicting parent): gone, as it
      // would be by now. (One removed in this unit still counts as here: a real run decides the whole
      // unit from the rows it read at its start.)
      if (row && removedEarlier?.has(row.id)) row = undefined;
      if (row && halfImportedHere(row, entry, session)) {
        // Left half-written by an interrupted run (split then, small enough for one unit now).
        const done = await this.resumePoint(tx, session, entry, options);
        if (done) {
          await this.finishSplit(tx, session, remainingOf(session, done), options, memory, delta);
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
      const result = await this.update(tx, session, row, entry, options, memory, delta);
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
    if (!options.dryRun) await this.profiles.ensure(tx.db, session.profile, options.now);
    const title = await this.freeTitle(tx, session, s.title, memory, delta);
    const preview = await this.previewFor(tx, session, memory);
    if (!options.dryRun) {
      await this.sessions.insert(tx.db, this.newRow(session, title));
      await this.insertMessages(tx, session.id, session.messages, this.eligible(session));
      await this.countAndRecord(tx, session, session, preview);
      await this.saveLedger(tx, session, title, options);
    }
    countWritten(session, memory, delta);
    delta.messages.created += session.messages.length;
    if (s.lineageKind) delta.lineage[s.lineageKind]++;
    this.remember(session, title, preview, memory, delta);
  }

  private newRow(session: MappedSession, title: string | null): NewSessionRow {
    const s = session.snapshot;
    return {
      id: session.id,
      profile: session.profile,
      source: s.source,
      created_source: session.createdSource,
      session_key: s.sessionKey,
      user_id: s.userId,
      chat_id: s.chatId,
      chat_type: s.chatType,
      thread_id: s.threadId,
      display_name: s.displayName,
      origin: s.origin,
      transport_profile: s.transportProfile,
      model: s.model,
      model_config: s.modelConfig,
      title,
      title_source: title === null ? null : s.titleSource,
      parent_session_id: s.parentId,
      lineage_kind: s.lineageKind,
      started_at: session.startedAt,
      ended_at: s.endedAt,
      end_reason: s.endReason,
      last_activity_at: s.lastActivityAt,
      archived: s.archived,
      pinned: s.pinned,
      hidden: s.hidden,
      handoff_state: s.handoffState,
      handoff_platform: s.handoffPlatform,
      handoff_error: s.handoffError,
      delegated: session.delegated ? 1 : 0,
      conversation_generation: session.conversationGeneration,
    };
  }

  private eligible(session: MappedSession): boolean {
    return substringEligible({
      source: session.snapshot.source,
      created_source: session.createdSource,
      delegated: session.delegated ? 1 : 0,
    });
  }

  /**
   * A new session's counters (all its messages, its usage) and their rollups: the messages at their
   * own times, the usage at the last activity (docs/stats.md); then its model usage rows.
   */
  private async countAndRecord(
    tx: Tx,
    session: MappedSession,
    who: { id: string; profile: string },
    preview: string | null,
  ): Promise<void> {
    const s = session.snapshot;
    const { counted, toolCalls, contributions } = this.totalsOf(session);
    // The same counter statement every append uses (no revision bump at creation, like create()).
    await this.sessions.applyAppend(
      tx.db,
      session.id,
      {
        ...ZERO_DELTA,
        messages: counted,
        toolCalls,
        inputTokens: s.inputTokens,
        outputTokens: s.outputTokens,
        cacheReadTokens: s.cacheReadTokens,
        cacheWriteTokens: s.cacheWriteTokens,
        reasoningTokens: s.reasoningTokens,
        estimatedCostUsd: s.estimatedCostUsd,
      },
      s.lastActivityAt,
      preview,
      undefined,
      {},
      false,
    );
    // The overview counts imported history at its own times: the messages by theirs, the usage at the
    // last one (docs/stats.md). The session's start is counted by the insert trigger.
    await this.usageRollups.record(
      tx.db,
      contributions.map((contribution) => ({ ...contribution, profile: who.profile })),
    );
    await this.usage.upsertMany(tx.db, session.usage);
  }

  /**
   * A whole session's counters and rollup contributions, computed once per mapped session. A session
   * written in chunks has them computed before its last chunk's transaction begins (`prepareTotals`):
   * over 10⁵ messages that is work the write lock need not wait for.
   */
  async prepareTotals(session: MappedSession, between: () => Promise<void> = noPause): Promise<void> {
    if (this.totals.has(session)) return;
    let counted = 0;
    let toolCalls = 0;
    const times: { timestamp: number }[] = [];
    for (let start = 0; start < session.messages.length; start += PAGE) {
      for (const message of session.messages.slice(start, start + PAGE)) {
        if (message.counted) {
          counted++;
          times.push({ timestamp: Number(message.row.timestamp) });
        }
        toolCalls += message.toolCalls;
      }
      await between();
    }
    this.totals.set(session, this.totalsFrom(session, counted, toolCalls, times));
  }

  private totalsOf(session: MappedSession) {
    let totals = this.totals.get(session);
    if (!totals) {
      totals = this.totalsFrom(
        session,
        session.messages.filter((m) => m.counted).length,
        session.messages.reduce((sum, m) => sum + m.toolCalls, 0),
        countedTimes(session.messages),
      );
      this.totals.set(session, totals);
    }
    return totals;
  }

  private totalsFrom(session: MappedSession, counted: number, toolCalls: number, times: { timestamp: number }[]) {
    const s = session.snapshot;
    return {
      counted,
      toolCalls,
      contributions: usageContributions(
        { id: session.id, profile: session.profile, source: s.source, model: s.model },
        times,
        {
          inputTokens: s.inputTokens,
          outputTokens: s.outputTokens,
          cacheReadTokens: s.cacheReadTokens,
          cacheWriteTokens: s.cacheWriteTokens,
          reasoningTokens: s.reasoningTokens,
          estimatedCostUsd: s.estimatedCostUsd,
        },
        s.lastActivityAt,
      ),
    };
  }

  /**
   * How a session too big for one unit of work is written: from scratch (nothing of it here), after
   * what an interrupted run already wrote (its row hidden, the ledger `importing`), or — anything
   * else (imported before, a conflict, a tombstone) — through `writeSessions` in one unit.
   */
  async splitStart(tx: Tx, session: MappedSession, options: WriteOptions): Promise<SplitStart> {
    const entry = (await this.ledger.sessionsBySourceIds(tx.db, HERMES_SOURCE, [session.sourceId])).get(
      session.sourceId,
    );
    const row = await this.sessions.findIncludingHidden(tx.db, session.id);
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
  private async resumePoint(
    tx: Tx,
    session: MappedSession,
    entry: ImportSessionRow | undefined,
    options: WriteOptions,
  ): Promise<Set<number> | null> {
    const compared = await this.compareLedger(tx, session, entry, options);
    if (compared.intact) return new Set(compared.done);
    if (options.dryRun) return null;
    if (options.purgeLaterAbove !== undefined) {
      await this.deletion.purgeLater(tx, [session.id]);
      return null;
    }
    await this.messages.deleteForSessions(tx.db, [session.id]);
    await this.sessions.deleteByIds(tx.db, [session.id]);
    return null;
  }

  /**
   * A session's ledger, read outside any transaction (on SQLite the reader connection, which never
   * waits on the writer and holds no lock): the importer reads it before the unit of work that
   * decides the session (`WriteOptions.knownLedger`).
   */
  async readLedgerAhead(
    db: Executor,
    session: MappedSession,
    between: () => Promise<void> = noPause,
  ): Promise<KnownLedger> {
    const entry = (await this.ledger.sessionsBySourceIds(db, HERMES_SOURCE, [session.sourceId])).get(session.sourceId);
    // A page at a time: entries that move meanwhile are caught where the comparison is used, as for
    // any read ahead.
    const imported = await this.ledger.messagesOf(db, session.id, { size: LEDGER_PAGE, between });
    return { sessionId: session.id, entry, comparison: await compareInPages(session, imported, between) };
  }

  /**
   * The session's message entries compared with the source: as read ahead when they still hold,
   * else read and compared here. They still hold when the session's entry is the one read ahead and
   * its message entries span the same source ids (two index lookups). Why that suffices: entries
   * come and go only through imports and deletions. An import that moves a session's messages
   * rewrites its entry (its time and job) in its last unit, and its middle units commit only while
   * it holds the import lease — which this unit checks before it commits (`persist`), so another
   * run's chunks cannot have slipped in unnoticed. A deletion marks the entry deleted, and its purge
   * removes the latest entries first (the highest source id moves). Anything else reads them again
   * inside, as before.
   */
  private async compareLedger(
    tx: Tx,
    session: MappedSession,
    entry: ImportSessionRow | undefined,
    options: WriteOptions,
  ): Promise<LedgerComparison> {
    const known = options.knownLedger;
    if (known && known.sessionId === session.id && sameEntry(known.entry, entry)) {
      const span = await this.ledger.messageSpan(tx.db, session.id);
      if (span.lowest === known.comparison.lowest && span.highest === known.comparison.highest) return known.comparison;
    }
    return compare(session, await this.ledger.messagesOf(tx.db, session.id));
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
    await this.profiles.ensure(tx.db, session.profile, options.now);
    const title = await this.freeTitle(tx, session, s.title, memory, delta);
    await this.sessions.insert(tx.db, { ...this.newRow(session, title), hidden_for: HIDDEN_FOR_IMPORT });
    // The insert trigger counted the session's start; a hidden session counts nowhere until its
    // last chunk makes it visible (finishSplit counts it then). Doing it here rather than in the
    // triggers keeps one rule for them (every visible insert counts) and both dialects' trigger
    // functions untouched: the importer is the only writer that creates hidden rows.
    await this.usageRollups.removeSession(tx.db, session.id);
    await this.insertMessages(tx, session.id, first, this.eligible(session));
    await this.ledger.upsertSession(tx.db, {
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
    const row = await this.sessions.findIncludingHidden(tx.db, session.id);
    if (!row || row.hidden_for !== HIDDEN_FOR_IMPORT) {
      throw new DomainError(
        'store_unavailable',
        `session ${session.id} was removed while it was being imported; import the same file again`,
      );
    }
    await this.insertMessages(tx, session.id, part, this.eligible(session));
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
      const hidden = await this.sessions.findIncludingHidden(tx.db, session.id);
      if (!hidden || hidden.hidden_for !== HIDDEN_FOR_IMPORT) {
        throw new DomainError(
          'store_unavailable',
          `session ${session.id} was removed while it was being imported; import the same file again`,
        );
      }
      delta.messages.created += rest.length;
      const preview = await this.previewFor(tx, session, memory);
      countWritten(session, memory, delta);
      if (session.snapshot.lineageKind) delta.lineage[session.snapshot.lineageKind]++;
      this.remember(session, hidden.title, preview, memory, delta);
      return;
    }
    await this.appendSplit(tx, session, rest, delta);
    await this.sessions.reveal(tx.db, session.id, HIDDEN_FOR_IMPORT);
    const row = (await this.sessions.findById(tx.db, session.id))!;
    const s = session.snapshot;
    const startedAt = Number(row.started_at);
    // What the insert trigger counts for a visible session (migration 2026-11-30T04.00, SESSION_STARTED).
    await this.usageRollups.record(tx.db, [
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
    const preview = await this.previewFor(tx, session, memory);
    await this.countAndRecord(tx, session, { ...session, profile: row.profile }, preview);
    await this.saveLedger(tx, session, row.title, options);
    countWritten(session, memory, delta);
    if (s.lineageKind) delta.lineage[s.lineageKind]++;
    this.remember(session, row.title, preview, memory, delta);
  }

  /**
   * Imported before: apply what moved in the source since then (three-way: a field changed here
   * and not in the source keeps its value here), append new messages, follow rewinds and
   * compactions of imported ones. Unchanged: skipped, nothing written. With `chunkMessages` and
   * more new messages than that, only the first chunk of them is written here (visible, counted —
   * like appends) and the rest is returned as a pending update. A replaced conflict whose old rows
   * are purged first returns the ids to purge.
   */
  private async update(
    tx: Tx,
    session: MappedSession,
    row: SessionRow,
    entry: ImportSessionRow,
    options: WriteOptions,
    memory: RunMemory,
    delta: ReportDelta,
  ): Promise<PendingUpdate | string[] | undefined> {
    const base = JSON.parse(entry.snapshot!) as LedgerSnapshot;
    const { storedTitle, ...baseFields } = base;
    if (entry.messages_hash === session.messagesHash && snapshotsEqual(baseFields, session.snapshot)) {
      delta.sessions.skipped++;
      delta.messages.skipped += session.messages.length;
      return undefined;
    }
    const { fresh, moved, changed, highest } = await this.compareLedger(tx, session, entry, options);
    if (changed > 0) {
      return this.conflict(
        tx,
        session,
        row,
        `${changed} message(s) imported before changed in the source`,
        options,
        memory,
        delta,
      );
    }
    if (highest !== null && fresh.some((message) => message.sourceId < highest)) {
      delta.warn(`session ${session.sourceId}: messages older than imported ones were appended at the end`);
    }
    const pending: PendingUpdate = { session, fresh, written: 0, moved, movedDone: 0 };
    const size = options.chunkMessages;
    if (size !== undefined && (fresh.length > size || moved.length > size)) {
      // Too many for one unit: this one appends the first chunk of new messages (if they are too
      // many); the importer writes the rest and applies the moved visibility in chunks.
      if (fresh.length > size) await this.appendFresh(tx, pending, row, fresh.slice(0, size), delta);
      return pending;
    }
    await this.applyUpdate(tx, pending, row, entry, fresh, options, memory, delta);
    return undefined;
  }

  /**
   * A middle chunk of a pending update: more new messages, visible and counted at once, as if
   * appended through the API (counters, revision, their hours in the usage rollups, their ledger
   * entries — so an interrupted run resumes after them). The session's fields, its token usage and
   * the ledger snapshot move with the last chunk (`finishUpdate`).
   */
  async continueUpdate(tx: Tx, pending: PendingUpdate, part: readonly MappedMessage[], delta: ReportDelta) {
    await this.appendFresh(tx, pending, await this.stillHere(tx, pending.session), part, delta);
  }

  /**
   * A chunk of a pending update's moved visibility (rewinds and compactions the source made of
   * imported messages): at most `count` of them, counted as an append counts (counters and
   * revision; nothing moves in the usage rollups, which count history whatever its visibility, as
   * one unit does). Returns how many it took.
   */
  async continueMoves(tx: Tx, pending: PendingUpdate, count: number): Promise<number> {
    const row = await this.stillHere(tx, pending.session);
    const part = pending.moved.slice(pending.movedDone, pending.movedDone + count);
    const id = pending.session.id;
    const moved = await this.applyMoves(tx, id, part);
    if (moved.counted !== 0 || moved.toolCalls !== 0) {
      const counterDelta = { ...ZERO_DELTA, messages: moved.counted, toolCalls: moved.toolCalls };
      await this.sessions.applyAppend(tx.db, id, counterDelta, Number(row.last_activity_at), null, undefined, {});
      const after = (await this.sessions.findById(tx.db, id))!;
      const who = { id, profile: after.profile, source: after.source, model: after.model };
      // The sessions trigger rolled the change up at the last activity: take it out again.
      await this.usageRollups.record(
        tx.db,
        correctionFor(
          [],
          appendTriggerContribution({ ...who, lastActivityAt: Number(after.last_activity_at) }, counterDelta),
        ),
      );
    }
    pending.movedDone += part.length;
    return part.length;
  }

  /**
   * Visibility the source moved (a later rewind or compaction), where nobody changed it here: the
   * messages and their ledger entries. Returns what it changes in the session's counters.
   */
  private async applyMoves(
    tx: Tx,
    sessionId: string,
    moved: readonly MovedMessage[],
  ): Promise<{ counted: number; toolCalls: number }> {
    if (moved.length === 0) return { counted: 0, toolCalls: 0 };
    const current = await this.messages.visibilityOf(
      tx.db,
      sessionId,
      moved.map((m) => m.messageId),
    );
    let counted = 0;
    let toolCalls = 0;
    const groups = new Map<string, { messageIds: number[]; sourceIds: number[] }>();
    for (const { message, messageId, was } of moved) {
      const now = current.get(messageId);
      if (!now || now.active !== was.active || now.compacted !== was.compacted) continue;
      const shown = now.displayKind !== 'hidden';
      const liveBefore = was.active === 1 || was.compacted === 1;
      const liveAfter = message.active === 1 || message.compacted === 1;
      if (shown) counted += Number(liveAfter) - Number(liveBefore);
      if (liveBefore !== liveAfter) toolCalls += (liveAfter ? 1 : -1) * message.toolCallsTotal;
      const key = `${message.active}${message.compacted}`;
      const group = groups.get(key) ?? { messageIds: [], sourceIds: [] };
      group.messageIds.push(messageId);
      group.sourceIds.push(message.sourceId);
      groups.set(key, group);
    }
    for (const [key, group] of groups) {
      const visibility = { active: Number(key[0]) as 0 | 1, compacted: Number(key[1]) as 0 | 1 };
      await this.messages.setVisibility(tx.db, sessionId, group.messageIds, visibility);
      await this.ledger.setMessageVisibility(tx.db, sessionId, group.sourceIds, visibility);
    }
    return { counted, toolCalls };
  }

  /** The last chunk of a pending update: its messages and everything else the update moves. */
  async finishUpdate(
    tx: Tx,
    pending: PendingUpdate,
    part: readonly MappedMessage[],
    options: WriteOptions,
    memory: RunMemory,
    delta: ReportDelta,
  ): Promise<void> {
    const row = await this.stillHere(tx, pending.session);
    const entry = (await this.ledger.sessionsBySourceIds(tx.db, HERMES_SOURCE, [pending.session.sourceId])).get(
      pending.session.sourceId,
    );
    if (entry?.state !== 'imported' || entry.snapshot === null) {
      throw new DomainError(
        'store_unavailable',
        `session ${pending.session.id} was removed while it was being imported; import the same file again`,
      );
    }
    await this.applyUpdate(tx, pending, row, entry, part, options, memory, delta);
  }

  private async stillHere(tx: Tx, session: MappedSession): Promise<SessionRow> {
    const row = await this.sessions.findById(tx.db, session.id);
    if (!row) {
      throw new DomainError(
        'store_unavailable',
        `session ${session.id} was removed while it was being imported; import the same file again`,
      );
    }
    return row;
  }

  /**
   * New messages of a visible session, counted like an append: the counter statement bumps the
   * revision (the sessions trigger rolls the change up at the last activity), corrected so the
   * messages count at their own times. Nothing of the session's usage moves here.
   */
  private async appendFresh(
    tx: Tx,
    pending: PendingUpdate,
    row: SessionRow,
    part: readonly MappedMessage[],
    delta: ReportDelta,
  ): Promise<void> {
    const id = pending.session.id;
    await this.insertMessages(tx, id, part, substringEligible(row));
    const counterDelta = {
      ...ZERO_DELTA,
      messages: part.filter((m) => m.counted).length,
      toolCalls: part.reduce((sum, m) => sum + m.toolCalls, 0),
    };
    // The first message with a preview among all new ones, as one unit would (coalesce keeps the first).
    const preview = part.find((m) => m.preview !== null)?.preview ?? null;
    await this.sessions.applyAppend(tx.db, id, counterDelta, Number(row.last_activity_at), preview, undefined, {});
    const after = (await this.sessions.findById(tx.db, id))!;
    const who = { id, profile: after.profile, source: after.source, model: after.model };
    const lastActivityAt = Number(after.last_activity_at);
    await this.usageRollups.record(
      tx.db,
      correctionFor(
        usageContributions(who, countedTimes(part), undefined, lastActivityAt),
        appendTriggerContribution({ ...who, lastActivityAt }, counterDelta),
      ),
    );
    pending.written += part.length;
    delta.messages.created += part.length;
  }

  /**
   * The rest of an update, in one unit: session fields, visibility the source moved, the last
   * (or only) new messages, counters and usage, model usage and the ledger snapshot.
   */
  private async applyUpdate(
    tx: Tx,
    pending: PendingUpdate,
    row: SessionRow,
    entry: ImportSessionRow,
    last: readonly MappedMessage[],
    options: WriteOptions,
    memory: RunMemory,
    delta: ReportDelta,
  ): Promise<void> {
    const { session, moved } = pending;
    const base = JSON.parse(entry.snapshot!) as LedgerSnapshot;
    const s = session.snapshot;
    const { storedTitle } = base;
    // Session fields: three-way merge against the snapshot of the last import.
    const patch: SessionPatch = {};
    for (const [field, column] of PLAIN_FIELDS) {
      if (!same(s[field], base[field]) && same(row[column], base[field])) {
        (patch as Record<string, unknown>)[column] = s[field];
      }
    }
    const handoffMoved =
      s.handoffState !== base.handoffState ||
      s.handoffPlatform !== base.handoffPlatform ||
      s.handoffError !== base.handoffError;
    if (
      handoffMoved &&
      row.handoff_state === base.handoffState &&
      row.handoff_platform === base.handoffPlatform &&
      row.handoff_error === base.handoffError
    ) {
      patch.handoff_state = s.handoffState;
      patch.handoff_platform = s.handoffPlatform;
      patch.handoff_error = s.handoffError;
    }
    const endMoved = !same(s.endedAt, base.endedAt) || s.endReason !== base.endReason;
    const endKeptHere = same(row.ended_at, base.endedAt) && row.end_reason === base.endReason;
    // The liveness sweep ends every imported open session idle for a day (docs/domain.md §10.3): an
    // automatic end, not a change made here, so the end the source wrote since then replaces it.
    const reapedHere = base.endedAt === null && row.end_reason === ORPHAN_REAP_REASON;
    if (endMoved && (endKeptHere || reapedHere)) {
      patch.ended_at = s.endedAt;
      patch.end_reason = s.endReason;
    }
    const lineageMoved = s.parentId !== base.parentId || s.lineageKind !== base.lineageKind;
    if (lineageMoved && row.parent_session_id === base.parentId && row.lineage_kind === base.lineageKind) {
      patch.parent_session_id = s.parentId;
      patch.lineage_kind = s.lineageKind;
      if (s.lineageKind) delta.lineage[s.lineageKind]++;
    }
    let title = row.title;
    const titleMoved = s.title !== base.title || s.titleSource !== base.titleSource;
    if (
      titleMoved &&
      row.title === storedTitle &&
      titleMayReplace(row.title === null ? null : (row.title_source as TitleSource | null), s.titleSource ?? 'derived')
    ) {
      // Unique in the profile the session lives in now (it may have been moved since).
      title = await this.freeTitle(tx, { ...session, profile: row.profile }, s.title, memory, delta);
      patch.title = title;
      patch.title_source = title === null ? null : s.titleSource;
    }
    if (options.dryRun) {
      // Everything below moves rows and figures only; the report counts the same either way.
      delta.sessions.updated++;
      delta.messages.created += last.length;
      delta.messages.skipped += session.messages.length - pending.fresh.length;
      this.remember(
        session,
        title,
        row.preview ?? last.find((m) => m.preview !== null)?.preview ?? null,
        memory,
        delta,
      );
      return;
    }
    if (Object.keys(patch).length > 0) await this.sessions.update(tx.db, session.id, patch);

    // Visibility the source moved, what earlier chunks left of it (`continueMoves`).
    const movedNow = await this.applyMoves(tx, session.id, moved.slice(pending.movedDone));
    const countedDelta = movedNow.counted;
    const toolCallDelta = movedNow.toolCalls;

    const eligible = substringEligible(row);
    await this.insertMessages(tx, session.id, last, eligible);
    const counterDelta = {
      ...ZERO_DELTA,
      messages: last.filter((m) => m.counted).length + countedDelta,
      toolCalls: last.reduce((sum, m) => sum + m.toolCalls, 0) + toolCallDelta,
    };
    for (const [field, key] of COUNTERS) counterDelta[key] = s[field] - base[field];
    const preview = last.find((m) => m.preview !== null)?.preview ?? null;
    await this.sessions.applyAppend(
      tx.db,
      session.id,
      counterDelta,
      Math.max(s.lastActivityAt, Number(row.last_activity_at)),
      preview,
      undefined,
      {},
    );
    // That counter update bumped the revision, so the sessions trigger rolled it up at the last
    // activity; put the new messages at their own times and the usage at the last of them instead.
    const after = (await this.sessions.findById(tx.db, session.id))!;
    const who = { id: session.id, profile: after.profile, source: after.source, model: after.model };
    const lastActivityAt = Number(after.last_activity_at);
    // The usage goes at the last of all the new messages (earlier chunks included), as in one unit.
    // (A loop, not Math.max(...): 10⁵ arguments overflow the stack.)
    let usageAt = Number.NEGATIVE_INFINITY;
    for (const { timestamp } of countedTimes(pending.fresh)) if (timestamp > usageAt) usageAt = timestamp;
    if (usageAt === Number.NEGATIVE_INFINITY) usageAt = lastActivityAt;
    await this.usageRollups.record(
      tx.db,
      correctionFor(
        mergeHours([
          ...usageContributions(who, countedTimes(last), undefined, lastActivityAt),
          ...usageContributions(
            who,
            [],
            {
              inputTokens: counterDelta.inputTokens,
              outputTokens: counterDelta.outputTokens,
              cacheReadTokens: counterDelta.cacheReadTokens,
              cacheWriteTokens: counterDelta.cacheWriteTokens,
              reasoningTokens: counterDelta.reasoningTokens,
              estimatedCostUsd: counterDelta.estimatedCostUsd,
            },
            usageAt,
          ),
        ]),
        appendTriggerContribution({ ...who, lastActivityAt }, counterDelta),
      ),
    );
    await this.usage.upsertMany(tx.db, session.usage);
    await this.saveLedger(tx, session, title, options);
    delta.sessions.updated++;
    delta.messages.created += last.length;
    delta.messages.skipped += session.messages.length - pending.fresh.length;
    this.remember(session, title, row.preview ?? preview, memory, delta);
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
    const plan = await this.deletion.plan(tx.db, [row], false);
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
    const removed = await this.deletion.execute(tx, plan, {
      origin: 'import_replace',
      intent: 'maintenance',
      reason: 'import_replace',
      actor: options.actor,
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

  private async insertMessages(
    tx: Tx,
    sessionId: string,
    messages: readonly MappedMessage[],
    eligible: boolean,
  ): Promise<void> {
    if (messages.length === 0) return;
    const rows = messages.map((m) => messageRow(sessionId, m, eligible));
    const ids = await this.messages.insertMany(tx.db, rows);
    await this.ledger.insertMessages(
      tx.db,
      messages.map((m, index) => ({
        session_id: sessionId,
        source_message_id: m.sourceId,
        message_id: ids[index],
        fingerprint: m.fingerprint,
        active: m.active,
        compacted: m.compacted,
      })),
    );
  }

  private async saveLedger(tx: Tx, session: MappedSession, title: string | null, options: WriteOptions) {
    const snapshot: LedgerSnapshot = { ...session.snapshot, storedTitle: title };
    await this.ledger.upsertSession(tx.db, {
      source: HERMES_SOURCE,
      source_session_id: session.sourceId,
      session_id: session.id,
      identity: session.identity,
      snapshot: JSON.stringify(snapshot),
      messages_hash: session.messagesHash,
      state: 'imported',
      job_id: options.jobId,
      imported_at: options.now,
    });
  }

  /**
   * Titles are unique per profile: a taken one gets the next free "title (n)", with a warning. Titles
   * given earlier in this run count as taken too (a dry run never wrote them).
   */
  private async freeTitle(
    tx: Tx,
    session: MappedSession,
    wanted: string | null,
    memory: RunMemory,
    delta: ReportDelta,
  ): Promise<string | null> {
    if (wanted === null) return null;
    const takenInRun = (title: string) => {
      const holder = memory.titleHolder(session.profile, title);
      return holder !== undefined && holder !== session.id;
    };
    try {
      let title = await availableTitle(this.sessions, tx.db, session.profile, wanted, 'derived', session.id);
      for (let n = 2; title !== null && takenInRun(title) && n < 100; n++) {
        const candidate = `${Array.from(wanted).slice(0, 92).join('')} (${n})`;
        const holder = await this.sessions.findByTitle(tx.db, session.profile, candidate);
        if (!holder || holder.id === session.id) title = candidate;
      }
      if (title === null || takenInRun(title)) throw new DomainError('validation_failed', 'no free title');
      if (title !== wanted) delta.warn(`session ${session.id}: title "${wanted}" is taken here; stored as "${title}"`);
      memory.holdTitle(session.profile, title, session.id);
      return title;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      delta.warn(`session ${session.id}: no free variant of the title "${wanted}"; imported untitled`);
      return null;
    }
  }

  /** A compression continuation shows its chain's opening, as a compression made here does. */
  private async previewFor(tx: Tx, session: MappedSession, memory: RunMemory): Promise<string | null> {
    const s = session.snapshot;
    if (s.lineageKind !== 'compression' || s.parentId === null) return session.preview;
    if (memory.previews.has(s.parentId)) return memory.previews.get(s.parentId) ?? session.preview;
    const parent = await this.sessions.findById(tx.db, s.parentId);
    return parent?.preview ?? session.preview;
  }

  private remember(
    session: MappedSession,
    title: string | null,
    preview: string | null,
    memory: RunMemory,
    delta: ReportDelta,
  ): void {
    memory.written.set(session.id, session.profile);
    memory.previews.set(session.id, preview);
    if (session.snapshot.lineageKind !== 'compression' && !session.delegated) {
      delta.conversations.push({ id: session.id, title });
    }
  }
}

/** Whatever this run wrote of a session: created, or updated where it replaced a conflicting one. */
function countWritten(session: MappedSession, memory: RunMemory, delta: ReportDelta): void {
  if (memory.replaced.delete(session.id)) delta.sessions.updated++;
  else delta.sessions.created++;
}

/** Contributions summed by hour (`correctionFor` takes one per hour). */
function mergeHours(contributions: readonly UsageContribution[]): UsageContribution[] {
  const byHour = new Map<number, UsageContribution>();
  for (const contribution of contributions) {
    const current = byHour.get(contribution.hourStart);
    if (!current) {
      byHour.set(contribution.hourStart, { ...contribution });
      continue;
    }
    const sum = current as unknown as Record<string, unknown>;
    for (const [key, value] of Object.entries(contribution)) {
      if (key !== 'hourStart' && typeof value === 'number') sum[key] = Number(sum[key] ?? 0) + value;
    }
  }
  return [...byHour.values()];
}

/** The times of the messages a session counts (shown and not rewound): what the overview counts. */
/** Messages (or ledger entries) gone through between two turns of the event loop, outside transactions. */
const PAGE = 5000;
/** Ledger entries read per query outside transactions (≈ 8 µs each on SQLite, rows built included). */
const LEDGER_PAGE = 1000;
const noPause = async () => undefined;

function countedTimes(messages: readonly MappedMessage[]) {
  return messages.filter((m) => m.counted).map((m) => ({ timestamp: Number(m.row.timestamp) }));
}

/** A session's message entries compared with its source messages (`LedgerComparison`). */
function compare(session: MappedSession, imported: ReadonlyMap<number, ImportMessageRow>): LedgerComparison {
  const comparison = new Comparison(imported);
  comparison.messages(session.messages);
  comparison.index(session.messages);
  comparison.entries([...imported]);
  return comparison.result();
}

/**
 * `compare`, with the event loop let run between pages of PAGE messages (or entries): what the
 * importer reads ahead of a session's first unit, outside every transaction (10⁵ messages took
 * one slice of 50–60 ms).
 */
async function compareInPages(
  session: MappedSession,
  imported: ReadonlyMap<number, ImportMessageRow>,
  between: () => Promise<void>,
): Promise<LedgerComparison> {
  const comparison = new Comparison(imported);
  for (let start = 0; start < session.messages.length; start += PAGE) {
    comparison.messages(session.messages.slice(start, start + PAGE));
    await between();
  }
  for (let start = 0; start < session.messages.length; start += PAGE) {
    comparison.index(session.messages.slice(start, start + PAGE));
    await between();
  }
  const entries = [...imported];
  for (let start = 0; start < entries.length; start += PAGE) {
    comparison.entries(entries.slice(start, start + PAGE));
    await between();
  }
  return comparison.result();
}

/** The steps of a ledger comparison, each over a part of its input in order. */
class Comparison {
  private readonly fresh: MappedMessage[] = [];
  private readonly moved: MovedMessage[] = [];
  private changed = 0;
  private readonly bySource = new Map<number, MappedMessage>();
  private intact = true;
  private lowest: number | null = null;
  private highest: number | null = null;

  constructor(private readonly imported: ReadonlyMap<number, ImportMessageRow>) {}

  /** Source messages against their entries: new, changed, or moved. */
  messages(messages: readonly MappedMessage[]): void {
    for (const message of messages) {
      const known = this.imported.get(message.sourceId);
      if (!known) this.fresh.push(message);
      else if (known.fingerprint !== message.fingerprint) this.changed++;
      else if (Number(known.active) !== message.active || Number(known.compacted) !== message.compacted) {
        this.moved.push({
          message,
          messageId: Number(known.message_id),
          was: { active: Number(known.active), compacted: Number(known.compacted) },
        });
      }
    }
  }

  index(messages: readonly MappedMessage[]): void {
    for (const message of messages) this.bySource.set(message.sourceId, message);
  }

  /** Entries against the source (after every message was indexed): is each still there, unchanged? */
  entries(entries: readonly [number, ImportMessageRow][]): void {
    for (const [sourceId, known] of entries) {
      const now = this.bySource.get(sourceId);
      if (!now || now.fingerprint !== known.fingerprint) this.intact = false;
      if (this.lowest === null || sourceId < this.lowest) this.lowest = sourceId;
      if (this.highest === null || sourceId > this.highest) this.highest = sourceId;
    }
  }

  result(): LedgerComparison {
    const { fresh, moved, changed, intact, lowest, highest } = this;
    return { fresh, moved, changed, intact, done: new Set(this.imported.keys()), lowest, highest };
  }
}

/** The same ledger entry, as last written (an import rewrites its time and job whenever it moves the session). */
function sameEntry(a: ImportSessionRow | undefined, b: ImportSessionRow | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return (
    a.session_id === b.session_id &&
    a.identity === b.identity &&
    a.state === b.state &&
    a.snapshot === b.snapshot &&
    a.messages_hash === b.messages_hash &&
    same(a.imported_at, b.imported_at) &&
    a.job_id === b.job_id
  );
}

/** The row is hidden by an import of this very source session, which the ledger records as `importing`. */
function halfImportedHere(row: SessionRow, entry: ImportSessionRow | undefined, session: MappedSession): boolean {
  return (
    row.hidden_for === HIDDEN_FOR_IMPORT &&
    entry !== undefined &&
    entry.state === LEDGER_IMPORTING &&
    entry.session_id === session.id &&
    entry.identity === session.identity
  );
}

/** The session's messages not yet written here, in source order. */
export function remainingOf(session: MappedSession, done: ReadonlySet<number>): MappedMessage[] {
  return done.size === 0 ? session.messages : session.messages.filter((m) => !done.has(m.sourceId));
}

/**
 * A mapped message's row for the messages table, every column named (not `{ ...m.row, … }`): a
 * spread with four keys added builds each row's properties out of its object, ≈ 690 bytes a row
 * against ≈ 180 (measured, Node 20), and a unit's rows live across its awaits, so scavenges
 * promoted them: they made most of the old-space garbage a long import piled up between two
 * full collections (docs/architecture.md, "Long operations"). Required<…> keeps the list
 * complete: a new column fails to compile here.
 */
export function messageRow(
  sessionId: string,
  m: MappedMessage,
  eligible: boolean,
): Required<Omit<NewMessageRow, 'id'>> {
  const r = m.row;
  return {
    session_id: sessionId,
    role: r.role,
    content: r.content ?? null,
    content_json: r.content_json ?? null,
    tool_call_id: r.tool_call_id ?? null,
    tool_calls: r.tool_calls ?? null,
    tool_name: r.tool_name ?? null,
    timestamp: r.timestamp,
    token_count: r.token_count ?? null,
    finish_reason: r.finish_reason ?? null,
    reasoning: r.reasoning ?? null,
    display_kind: r.display_kind,
    active: m.active,
    compacted: m.compacted,
    platform_message_id: r.platform_message_id ?? null,
    substring_indexed: substringIndexed(eligible, r.role),
  };
}
