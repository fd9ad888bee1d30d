import type { Principal } from '@statehouse/contracts';
import type { NewMessageRow, NewSessionRow, SessionRow } from '../../db/database.js';
import type { SqlDialect } from '../../db/sql-dialect.js';
import type { Tx } from '../../db/unit-of-work.js';
import type { DeletionNotice } from '../../domain/deletion-notice.js';
import type { ReportDelta } from '../../domain/import-report.js';
import { substringEligible, substringIndexed } from '../../domain/message-content.js';
import { availableTitle } from '../../domain/session-titles.js';
import { usageContributions } from '../../domain/usage-contributions.js';
import { ImportLedgerRepository, type ImportSessionRow } from '../../repositories/import-ledger.repository.js';
import { MessageRepository } from '../../repositories/message.repository.js';
import { ProfileRepository } from '../../repositories/profile.repository.js';
import { SessionRepository, ZERO_DELTA } from '../../repositories/session.repository.js';
import { SessionModelUsageRepository } from '../../repositories/session-model-usage.repository.js';
import { type UsageContribution, UsageRollupRepository } from '../../repositories/usage-rollup.repository.js';
import type { DeletionEngine } from '../../services/deletion.engine.js';
import { DomainError } from '../../shared/errors.js';
import type { KnownLedger, LedgerSnapshot } from './hermes-ledger-comparison.js';
import type { MappedMessage, MappedSession } from './hermes-mapper.js';
import type { RunMemory } from './hermes-run-memory.js';

export const HERMES_SOURCE = 'hermes';

/** `sessions.hidden_for` of a session an import writes in chunks, until its last chunk commits. */
export const HIDDEN_FOR_IMPORT = 'import';
/** The ledger state of a source session written in part (its row hidden); `imported` once done. */
export const LEDGER_IMPORTING = 'importing';

export interface WriteOptions {
  onConflict: 'skip' | 'replace';
  jobId: string | null;
  actor: Principal;
  now: number;
  /** The run's one observer call: every replaced session is told in it (docs/domain.md §5.2). */
  notice?: DeletionNotice;
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

/** Whatever this run wrote of a session: created, or updated where it replaced a conflicting one. */
export function countWritten(session: MappedSession, memory: RunMemory, delta: ReportDelta): void {
  if (memory.replaced.delete(session.id)) delta.sessions.updated++;
  else delta.sessions.created++;
}

/** Messages (or ledger entries) gone through between two turns of the event loop, outside transactions. */
export const PAGE = 5000;
/** Ledger entries read per query outside transactions (≈ 8 µs each on SQLite, rows built included). */
export const LEDGER_PAGE = 1000;
export const noPause = async () => undefined;

/** The times of the messages a session counts (shown and not rewound): what the overview counts. */
export function countedTimes(messages: readonly MappedMessage[]) {
  return messages.filter((m) => m.counted).map((m) => ({ timestamp: Number(m.row.timestamp) }));
}

/** The row is hidden by an import of this very source session, which the ledger records as `importing`. */
export function halfImportedHere(
  row: SessionRow,
  entry: ImportSessionRow | undefined,
  session: MappedSession,
): boolean {
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
    // Hermes' provider replay fields are not imported (docs/migrating-from-hermes.md).
    replay_fields: null,
    // Reply latency and per-message cost are figures of replies written through an append
    // (docs/stats.md, "Reply latency"); imported history carries neither.
    reply_latency_ms: null,
    cost_usd: null,
  };
}

/**
 * What every Hermes write shares: the repositories it writes through, a session's new row, its
 * counters and rollup contributions (computed once per mapped session), its messages with their
 * ledger entries, its ledger snapshot, a free title, the preview it shows, and what the run
 * remembers of it. One instance per importer: the whole-session, chunked and update writers share
 * it (and so the totals computed ahead of a last chunk).
 */
export class HermesWriteParts {
  readonly sessions: SessionRepository;
  readonly messages = new MessageRepository();
  readonly profiles = new ProfileRepository();
  readonly ledger = new ImportLedgerRepository();
  readonly usage = new SessionModelUsageRepository();
  readonly usageRollups = new UsageRollupRepository();
  private readonly totals = new WeakMap<
    MappedSession,
    { counted: number; toolCalls: number; contributions: UsageContribution[] }
  >();

  constructor(
    dialect: SqlDialect,
    readonly deletion: DeletionEngine,
  ) {
    this.sessions = new SessionRepository(dialect);
  }

  newRow(session: MappedSession, title: string | null, now: number): NewSessionRow {
    const s = session.snapshot;
    return {
      // The old store's liveness until a writer here claims it (docs/domain.md §10.3).
      imported_at: now,
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
      tool_names: s.toolNames,
      compression_retry_after: s.compressionRetryAfter,
      compression_retry_reason: s.compressionRetryReason,
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

  eligible(session: MappedSession): boolean {
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
  async countAndRecord(
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

  async insertMessages(
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

  async saveLedger(tx: Tx, session: MappedSession, title: string | null, options: WriteOptions) {
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
  async freeTitle(
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
  async previewFor(tx: Tx, session: MappedSession, memory: RunMemory): Promise<string | null> {
    const s = session.snapshot;
    if (s.lineageKind !== 'compression' || s.parentId === null) return session.preview;
    if (memory.previews.has(s.parentId)) return memory.previews.get(s.parentId) ?? session.preview;
    const parent = await this.sessions.findById(tx.db, s.parentId);
    return parent?.preview ?? session.preview;
  }

  remember(
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
