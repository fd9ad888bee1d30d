import type {
  BranchRequest,
  ChildResponse,
  CompressRequest,
  LineageKind,
  LineageResponse,
  ResetRequest,
  TitleSource,
} from '@statehouse/contracts';
import { type BetweenChunks, ChunkSizer, reportChunk, STEP_BUDGET_MS, timeBoxed } from '../db/chunks.js';
import type { Db, NewMessageRow, NewSessionRow, SessionPatch, SessionRow } from '../db/database.js';
import type { SqlDialect } from '../db/sql-dialect.js';
import type { Tx, UnitOfWork } from '../db/unit-of-work.js';
import { isAutomaticReason } from '../domain/end-reasons.js';
import { substringEligible } from '../domain/message-content.js';
import { assertDestructiveAllowed, requireDestructivePreconditions } from '../domain/session-guards.js';
import { SessionLifecycle } from '../domain/session-lifecycle.js';
import { availableTitle } from '../domain/session-titles.js';
import { LineageRepository, MAX_WALK } from '../repositories/lineage.repository.js';
import { MessageRepository } from '../repositories/message.repository.js';
import { messageCopy } from '../repositories/message-copy.js';
import { isBusy, SessionRepository, toSession, ZERO_DELTA } from '../repositories/session.repository.js';
import { HOUR_MS, UsageRollupRepository } from '../repositories/usage-rollup.repository.js';
import { canAccessProfile } from '../shared/access.js';
import { type Clock, toIso, toIsoOrNull } from '../shared/clock.js';
import type { OperationContext, Preconditions } from '../shared/context.js';
import {
  ConflictError,
  DomainError,
  NotFoundError,
  SessionClosedError,
  StoreUnavailableError,
} from '../shared/errors.js';
import type { IdGenerator } from '../shared/ids.js';
import { sanitizeTitle } from '../shared/sanitize.js';
import { toDomainError } from '../shared/store-errors.js';
import type { DeferredWorkService } from './deferred-work.service.js';
import { type DeletionEngine, PURGE_LATER_ABOVE_MESSAGES } from './deletion.engine.js';
import { toolCallCount } from './message.service.js';

/**
 * Messages a compression archives inside its own transaction; the rest follows in time-boxed
 * chunks after commit. Marking a message compacted costs ≈ 5–7 µs on SQLite, so with 5 000 the
 * answering transaction of a 10⁵-message compression held the write lock — and the event loop —
 * 48–57 ms in one slice (in-process, idle); with 1 000, 26–30 ms, near every other step's budget.
 */
export const COMPACTION_CHUNK = 1000;
/** The continuation's first step (then sized from measured time, db/chunks.ts). */
const COMPACTION_FIRST_STEP = 1250;
export const COMPACTION_WORK = 'compaction';

/**
 * A branch copying more messages than this copies them after its first transaction, a time-boxed
 * chunk per transaction (copying 10⁵ messages in one held SQLite's write lock 7.3 s). The same
 * order as a huge session's deletion: below it, the copy stays in one transaction (≲ 30 ms).
 */
export const BRANCH_IN_CHUNKS_ABOVE = PURGE_LATER_ABOVE_MESSAGES;
/** `sessions.hidden_for` of a branch whose messages are still being copied. */
export const HIDDEN_FOR_BRANCH = 'branch';
/** Recorded with a chunked branch's hidden child, so a crash mid-copy does not leave it forever. */
export const BRANCH_COPY_WORK = 'branch-copy';
/**
 * A hidden branch whose copier has not written for this long is abandoned (its process died): the
 * deferred-work job hands it to the deletion purge. Each chunk refreshes the mark, and chunks are
 * tens of milliseconds apart, so a live copy is never this quiet.
 */
export const BRANCH_ABANDONED_AFTER_MS = 60_000;

/** How a chunked branch is made (tests shrink the threshold and watch or stall the pauses). */
export interface BranchCopyTuning {
  inChunksAbove: number;
  between: BetweenChunks;
}

/** The whole tree is bounded, like every walk. */
export const LINEAGE_TREE_LIMIT = 2000;

/** What moves with the conversation when it continues in a new segment (docs/domain.md §3, compress). */
export interface ContinuationHook {
  /** Runs inside the transaction after the child exists (routes move here). */
  onContinued(tx: Tx, from: SessionRow, to: SessionRow, kind: LineageKind): Promise<void>;
}

/**
 * Typed lineage: compress, branch and reset each write their child in one transaction with the
 * parent's change; lineage reads walk the graph bounded and cycle-guarded.
 */
export class LineageService {
  private readonly sessions: SessionRepository;
  private readonly messages = new MessageRepository();
  private readonly lineage = new LineageRepository();
  private readonly lifecycle: SessionLifecycle;
  private readonly hooks: ContinuationHook[] = [];
  private readonly usageRollups = new UsageRollupRepository();
  private deferred: DeferredWorkService | undefined;
  private purge: DeletionEngine | undefined;
  private branchCopy: BranchCopyTuning = {
    inChunksAbove: BRANCH_IN_CHUNKS_ABOVE,
    between: () => new Promise<void>((resolve) => setImmediate(resolve)),
  };

  constructor(
    private readonly db: Db,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    dialect: SqlDialect,
  ) {
    this.sessions = new SessionRepository(dialect);
    this.lifecycle = new SessionLifecycle(this.sessions);
  }

  addContinuationHook(hook: ContinuationHook): void {
    this.hooks.push(hook);
  }

  /**
   * Where a compression's remaining archive work goes (chunked after commit), and what lets a huge
   * branch copy in chunks (`between`: the pause between them; `purge`: where a branch that will
   * not be revealed goes). Without it every branch is one transaction.
   */
  useDeferredWork(deferred: DeferredWorkService, purge: DeletionEngine, between?: BetweenChunks): void {
    this.deferred = deferred;
    this.purge = purge;
    if (between) this.branchCopy = { ...this.branchCopy, between };
    deferred.handle(COMPACTION_WORK, (parentId, between) => this.continueCompaction(parentId, between));
    deferred.handle(BRANCH_COPY_WORK, (childId) => this.reapAbandonedBranch(childId));
  }

  /** Tests: a smaller threshold, an observed or stalled pause. */
  tuneBranchCopy(tuning: Partial<BranchCopyTuning>): void {
    this.branchCopy = { ...this.branchCopy, ...tuning };
  }

  /** Archives the rest of a compressed parent's transcript, a chunk per transaction. Idempotent. */
  private async continueCompaction(parentId: string, between: (lastChunkMs: number) => Promise<void>): Promise<void> {
    const sizer = new ChunkSizer(COMPACTION_FIRST_STEP, 100, 25_000, STEP_BUDGET_MS);
    // The last id a committed chunk marked: every step seeks past the archived prefix.
    let after = 0;
    for (;;) {
      const started = performance.now();
      let reached = after;
      const box = await this.uow.run(null, (tx) => {
        // A transaction run again (a retried lock) starts from the committed cursor.
        reached = after;
        return timeBoxed(sizer, async (limit) => {
          const ids = await this.messages.markCompacted(tx.db, parentId, limit, reached);
          for (const id of ids) reached = Math.max(reached, id);
          return ids.length;
        });
      });
      after = reached;
      const elapsed = performance.now() - started;
      if (box.rows > 0) reportChunk({ operation: 'compaction', heldMs: elapsed, ...box });
      if (box.done) return;
      await between(elapsed);
    }
  }

  /**
   * Compress (atomic): the parent must be open or carry an automatic end stamp (cleared); the child
   * inherits profile, routing identity, source, flags and title; the summary and the retained tail
   * are written into it; the parent's transcript is archived (compacted) and the parent ends with
   * `compression`. Concurrent compressions of one parent: exactly one wins.
   */
  async compress(
    ctx: OperationContext,
    parentId: string,
    request: CompressRequest,
    preconditions: Preconditions,
  ): Promise<ChildResponse> {
    return this.withParent(ctx, parentId, preconditions, async (tx, parent, now) => {
      assertLive(parent, 'compressed');
      const childId = await this.freshChildId(tx, request.childId);
      const tail = await this.messages.listVisibleTail(tx.db, parent.id, request.keepLastMessages);
      // The title follows the conversation to its tip (titles are unique per profile). A successful
      // compression is the recovery the anti-thrash deadline waited for: cleared with it
      // (docs/domain.md §2.2.11); the child starts without one.
      const settled: SessionPatch = {};
      if (parent.title !== null) Object.assign(settled, { title: null, title_source: null });
      if (parent.compression_retry_after !== null || parent.compression_retry_reason !== null) {
        Object.assign(settled, { compression_retry_after: null, compression_retry_reason: null });
      }
      if (Object.keys(settled).length > 0) await this.sessions.update(tx.db, parent.id, settled);
      await this.sessions.insert(tx.db, {
        ...continuationOf(parent, childId, 'compression', now),
        title: parent.title,
        title_source: parent.title_source,
        preview: parent.preview,
        generation: Number(parent.generation),
      });
      const summary: NewMessageRow = {
        session_id: childId,
        role: 'system',
        content: request.summary,
        content_json: null,
        tool_call_id: null,
        tool_calls: null,
        tool_name: null,
        timestamp: now,
        token_count: null,
        finish_reason: null,
        reasoning: null,
        display_kind: 'compaction_summary',
        platform_message_id: null,
        substring_indexed: substringEligible(parent) ? 1 : 0,
        compacted: 0,
      };
      await this.copyMessages(tx, childId, [summary, ...tail.map((row) => messageCopy(row, childId))], now);
      // A huge transcript is archived in chunks after commit (deferred work), never in one long lock.
      const marked = (await this.messages.markCompacted(tx.db, parent.id, COMPACTION_CHUNK)).length;
      if (marked === COMPACTION_CHUNK) await this.deferred?.enqueue(tx, COMPACTION_WORK, parent.id);
      await this.lifecycle.clearEnd(tx, parent, null);
      await this.lifecycle.end(tx, parent, 'compression', now);
      const child = (await this.sessions.findById(tx.db, childId))!;
      for (const hook of this.hooks) await hook.onContinued(tx, parent, child, 'compression');
      return this.childResponse(tx, parent.id, childId, now);
    });
  }

  /**
   * Branch: a user-visible copy of the transcript (up to a message) that diverges from here. A
   * small copy is one transaction; a huge one is copied first and checked and revealed last
   * (`branchInChunks`). Both answer the same child.
   */
  async branch(
    ctx: OperationContext,
    parentId: string,
    request: BranchRequest,
    preconditions: Preconditions,
  ): Promise<ChildResponse> {
    if (this.deferred) {
      requireDestructivePreconditions(preconditions);
      // Only chooses how to copy (bounded read, outside any transaction); the checks come after.
      const { inChunksAbove } = this.branchCopy;
      const copying = await this.messages
        .countActiveUpTo(this.db, parentId, request.uptoMessageId, inChunksAbove + 1)
        .catch((error) => {
          throw toDomainError(error);
        });
      if (copying > inChunksAbove) return this.branchInChunks(ctx, parentId, request, preconditions, this.deferred);
    }
    return this.withParent(ctx, parentId, preconditions, async (tx, parent, now) => {
      const childId = await this.openBranch(tx, parent, request);
      const { title, titleSource } = await this.branchTitle(tx, parent, request);
      // A branch is the user's own copy: it does not take over the chat's routing identity.
      await this.sessions.insert(tx.db, {
        ...branchOf(parent, childId, now),
        title,
        title_source: title === null ? null : titleSource,
      });
      const rows = await this.messages.listActiveUpTo(tx.db, parent.id, request.uptoMessageId);
      await this.copyMessages(
        tx,
        childId,
        rows.map((row) => messageCopy(row, childId)),
        now,
      );
      return this.childResponse(tx, parent.id, childId, now);
    });
  }

  /**
   * A huge branch, copy first, check and reveal last: (1) a short transaction checks the request
   * as the one-transaction path does and writes the child hidden (`hidden_for = 'branch'`) with
   * the copy's upper bound fixed and deferred work recorded against a crash; (2) the messages go
   * in time-boxed chunks, a transaction each; (3) a last transaction checks the parent's tokens
   * again — anything that moved it meanwhile came first, and the branch answers as it would have
   * with those tokens then (412/409/404) — and reveals the child with its counters and title,
   * writing the Idempotency-Key's record. A failed branch's child goes to the deletion purge.
   */
  private async branchInChunks(
    ctx: OperationContext,
    parentId: string,
    request: BranchRequest,
    preconditions: Preconditions,
    deferred: DeferredWorkService,
  ): Promise<ChildResponse> {
    // Only the revealing transaction records the answer (the whole answer, once).
    const chunkCtx: OperationContext = { ...ctx, idempotency: undefined };
    const opened = await this.withParent(chunkCtx, parentId, preconditions, async (tx, parent, now) => {
      const childId = await this.openBranch(tx, parent, request);
      const uptoId = request.uptoMessageId ?? (await this.messages.lastId(tx.db, parent.id));
      // A user title already taken fails now, not after the copy; the title itself is taken when
      // the child is revealed (titles are unique per profile, and a hidden row must not hold one).
      await this.branchTitle(tx, parent, request);
      await this.sessions.insert(tx.db, { ...branchOf(parent, childId, now), hidden_for: HIDDEN_FOR_BRANCH });
      // The insert trigger counted its start; it counts when the branch becomes visible.
      await this.usageRollups.removeSession(tx.db, childId);
      await deferred.enqueue(tx, BRANCH_COPY_WORK, childId);
      return { childId, uptoId, startedAt: now };
    });
    const { childId } = opened;
    try {
      const copied = await this.copyInChunks(parentId, childId, opened.uptoId);
      return await this.withParent(ctx, parentId, preconditions, async (tx, parent, now) => {
        const child = await this.sessions.findIncludingHidden(tx.db, childId);
        if (child?.hidden_for !== HIDDEN_FOR_BRANCH) throw branchRemoved(childId);
        const { title, titleSource } = await this.branchTitle(tx, parent, request);
        await this.sessions.reveal(tx.db, childId, HIDDEN_FOR_BRANCH, {
          title,
          title_source: title === null ? null : titleSource,
          last_activity_at: opened.startedAt,
        });
        const startedAt = Number(child.started_at);
        // What the insert trigger counts for a visible session (as the importer's last chunk does).
        await this.usageRollups.record(tx.db, [
          {
            sessionId: childId,
            hourStart: startedAt - (startedAt % HOUR_MS),
            source: child.source,
            model: child.model ?? '',
            profile: child.profile,
            conversations: Number(child.delegated) === 0 ? 1 : 0,
            sessions: 1,
          },
        ]);
        await this.applyCopiedCounters(tx, childId, copied, opened.startedAt);
        await deferred.complete(tx, BRANCH_COPY_WORK, childId);
        return this.childResponse(tx, parent.id, childId, now);
      });
    } catch (error) {
      await this.abandonBranch(childId).catch(() => {
        // The recorded deferred work removes it once it is stale.
      });
      throw error;
    }
  }

  /** Copies the parent's active messages `≤ uptoId` into the hidden child, a time-boxed chunk per transaction. */
  private async copyInChunks(parentId: string, childId: string, uptoId: number): Promise<CopiedCounts> {
    const sizer = new ChunkSizer(BRANCH_IN_CHUNKS_ABOVE / 4, 100, 25_000, STEP_BUDGET_MS);
    const copied: CopiedCounts = { messages: 0, toolCalls: 0 };
    let after = 0;
    for (;;) {
      const started = performance.now();
      const box = await this.uow.run(null, async (tx) => {
        // Still ours (not purged as abandoned while this process stood still), and alive for the reaper.
        if (!(await this.sessions.touchHidden(tx.db, childId, HIDDEN_FOR_BRANCH, this.clock.now()))) {
          throw branchRemoved(childId);
        }
        let cursor = after;
        const counts = { ...copied };
        const box = await timeBoxed(sizer, async (limit) => {
          const rows = await this.messages.listActiveBetween(tx.db, parentId, cursor, uptoId, limit);
          if (rows.length === 0) return 0;
          const copies = rows.map((row) => messageCopy(row, childId));
          await this.messages.insertMany(tx.db, copies);
          cursor = Number(rows[rows.length - 1].id);
          counts.messages += countedMessages(copies);
          counts.toolCalls += copies.reduce((sum, row) => sum + toolCallCount(row.tool_calls), 0);
          return rows.length;
        });
        return { box, cursor, counts };
      });
      const elapsed = performance.now() - started;
      // Committed: only now does the cursor move (a rolled-back chunk ends the branch anyway).
      after = box.cursor;
      Object.assign(copied, box.counts);
      if (box.box.rows > 0) reportChunk({ operation: 'branch', heldMs: elapsed, ...box.box });
      if (box.box.done) return copied;
      await this.branchCopy.between(elapsed);
    }
  }

  /** Hands a hidden branch that will not be revealed to the deletion purge (chunked, idempotent). */
  private async abandonBranch(childId: string): Promise<void> {
    await this.uow.run(null, async (tx) => {
      const row = await this.sessions.findIncludingHidden(tx.db, childId);
      if (row?.hidden_for === HIDDEN_FOR_BRANCH) await this.handToPurge(tx, childId);
    });
  }

  /**
   * The deferred work recorded with a chunked branch: a hidden child nobody has copied into for
   * a while was abandoned by a process that died; a fresh one is another process's live copy and
   * stays (the row too, for a later pass). Idempotent: a revealed or removed child ends it.
   */
  private async reapAbandonedBranch(childId: string): Promise<undefined | 'later'> {
    return this.uow.run(null, async (tx) => {
      const row = await this.sessions.findIncludingHidden(tx.db, childId);
      if (row?.hidden_for !== HIDDEN_FOR_BRANCH) return undefined;
      if (this.clock.now() - Number(row.last_activity_at) < BRANCH_ABANDONED_AFTER_MS) return 'later';
      await this.handToPurge(tx, childId);
      return undefined;
    });
  }

  private async handToPurge(tx: Tx, childId: string): Promise<void> {
    await this.purge!.purgeLater(tx, [childId]);
    await this.deferred!.complete(tx, BRANCH_COPY_WORK, childId);
  }

  /** The checks both branch paths make in their first transaction; the child's id. */
  private async openBranch(tx: Tx, parent: SessionRow, request: BranchRequest): Promise<string> {
    if (request.uptoMessageId !== undefined) {
      const message = await this.messages.findInSession(tx.db, parent.id, request.uptoMessageId);
      if (!message) throw new NotFoundError('message');
    }
    return this.freshChildId(tx, request.childId);
  }

  private async branchTitle(
    tx: Tx,
    parent: SessionRow,
    request: BranchRequest,
  ): Promise<{ title: string | null; titleSource: TitleSource }> {
    const wanted =
      request.title !== undefined
        ? sanitizeTitle(request.title, 'user')
        : parent.title
          ? sanitizeTitle(`${parent.title} (branch)`)
          : null;
    const titleSource: TitleSource = request.title ? 'user' : 'derived';
    const title = await availableTitle(this.sessions, tx.db, parent.profile, wanted, titleSource);
    return { title, titleSource };
  }

  /**
   * Reset (`/new`, idle or daily reset): ends the session with a reset reason — a deliberate
   * boundary that bumps the peer's conversation generation — and starts a fresh session on the same
   * routing key, in one transaction.
   */
  async reset(
    ctx: OperationContext,
    sessionId: string,
    request: ResetRequest,
    preconditions: Preconditions,
  ): Promise<ChildResponse> {
    return this.withParent(ctx, sessionId, preconditions, async (tx, parent, now) => {
      assertLive(parent, 'reset');
      const childId = await this.freshChildId(tx, request.childId);
      await this.lifecycle.clearEnd(tx, parent, null);
      const boundary = await this.lifecycle.end(tx, parent, request.reason, now);
      await this.sessions.insert(tx.db, {
        ...continuationOf(parent, childId, 'reset', now),
        // A switch may move the conversation to another bot or adapter (docs/domain.md §2.2).
        transport_profile: request.transportProfile ?? parent.transport_profile,
        title: null,
        title_source: null,
        conversation_generation: boundary.conversationGeneration ?? Number(parent.conversation_generation),
      });
      const child = (await this.sessions.findById(tx.db, childId))!;
      for (const hook of this.hooks) await hook.onContinued(tx, parent, child, 'reset');
      return this.childResponse(tx, parent.id, childId, now);
    });
  }

  /**
   * The lineage of a session (its compression chain root → tip, through this session) and the whole
   * tree reachable through all four edge kinds, bounded.
   */
  async lineageOf(ctx: OperationContext, id: string): Promise<LineageResponse> {
    try {
      const row = await this.sessions.findById(this.db, id);
      if (!row || !canAccessProfile(ctx.principal, row.profile)) throw new NotFoundError('session');
      const back = await this.lineage.compressionPathTo(this.db, id);
      const forward = await this.lineage.compressionPathFrom(this.db, id);
      const chain = [...new Set([...back, ...forward])];
      const treeRootId = await this.lineage.treeRootOf(this.db, id);
      const tree = await this.lineage.subtree(this.db, treeRootId, LINEAGE_TREE_LIMIT);
      const now = this.clock.now();
      const inTree = new Set(tree.rows.map((node) => node.id));
      const nodes = tree.rows
        .filter((node) => node.profile === row.profile)
        .map((node) => ({
          id: node.id,
          parentSessionId: node.parent_session_id,
          lineageKind: node.lineage_kind as LineageKind | null,
          title: node.title,
          source: node.source,
          startedAt: toIso(Number(node.started_at)),
          endedAt: toIsoOrNull(node.ended_at === null ? null : Number(node.ended_at)),
          endReason: node.end_reason,
          messageCount: Number(node.message_count),
          busy: isBusy(node, now),
        }));
      const edges = nodes
        .filter(
          (node) => node.parentSessionId !== null && node.lineageKind !== null && inTree.has(node.parentSessionId),
        )
        .map((node) => ({ from: node.parentSessionId!, to: node.id, kind: node.lineageKind! }));
      // A walk that reached its bound may have stopped short of the real root or tip: say so.
      const walkCut = back.length > MAX_WALK || forward.length > MAX_WALK;
      return {
        rootId: chain[0],
        tipId: chain[chain.length - 1],
        chain,
        treeRootId,
        nodes,
        edges,
        truncated: tree.truncated || walkCut,
      };
    } catch (error) {
      throw toDomainError(error);
    }
  }

  private async copyMessages(tx: Tx, childId: string, rows: NewMessageRow[], now: number): Promise<void> {
    if (rows.length === 0) return;
    await this.messages.insertMany(tx.db, rows);
    const toolCalls = rows.reduce((sum, row) => sum + toolCallCount(row.tool_calls), 0);
    await this.applyCopiedCounters(tx, childId, { messages: countedMessages(rows), toolCalls }, now);
  }

  /** A copy's counters, without a revision bump (a new child starts at its first revision). */
  private async applyCopiedCounters(tx: Tx, childId: string, copied: CopiedCounts, now: number): Promise<void> {
    if (copied.messages === 0 && copied.toolCalls === 0) return;
    await this.sessions.applyAppend(
      tx.db,
      childId,
      { ...ZERO_DELTA, messages: copied.messages, toolCalls: copied.toolCalls },
      now,
      null,
      undefined,
      {},
      false,
    );
  }

  private async childResponse(tx: Tx, parentId: string, childId: string, now: number): Promise<ChildResponse> {
    const [parent, child] = await Promise.all([
      this.sessions.findById(tx.db, parentId),
      this.sessions.findById(tx.db, childId),
    ]);
    return { parent: toSession(parent!, now), child: toSession(child!, now) };
  }

  /** A destructive lineage operation on a locked, fenced parent whose tokens were checked. */
  private withParent<T>(
    ctx: OperationContext,
    id: string,
    preconditions: Preconditions,
    work: (tx: Tx, parent: SessionRow, now: number) => Promise<T>,
  ): Promise<T> {
    requireDestructivePreconditions(preconditions);
    return this.uow.run(ctx, async (tx) => {
      const now = this.clock.now();
      const parent = await this.sessions.findByIdForUpdate(tx.db, id);
      if (!parent || !canAccessProfile(ctx.principal, parent.profile)) throw new NotFoundError('session');
      assertDestructiveAllowed(parent, preconditions, now);
      return work(tx, parent, now);
    });
  }

  private async freshChildId(tx: Tx, requested: string | undefined): Promise<string> {
    const id = requested ?? this.ids.next();
    if (await this.sessions.exists(tx.db, id)) throw new ConflictError(`session ${id} already exists`);
    return id;
  }
}

interface CopiedCounts {
  messages: number;
  toolCalls: number;
}

/** Copied messages that count in `message_count`: shown and active. */
function countedMessages(rows: readonly NewMessageRow[]): number {
  return rows.filter((row) => row.display_kind !== 'hidden' && row.active !== 0).length;
}

/** A chunked branch's hidden child is gone (purged as abandoned while this process stood still). */
function branchRemoved(childId: string): DomainError {
  return new StoreUnavailableError(
    `branch ${childId} was removed while its messages were being copied (taken for abandoned); branch again`,
  );
}

/** A branch is the user's own copy: it does not take over the chat's routing identity. */
function branchOf(parent: SessionRow, childId: string, now: number): NewSessionRow {
  return {
    ...continuationOf(parent, childId, 'branch', now),
    session_key: null,
    user_id: null,
    chat_id: null,
    chat_type: null,
    thread_id: null,
    conversation_generation: 0,
    preview: parent.preview,
  };
}

/** Open, or carrying an automatic end stamp a liveness proof may clear (docs/domain.md §4). */
function assertLive(parent: SessionRow, operation: string): void {
  if (parent.ended_at !== null && !isAutomaticReason(parent.end_reason)) {
    throw new SessionClosedError(`the session ended (${parent.end_reason}); it cannot be ${operation}`);
  }
}

/** A new segment carrying the parent's identity: profile, surface, routing, model and flags. */
function continuationOf(parent: SessionRow, id: string, kind: LineageKind, now: number): NewSessionRow {
  return {
    id,
    profile: parent.profile,
    source: parent.source,
    // Provenance is the conversation's: the root's first surface, whatever surface resumed it since.
    created_source: parent.created_source,
    session_key: parent.session_key,
    user_id: parent.user_id,
    chat_id: parent.chat_id,
    chat_type: parent.chat_type,
    thread_id: parent.thread_id,
    display_name: parent.display_name,
    origin: parent.origin,
    transport_profile: parent.transport_profile,
    model: parent.model,
    model_config: parent.model_config,
    // The tools the conversation was offered go on with it until the runtime re-pins them.
    tool_names: parent.tool_names,
    title: null,
    title_source: null,
    parent_session_id: parent.id,
    lineage_kind: kind,
    started_at: now,
    last_activity_at: now,
    archived: Number(parent.archived) as 0 | 1,
    pinned: Number(parent.pinned) as 0 | 1,
    hidden: Number(parent.hidden) as 0 | 1,
    delegated: kind === 'compression' ? (Number(parent.delegated) as 0 | 1) : 0,
    conversation_generation: Number(parent.conversation_generation),
    // The gateway serving the conversation keeps owning it in its next segment.
    gateway_id: kind === 'branch' ? null : parent.gateway_id,
    gateway_started_at: kind === 'branch' ? null : parent.gateway_started_at,
  };
}
