import type { TitleSource } from '@statehouse/contracts';
import type { SessionPatch, SessionRow } from '../../db/database.js';
import type { Tx } from '../../db/unit-of-work.js';
import type { ReportDelta } from '../../domain/import-report.js';
import { substringEligible } from '../../domain/message-content.js';
import { appendTriggerContribution, correctionFor, usageContributions } from '../../domain/usage-contributions.js';
import type { ImportSessionRow } from '../../repositories/import-ledger.repository.js';
import { awaitingClaim, type CounterDelta, ZERO_DELTA } from '../../repositories/session.repository.js';
import type { UsageContribution } from '../../repositories/usage-rollup.repository.js';
import { ORPHAN_REAP_REASON } from '../../services/gateway.service.js';
import { StoreUnavailableError } from '../../shared/errors.js';
import { titleMayReplace } from '../../shared/sanitize.js';
import {
  type HermesLedgerComparer,
  type LedgerSnapshot,
  type MovedMessage,
  readLedgerSnapshot,
  same,
  snapshotsEqual,
} from './hermes-ledger-comparison.js';
import type { MappedMessage, MappedSession, SessionSnapshot } from './hermes-mapper.js';
import type { RunMemory } from './hermes-run-memory.js';
import { countedTimes, HERMES_SOURCE, type HermesWriteParts, type WriteOptions } from './hermes-write-parts.js';

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
  ['toolNames', 'tool_names'],
  ['compressionRetryAfter', 'compression_retry_after'],
  ['compressionRetryReason', 'compression_retry_reason'],
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

/** What the update writer asks of the whole-session writer when imported messages changed in the source. */
export type ConflictHandler = (
  tx: Tx,
  session: MappedSession,
  row: SessionRow,
  why: string,
  options: WriteOptions,
  memory: RunMemory,
  delta: ReportDelta,
) => Promise<string[] | undefined>;

/**
 * Updates a session imported before: what moved in the source since (three-way against the
 * ledger's snapshot), new messages, and visibility the source moved — in one unit, or in chunks
 * (`PendingUpdate`) when they are too many for one.
 */
export class HermesUpdateWriter {
  constructor(
    private readonly parts: HermesWriteParts,
    private readonly comparer: HermesLedgerComparer,
    private readonly conflict: ConflictHandler,
  ) {}

  /**
   * Imported before: apply what moved in the source since then (three-way: a field changed here
   * and not in the source keeps its value here), append new messages, follow rewinds and
   * compactions of imported ones. Unchanged: skipped, nothing written. With `chunkMessages` and
   * more new messages than that, only the first chunk of them is written here (visible, counted —
   * like appends) and the rest is returned as a pending update. A replaced conflict whose old rows
   * are purged first returns the ids to purge.
   */
  async update(
    tx: Tx,
    session: MappedSession,
    row: SessionRow,
    entry: ImportSessionRow,
    options: WriteOptions,
    memory: RunMemory,
    delta: ReportDelta,
  ): Promise<PendingUpdate | string[] | undefined> {
    const base = readLedgerSnapshot(entry.snapshot!);
    const { storedTitle, ...baseFields } = base;
    if (entry.messages_hash === session.messagesHash && snapshotsEqual(baseFields, session.snapshot)) {
      delta.sessions.skipped++;
      delta.messages.skipped += session.messages.length;
      return undefined;
    }
    const { fresh, moved, changed, highest } = await this.comparer.compareLedger(tx, session, entry, options);
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
      await this.parts.sessions.applyAppend(tx.db, id, counterDelta, Number(row.last_activity_at), null, undefined, {});
      const after = (await this.parts.sessions.findById(tx.db, id))!;
      const who = { id, profile: after.profile, source: after.source, model: after.model };
      // The sessions trigger rolled the change up at the last activity: take it out again.
      await this.parts.usageRollups.record(
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
    const current = await this.parts.messages.visibilityOf(
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
      await this.parts.messages.setVisibility(tx.db, sessionId, group.messageIds, visibility);
      await this.parts.ledger.setMessageVisibility(tx.db, sessionId, group.sourceIds, visibility);
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
    const entry = (await this.parts.ledger.sessionsBySourceIds(tx.db, HERMES_SOURCE, [pending.session.sourceId])).get(
      pending.session.sourceId,
    );
    if (entry?.state !== 'imported' || entry.snapshot === null) {
      throw new StoreUnavailableError(
        `session ${pending.session.id} was removed while it was being imported; import the same file again`,
      );
    }
    await this.applyUpdate(tx, pending, row, entry, part, options, memory, delta);
  }

  private async stillHere(tx: Tx, session: MappedSession): Promise<SessionRow> {
    const row = await this.parts.sessions.findById(tx.db, session.id);
    if (!row) {
      throw new StoreUnavailableError(
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
    await this.parts.insertMessages(tx, id, part, substringEligible(row));
    const counterDelta = {
      ...ZERO_DELTA,
      messages: part.filter((m) => m.counted).length,
      toolCalls: part.reduce((sum, m) => sum + m.toolCalls, 0),
    };
    // The first message with a preview among all new ones, as one unit would (coalesce keeps the first).
    const preview = part.find((m) => m.preview !== null)?.preview ?? null;
    await this.parts.sessions.applyAppend(
      tx.db,
      id,
      counterDelta,
      Number(row.last_activity_at),
      preview,
      undefined,
      {},
    );
    const after = (await this.parts.sessions.findById(tx.db, id))!;
    const who = { id, profile: after.profile, source: after.source, model: after.model };
    const lastActivityAt = Number(after.last_activity_at);
    await this.parts.usageRollups.record(
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
    const { session } = pending;
    const base = readLedgerSnapshot(entry.snapshot!);
    const { patch, title } = await this.mergeFields(tx, session, row, base, memory, delta);
    if (options.dryRun) {
      // Everything below moves rows and figures only; the report counts the same either way.
      this.reportUpdated(pending, title, row.preview ?? last.find((m) => m.preview !== null)?.preview ?? null, last, {
        memory,
        delta,
      });
      return;
    }
    if (Object.keys(patch).length > 0) await this.parts.sessions.update(tx.db, session.id, patch);
    // Still the old store's row (no writer here claimed it): this import is its latest word. Not a
    // change of its own (no revision): the update's counters below bump it once.
    if (awaitingClaim(row)) await this.parts.sessions.markImported(tx.db, session.id, options.now);
    const { counterDelta, preview } = await this.writeLastMessages(tx, pending, row, base, last);
    await this.recordUsage(tx, pending, last, counterDelta);
    await this.parts.usage.upsertMany(tx.db, session.usage);
    await this.parts.saveLedger(tx, session, title, options);
    this.reportUpdated(pending, title, row.preview ?? preview, last, { memory, delta });
  }

  /**
   * The session's fields, three-way merged against the snapshot of the last import: a field the
   * source moved and nobody changed here takes the source's value. Returns the patch and the title
   * the session ends with (a moved title is made unique in the session's profile).
   */
  private async mergeFields(
    tx: Tx,
    session: MappedSession,
    row: SessionRow,
    base: LedgerSnapshot,
    memory: RunMemory,
    delta: ReportDelta,
  ): Promise<{ patch: SessionPatch; title: string | null }> {
    const s = session.snapshot;
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
      row.title === base.storedTitle &&
      titleMayReplace(row.title === null ? null : (row.title_source as TitleSource | null), s.titleSource ?? 'derived')
    ) {
      // Unique in the profile the session lives in now (it may have been moved since).
      title = await this.parts.freeTitle(tx, { ...session, profile: row.profile }, s.title, memory, delta);
      patch.title = title;
      patch.title_source = title === null ? null : s.titleSource;
    }
    return { patch, title };
  }

  /**
   * The visibility the source moved that earlier chunks left (`continueMoves`), the last new
   * messages, and the session's counters: what they change plus the usage the source added since the
   * last import, in one counter statement (it bumps the revision once).
   */
  private async writeLastMessages(
    tx: Tx,
    pending: PendingUpdate,
    row: SessionRow,
    base: LedgerSnapshot,
    last: readonly MappedMessage[],
  ) {
    const { session } = pending;
    const s = session.snapshot;
    const movedNow = await this.applyMoves(tx, session.id, pending.moved.slice(pending.movedDone));
    await this.parts.insertMessages(tx, session.id, last, substringEligible(row));
    const counterDelta = {
      ...ZERO_DELTA,
      messages: last.filter((m) => m.counted).length + movedNow.counted,
      toolCalls: last.reduce((sum, m) => sum + m.toolCalls, 0) + movedNow.toolCalls,
    };
    for (const [field, key] of COUNTERS) counterDelta[key] = s[field] - base[field];
    const preview = last.find((m) => m.preview !== null)?.preview ?? null;
    await this.parts.sessions.applyAppend(
      tx.db,
      session.id,
      counterDelta,
      Math.max(s.lastActivityAt, Number(row.last_activity_at)),
      preview,
      undefined,
      {},
    );
    return { counterDelta, preview };
  }

  /**
   * The update's counter statement bumped the revision, so the sessions trigger rolled it up at the
   * last activity; this puts the new messages at their own times and the usage at the last of them
   * instead.
   */
  private async recordUsage(
    tx: Tx,
    pending: PendingUpdate,
    last: readonly MappedMessage[],
    counterDelta: CounterDelta,
  ): Promise<void> {
    const id = pending.session.id;
    const after = (await this.parts.sessions.findById(tx.db, id))!;
    const who = { id, profile: after.profile, source: after.source, model: after.model };
    const lastActivityAt = Number(after.last_activity_at);
    // The usage goes at the last of all the new messages (earlier chunks included), as in one unit.
    // (A loop, not Math.max(...): 10⁵ arguments overflow the stack.)
    let usageAt = Number.NEGATIVE_INFINITY;
    for (const { timestamp } of countedTimes(pending.fresh)) if (timestamp > usageAt) usageAt = timestamp;
    if (usageAt === Number.NEGATIVE_INFINITY) usageAt = lastActivityAt;
    await this.parts.usageRollups.record(
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
  }

  /** What the report counts of an update, and what the run remembers of the session. */
  private reportUpdated(
    pending: PendingUpdate,
    title: string | null,
    preview: string | null,
    last: readonly MappedMessage[],
    run: { memory: RunMemory; delta: ReportDelta },
  ): void {
    const { session } = pending;
    run.delta.sessions.updated++;
    run.delta.messages.created += last.length;
    run.delta.messages.skipped += session.messages.length - pending.fresh.length;
    this.parts.remember(session, title, preview, run.memory, run.delta);
  }
}
