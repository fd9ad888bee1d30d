import type {
  AppendMessagesCommand,
  AppendMessagesResponse,
  ListMessagesQuery,
  MessageInput,
  MessagePage,
  ReplaceMessagesRequest,
  ReplaceMessagesResponse,
  UsageDelta,
} from '@statehouse/contracts';
import type { Db, NewMessageRow, SessionRow } from '../db/database.js';
import { isUniqueViolation, type SqlDialect } from '../db/sql-dialect.js';
import type { Tx, UnitOfWork } from '../db/unit-of-work.js';
import type { Wakeups } from '../db/wakeup.port.js';
import {
  clampTimestamp,
  contentText,
  previewOf,
  substringEligible,
  substringIndexed,
  toolUseParts,
} from '../domain/message-content.js';
import { isReply, latencyContributions, replyLatencies } from '../domain/reply-latency.js';
import {
  assertDestructiveAllowed,
  assertPreconditions,
  assertWriterMayProceed,
  requireDestructivePreconditions,
} from '../domain/session-guards.js';
import { isRevivable, type ReopenedSink, SessionLifecycle } from '../domain/session-lifecycle.js';
import { inWriteHour, usageContributions, writeTimeCorrection } from '../domain/usage-contributions.js';
import { MessageRepository, storedReplayFields, toMessage } from '../repositories/message.repository.js';
import { ReplyLatencyRepository } from '../repositories/reply-latency.repository.js';
import { SessionRepository, toSession, ZERO_DELTA } from '../repositories/session.repository.js';
import { UsageRollupRepository } from '../repositories/usage-rollup.repository.js';
import { canAccessProfile } from '../shared/access.js';
import type { Clock } from '../shared/clock.js';
import type { OperationContext, Preconditions } from '../shared/context.js';
import { CursorPart, cursorShape, decodeCursor, encodeCursor } from '../shared/cursor.js';
import { NotFoundError, RevisionConflictError, SessionClosedError } from '../shared/errors.js';
import { textOrNull } from '../shared/json.js';
import { toDomainError } from '../shared/store-errors.js';
import type { AppendWriter } from './append-writer.js';

/** The id of the last message of a page. */
const MESSAGE_CURSOR = cursorShape(CursorPart.id);

export interface WrittenMessages {
  ids: number[];
  created: number;
  visibleCreated: number;
  toolCalls: number;
  preview: string | null;
}

export class MessageService {
  private readonly messages = new MessageRepository();
  private readonly usage = new UsageRollupRepository();
  private readonly latency: ReplyLatencyRepository;
  private readonly sessions: SessionRepository;
  private readonly lifecycle: SessionLifecycle;
  private appendWriter: AppendWriter | undefined;
  private wakeups: Wakeups | undefined;

  constructor(
    private readonly db: Db,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    dialect: SqlDialect,
    /** Where bulk reads (export pages) run: the read pool on SQLite. */
    private readonly reads: Db = db,
    /** Lifecycle observers (null on the append writer's thread: its answers carry `reopened`). */
    hooks: ReopenedSink | null = null,
  ) {
    this.sessions = new SessionRepository(dialect);
    this.latency = new ReplyLatencyRepository(dialect);
    this.lifecycle = new SessionLifecycle(this.sessions, hooks);
  }

  /**
   * Live feeds in this process hear an append as soon as it commits. Nothing is announced to other
   * processes: on PostgreSQL a NOTIFY in every append would serialize all commits on the
   * notification queue, so their feeds poll; on SQLite the file's change probe already sees them.
   */
  announceAppendsTo(wakeups: Wakeups): void {
    this.wakeups = wakeups;
  }

  /** SQLite file: appends made while others are in flight run on the append writer's thread. */
  useAppendWriter(writer: AppendWriter): void {
    this.appendWriter = writer;
  }

  /**
   * Appends a batch in one transaction: dedupe by platformMessageId (against the store and within
   * the batch), counters, activity, preview and revision move together (docs/domain.md §2.2–2.3).
   */
  append(
    ctx: OperationContext,
    sessionId: string,
    request: AppendMessagesCommand,
    preconditions: Preconditions = {},
  ): Promise<AppendMessagesResponse> {
    // Not async: the hottest call of the store pays no promise of its own on top of appendHere's.
    if (this.appendWriter) {
      return this.appendWriter.append(ctx, sessionId, request, preconditions, () =>
        this.appendHere(ctx, sessionId, request, preconditions),
      );
    }
    return this.appendHere(ctx, sessionId, request, preconditions);
  }

  /** The append on this thread's own connection (the append writer's thread runs this too). */
  private async appendHere(
    ctx: OperationContext,
    sessionId: string,
    request: AppendMessagesCommand,
    preconditions: Preconditions,
  ): Promise<AppendMessagesResponse> {
    try {
      return await this.appendOnce(ctx, sessionId, request, preconditions);
    } catch (error) {
      // A concurrent writer inserted one of our dedupe keys between our lookup and our insert
      // (PostgreSQL): run again, and this time it is found as a duplicate.
      if (isUniqueViolation(error, 'messages_platform_uq'))
        return this.appendOnce(ctx, sessionId, request, preconditions);
      throw error;
    }
  }

  /**
   * Dedupe keys are looked up first, so the rows to insert — and so the counters — are known before
   * anything is written; then one prepared UPDATE … RETURNING both moves the counters and fetches
   * what the checks and the rows need, and the rows follow.
   */
  private async appendOnce(
    ctx: OperationContext,
    sessionId: string,
    request: AppendMessagesCommand,
    preconditions: Preconditions,
  ): Promise<AppendMessagesResponse> {
    return this.uow.run(ctx, async (tx) => {
      const now = this.clock.now();
      const dedupe = await this.dedupe(tx, sessionId, request.messages);
      const drafts = draftRows(dedupe.kept, now);
      const usage = request.usage ?? {};
      if (dedupe.kept.length === 0 && !hasUsage(usage) && request.model === undefined) {
        // Every message was already stored: nothing changes, not even the revision.
        const session = await this.sessions.findById(tx.db, sessionId);
        if (!session || !canAccessProfile(ctx.principal, session.profile)) throw new NotFoundError('session');
        if (session.end_reason === 'compression') throw closedByCompression();
        assertPreconditions(session, preconditions);
        assertWriterMayProceed(session, preconditions, now);
        return {
          ids: dedupe.ids([]),
          created: 0,
          revision: Number(session.revision),
          generation: Number(session.generation),
        };
      }
      const session = await this.sessions.appendCounters(
        tx.db,
        sessionId,
        counterDelta(drafts, usage),
        now,
        drafts.preview,
        request.model === undefined ? null : textOrNull(request.model),
      );
      if (!session || !canAccessProfile(ctx.principal, session.profile)) throw new NotFoundError('session');
      if (session.end_reason === 'compression') throw closedByCompression();
      const revision = Number(session.revision);
      const generation = Number(session.generation);
      // The update already happened: a failed check throws and the transaction rolls it back.
      if (preconditions.ifMatch !== undefined && preconditions.ifMatch !== revision - 1) {
        throw new RevisionConflictError(revision - 1);
      }
      assertWriterMayProceed(session, preconditions, now);
      // Revived means open (docs/domain.md §4.3): a write to an accidentally ended session
      // reopens it in this transaction, so lists, the dashboard and retention see it alive.
      let reopened: AppendMessagesResponse['reopened'];
      if (session.ended_at !== null && isRevivable(session)) {
        await this.sessions.clearEndKeepingRevision(tx.db, sessionId);
        reopened = { endReason: session.end_reason! };
        this.lifecycle.announceReopened(tx, { id: sessionId, ...session }, 'append', revision);
      }
      const replies = await this.replyFigures(tx, sessionId, dedupe.kept, drafts, request.usage);
      const rows = drafts.rows.map((row) => rowFor(row, sessionId, substringEligible(session)));
      if (rows.length > 0 && this.wakeups) {
        const wakeups = this.wakeups;
        tx.afterCommit(() => wakeups.local('messages'));
      }
      const insertedIds =
        rows.length === 0
          ? []
          : rows.length === 1
            ? [await this.messages.insert(tx.db, rows[0])]
            : await this.messages.insertMany(tx.db, rows);
      if (replies.length > 0) await this.latency.record(tx.db, latencyContributions(session, replies));
      // The sessions trigger rolled this append up at the write's hour; messages of other hours move there.
      const lastActivityAt = Number(session.last_activity_at);
      if (!inWriteHour(drafts.rows, lastActivityAt, now)) {
        const usageSession = { id: sessionId, ...session, lastActivityAt };
        const correction = writeTimeCorrection(
          usageContributions(usageSession, drafts.rows, request.usage, now),
          usageSession,
        );
        if (correction.length > 0) await this.usage.record(tx.db, correction);
      }
      const answer: AppendMessagesResponse = {
        ids: dedupe.ids(insertedIds),
        created: rows.length,
        revision,
        generation,
      };
      if (reopened) answer.reopened = reopened;
      return answer;
    });
  }

  /**
   * Which inputs are new: a `platformMessageId` already stored for the session (or repeated earlier
   * in the batch) returns the existing row's id instead of a new row.
   */
  private async dedupe(tx: Tx, sessionId: string, inputs: readonly MessageInput[]) {
    const platformIds = inputs.flatMap((input) => platformIdOf(input) ?? []);
    const existing =
      platformIds.length === 0
        ? new Map<string, number>()
        : platformIds.length === 1
          ? await this.messages.findByPlatformId(tx.db, sessionId, platformIds[0])
          : await this.messages.findByPlatformIds(tx.db, sessionId, platformIds);
    const kept: MessageInput[] = [];
    const slots: ({ existing: number } | { row: number } | { sameAs: number })[] = [];
    const firstRowOf = new Map<string, number>();
    for (const input of inputs) {
      const platformId = platformIdOf(input);
      if (platformId !== undefined && existing.has(platformId)) {
        slots.push({ existing: existing.get(platformId)! });
      } else if (platformId !== undefined && firstRowOf.has(platformId)) {
        slots.push({ sameAs: firstRowOf.get(platformId)! });
      } else {
        if (platformId !== undefined) firstRowOf.set(platformId, kept.length);
        slots.push({ row: kept.length });
        kept.push(input);
      }
    }
    return {
      kept,
      /** One id per input, in order, once the kept rows have their ids. */
      ids: (insertedIds: readonly number[]) =>
        slots.map((slot) =>
          'existing' in slot ? slot.existing : 'row' in slot ? insertedIds[slot.row] : insertedIds[slot.sameAs],
        ),
    };
  }

  /**
   * Sets each new row's reply latency and the append's cost (on its last reply) (docs/stats.md,
   * "Reply latency"); the replies with a latency, for the histograms. The session's latest user
   * message is read only when a reply comes before any user message of the write.
   */
  private async replyFigures(
    tx: Tx,
    sessionId: string,
    inputs: readonly MessageInput[],
    drafts: Drafts,
    usage: UsageDelta | undefined,
  ): Promise<{ timestamp: number; latencyMs: number }[]> {
    const rows = drafts.rows.map((row, index) => ({
      role: row.role,
      timestamp: row.timestamp,
      display_kind: row.display_kind,
      observed: inputs[index].observed === true,
    }));
    if (!rows.some(isReply)) return [];
    const latencies = await replyLatencies(rows, () => this.messages.lastAnswerableAt(tx.db, sessionId));
    const replies: { timestamp: number; latencyMs: number }[] = [];
    let lastReply = -1;
    drafts.rows.forEach((row, index) => {
      const latencyMs = latencies[index];
      row.reply_latency_ms = latencyMs;
      row.cost_usd = null;
      if (latencyMs !== null) replies.push({ timestamp: row.timestamp, latencyMs });
      if (isReply(rows[index])) lastReply = index;
    });
    if (usage?.estimatedCostUsd !== undefined && lastReply >= 0)
      drafts.rows[lastReply].cost_usd = usage.estimatedCostUsd;
    return replies;
  }

  /**
   * Inserts new message rows for `session` inside `tx` (a session's opening messages) and counts
   * them in the usage rollups; the session's counters are the caller's to apply.
   */
  async write(tx: Tx, session: SessionRow, inputs: readonly MessageInput[]): Promise<WrittenMessages> {
    const now = this.clock.now();
    const dedupe = await this.dedupe(tx, session.id, inputs);
    const drafts = draftRows(dedupe.kept, now);
    const replies = await this.replyFigures(tx, session.id, dedupe.kept, drafts, undefined);
    const rows = drafts.rows.map((row) => rowFor(row, session.id, substringEligible(session)));
    const insertedIds = rows.length ? await this.messages.insertMany(tx.db, rows) : [];
    if (replies.length > 0) await this.latency.record(tx.db, latencyContributions(session, replies));
    await this.usage.record(tx.db, usageContributions(session, drafts.rows, undefined, now));
    return {
      ids: dedupe.ids(insertedIds),
      created: rows.length,
      visibleCreated: drafts.visible,
      toolCalls: drafts.toolCalls,
      preview: drafts.preview,
    };
  }

  /**
   * A keyset page of a session's messages. `bulk` (an export walking every page) reads on the read
   * pool: each page is then a real hop off the event loop, with a deadline.
   */
  async list(
    ctx: OperationContext,
    sessionId: string,
    query: ListMessagesQuery,
    options: { bulk?: boolean } = {},
  ): Promise<MessagePage> {
    const db = options.bulk ? this.reads : this.db;
    try {
      const session = await this.sessions.findById(db, sessionId);
      if (!session || !canAccessProfile(ctx.principal, session.profile)) throw new NotFoundError('session');
      const afterId = query.cursor ? decodeCursor(query.cursor, MESSAGE_CURSOR)[0] : query.after;
      const rows = await this.messages.list(db, {
        sessionId,
        platformMessageId: query.platformMessageId,
        includeCompacted: query.includeCompacted,
        includeHidden: query.includeHidden,
        includeInactive: query.includeInactive,
        order: query.order,
        afterId,
        limit: query.limit + 1,
      });
      const page = rows.slice(0, query.limit);
      const ordinals = await this.messages.ordinalsOf(
        this.db,
        sessionId,
        page.map((row) => Number(row.id)),
      );
      return {
        items: page.map((row) => toMessage(row, ordinals.get(Number(row.id)) ?? 0)),
        nextCursor: rows.length > query.limit ? encodeCursor([Number(page[page.length - 1].id)]) : null,
      };
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /**
   * Replaces the live transcript in one transaction (docs/domain.md §2.3.9): the session's active
   * messages leave it — rewound (kept, not shown, not searched) or, with `archive`, archived by
   * compaction (still shown and searched) — and the given messages become the live transcript.
   * Destructive: If-Match and X-Expected-Generation, refused while another holder's turn is live.
   */
  async replaceTranscript(
    ctx: OperationContext,
    sessionId: string,
    request: ReplaceMessagesRequest,
    preconditions: Preconditions,
  ): Promise<ReplaceMessagesResponse> {
    requireDestructivePreconditions(preconditions);
    return this.uow.run(ctx, async (tx) => {
      const now = this.clock.now();
      const session = await this.sessions.findByIdForUpdate(tx.db, sessionId);
      if (!session || !canAccessProfile(ctx.principal, session.profile)) throw new NotFoundError('session');
      assertDestructiveAllowed(session, preconditions, now);
      if (session.end_reason === 'compression') throw closedByCompression();
      const replaced = await this.messages.deactivateFrom(tx.db, sessionId, 0);
      if (request.archive)
        await this.messages.archive(
          tx.db,
          replaced.map((row) => Number(row.id)),
        );
      // Platform ids the new rows reuse are theirs now: the old rows left the transcript.
      const reused = request.messages.flatMap((message) => platformIdOf(message) ?? []);
      if (reused.length > 0) await this.messages.releasePlatformIds(tx.db, sessionId, reused);
      const written = await this.write(tx, session, request.messages);
      // Archived rows stay visible (and counted); rewound ones leave the counters.
      const left = request.archive
        ? { messages: 0, toolCalls: 0 }
        : {
            messages: replaced.filter((row) => row.display_kind !== 'hidden').length,
            toolCalls: replaced.reduce((sum, row) => sum + toolCallCount(row.tool_calls), 0),
          };
      await this.sessions.applyAppend(
        tx.db,
        sessionId,
        { ...ZERO_DELTA, messages: written.visibleCreated, toolCalls: written.toolCalls },
        now,
        null,
        undefined,
        {},
      );
      const preview = previewOf(await this.messages.firstVisibleUserText(tx.db, sessionId));
      await this.sessions.applyRewind(tx.db, sessionId, left, preview);
      return {
        session: toSession((await this.sessions.findById(tx.db, sessionId))!, now),
        ids: written.ids,
        replacedIds: replaced.map((row) => Number(row.id)),
      };
    });
  }
}

const hasUsage = (usage: UsageDelta) => Object.values(usage).some((value) => value !== undefined && value !== 0);

export function toolCallCount(toolCalls: string | null | undefined): number {
  if (!toolCalls) return 0;
  try {
    const parsed = JSON.parse(toolCalls);
    return Array.isArray(parsed) ? parsed.length : 0;
  } catch {
    return 0;
  }
}

type DraftRow = Omit<NewMessageRow, 'session_id' | 'substring_indexed'>;

interface Drafts {
  rows: DraftRow[];
  visible: number;
  toolCalls: number;
  preview: string | null;
}

const platformIdOf = (input: MessageInput) =>
  input.platformMessageId === undefined ? undefined : (textOrNull(input.platformMessageId) ?? undefined);

/** Message rows from inputs, before they are tied to a session; counts what the counters need. */
function draftRows(inputs: readonly MessageInput[], now: number): Drafts {
  const drafts: Drafts = { rows: [], visible: 0, toolCalls: 0, preview: null };
  for (const input of inputs) {
    const text = textOrNull(contentText(input.content));
    const structured = input.content !== undefined && input.content !== null && typeof input.content !== 'string';
    const displayKind = input.displayKind ?? 'visible';
    if (displayKind !== 'hidden') drafts.visible++;
    drafts.toolCalls += (input.toolCalls?.length ?? 0) + toolUseParts(input.content);
    if (drafts.preview === null && input.role === 'user' && displayKind !== 'hidden') drafts.preview = previewOf(text);
    drafts.rows.push({
      role: input.role,
      content: text,
      content_json: structured ? JSON.stringify(input.content) : null,
      tool_call_id: textOrNull(input.toolCallId),
      tool_calls: input.toolCalls ? JSON.stringify(input.toolCalls) : null,
      tool_name: textOrNull(input.toolName),
      timestamp: clampTimestamp(input.timestamp, now),
      token_count: input.tokenCount ?? null,
      finish_reason: textOrNull(input.finishReason),
      reasoning: textOrNull(input.reasoning),
      display_kind: displayKind,
      platform_message_id: platformIdOf(input) ?? null,
      replay_fields: storedReplayFields(input),
      reply_latency_ms: null,
      cost_usd: null,
    });
  }
  return drafts;
}

function rowFor(draft: DraftRow, sessionId: string, substringEligibleSession: boolean): NewMessageRow {
  return { ...draft, session_id: sessionId, substring_indexed: substringIndexed(substringEligibleSession, draft.role) };
}

function counterDelta(drafts: { visible: number; toolCalls: number }, usage: UsageDelta = {}) {
  return {
    messages: drafts.visible,
    toolCalls: drafts.toolCalls,
    inputTokens: usage.inputTokens ?? 0,
    outputTokens: usage.outputTokens ?? 0,
    cacheReadTokens: usage.cacheReadTokens ?? 0,
    cacheWriteTokens: usage.cacheWriteTokens ?? 0,
    reasoningTokens: usage.reasoningTokens ?? 0,
    estimatedCostUsd: usage.estimatedCostUsd ?? 0,
  };
}

const closedByCompression = () =>
  new SessionClosedError('the session was closed by compression; append to its continuation');
