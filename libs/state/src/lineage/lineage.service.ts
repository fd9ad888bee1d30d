import type {
  BranchRequest,
  ChildResponse,
  CompressRequest,
  LineageKind,
  LineageResponse,
  ResetRequest,
  TitleSource,
} from '@statehouse/contracts';
import type { Db, MessageRow, NewMessageRow, NewSessionRow, SessionRow } from '../db/database.js';
import { isAutomaticReason } from '../end-reasons.js';
import { ChunkSizer, reportChunk, STEP_BUDGET_MS, timeBoxed } from '../jobs/chunks.js';
import type { DeferredWorkService } from '../jobs/deferred-work.service.js';
import { MessageRepository } from '../messages/message.repository.js';
import { toolCallCount } from '../messages/message.service.js';
import { substringEligible } from '../messages/message-content.js';
import { isBusy, SessionRepository, toSession, ZERO_DELTA } from '../sessions/session.repository.js';
import { assertDestructiveAllowed, requireDestructivePreconditions } from '../sessions/session-guards.js';
import { SessionLifecycle } from '../sessions/session-lifecycle.js';
import { availableTitle } from '../sessions/session-titles.js';
import { canAccessProfile } from '../shared/access.js';
import { type Clock, toIso, toIsoOrNull } from '../shared/clock.js';
import type { OperationContext, Preconditions } from '../shared/context.js';
import { ConflictError, NotFoundError, SessionClosedError } from '../shared/errors.js';
import type { IdGenerator } from '../shared/ids.js';
import { sanitizeTitle } from '../shared/sanitize.js';
import type { SqlDialect } from '../shared/sql-dialect.js';
import { toDomainError } from '../shared/store-errors.js';
import type { Tx, UnitOfWork } from '../shared/unit-of-work.js';
import { LineageRepository, MAX_WALK } from './lineage.repository.js';

/** Messages a compression archives inside its own transaction; the rest follows in chunks. */
export const COMPACTION_CHUNK = 5000;
export const COMPACTION_WORK = 'compaction';

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
  private deferred: DeferredWorkService | undefined;

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

  /** Where a compression's remaining archive work goes (chunked after commit). */
  useDeferredWork(deferred: DeferredWorkService): void {
    this.deferred = deferred;
    deferred.handle(COMPACTION_WORK, (parentId, between) => this.continueCompaction(parentId, between));
  }

  /** Archives the rest of a compressed parent's transcript, a chunk per transaction. Idempotent. */
  private async continueCompaction(parentId: string, between: (lastChunkMs: number) => Promise<void>): Promise<void> {
    const sizer = new ChunkSizer(COMPACTION_CHUNK / 4, 100, 25_000, STEP_BUDGET_MS);
    for (;;) {
      const started = performance.now();
      const box = await this.uow.run(null, (tx) =>
        timeBoxed(sizer, (limit) => this.messages.markCompacted(tx.db, parentId, limit)),
      );
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
      // The title follows the conversation to its tip (titles are unique per profile).
      if (parent.title !== null) await this.sessions.update(tx.db, parent.id, { title: null, title_source: null });
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
      };
      await this.copyMessages(tx, childId, [summary, ...tail.map((row) => copyOf(row, childId))], now);
      // A huge transcript is archived in chunks after commit (deferred work), never in one long lock.
      const marked = await this.messages.markCompacted(tx.db, parent.id, COMPACTION_CHUNK);
      if (marked === COMPACTION_CHUNK) await this.deferred?.enqueue(tx, COMPACTION_WORK, parent.id);
      await this.lifecycle.clearEnd(tx, parent);
      await this.lifecycle.end(tx, parent, 'compression', now);
      const child = (await this.sessions.findById(tx.db, childId))!;
      for (const hook of this.hooks) await hook.onContinued(tx, parent, child, 'compression');
      return this.childResponse(tx, parent.id, childId, now);
    });
  }

  /** Branch: a user-visible copy of the transcript (up to a message) that diverges from here. */
  async branch(
    ctx: OperationContext,
    parentId: string,
    request: BranchRequest,
    preconditions: Preconditions,
  ): Promise<ChildResponse> {
    return this.withParent(ctx, parentId, preconditions, async (tx, parent, now) => {
      if (request.uptoMessageId !== undefined) {
        const message = await this.messages.findInSession(tx.db, parent.id, request.uptoMessageId);
        if (!message) throw new NotFoundError('message');
      }
      const childId = await this.freshChildId(tx, request.childId);
      const wanted =
        request.title !== undefined
          ? sanitizeTitle(request.title, 'user')
          : parent.title
            ? sanitizeTitle(`${parent.title} (branch)`)
            : null;
      const titleSource: TitleSource = request.title ? 'user' : 'derived';
      const title = await availableTitle(this.sessions, tx.db, parent.profile, wanted, titleSource);
      // A branch is the user's own copy: it does not take over the chat's routing identity.
      await this.sessions.insert(tx.db, {
        ...continuationOf(parent, childId, 'branch', now),
        session_key: null,
        user_id: null,
        chat_id: null,
        chat_type: null,
        thread_id: null,
        conversation_generation: 0,
        title,
        title_source: title === null ? null : titleSource,
        preview: parent.preview,
      });
      const rows = await this.messages.listActiveUpTo(tx.db, parent.id, request.uptoMessageId);
      await this.copyMessages(
        tx,
        childId,
        rows.map((row) => ({ ...copyOf(row, childId), compacted: 0 as const })),
        now,
      );
      return this.childResponse(tx, parent.id, childId, now);
    });
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
      await this.lifecycle.clearEnd(tx, parent);
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
    const visible = rows.filter((row) => row.display_kind !== 'hidden' && row.active !== 0);
    const toolCalls = rows.reduce((sum, row) => sum + toolCallCount(row.tool_calls), 0);
    await this.sessions.applyAppend(
      tx.db,
      childId,
      { ...ZERO_DELTA, messages: visible.length, toolCalls },
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

function copyOf(row: MessageRow, sessionId: string): NewMessageRow {
  return {
    session_id: sessionId,
    role: row.role,
    content: row.content,
    content_json: row.content_json,
    tool_call_id: row.tool_call_id,
    tool_calls: row.tool_calls,
    tool_name: row.tool_name,
    timestamp: Number(row.timestamp),
    token_count: row.token_count === null ? null : Number(row.token_count),
    finish_reason: row.finish_reason,
    reasoning: row.reasoning,
    display_kind: row.display_kind,
    platform_message_id: row.platform_message_id,
    substring_indexed: Number(row.substring_indexed) as 0 | 1,
  };
}
