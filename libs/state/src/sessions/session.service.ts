import {
  type CreateSessionCommand,
  type EndSessionRequest,
  instantMs,
  type ListSessionsQuery,
  type ReopenSessionRequest,
  SESSION_LIST_TOTAL_BOUND,
  type Session,
  type SessionListItem,
  type SessionListResponse,
  type TitleSource,
  type UpdateSessionRequest,
} from '@statehouse/contracts';
import type { Db, SessionPatch, SessionRow } from '../db/database.js';
import { reopenVerdict } from '../end-reasons.js';
import { gatewayOwnership } from '../gateways/gateway-owner.js';
import { ConversationGenerationRepository } from '../generations/conversation-generation.repository.js';
import type { HookRegistry } from '../hooks/hook-registry.js';
import { type ChainUsage, LineageRepository } from '../lineage/lineage.repository.js';
import type { MessageService } from '../messages/message.service.js';
import { ProfileRepository } from '../profiles/profile.repository.js';
import { canAccessProfile, profileScope } from '../shared/access.js';
import { type Clock, toIso } from '../shared/clock.js';
import type { OperationContext, Preconditions } from '../shared/context.js';
import { CursorPart, cursorShape, decodeCursor, encodeCursor } from '../shared/cursor.js';
import {
  ConflictError,
  NotFoundError,
  PreconditionRequiredError,
  ReopenNotPermittedError,
  RevisionConflictError,
  SessionClosedError,
  TitleConflictError,
} from '../shared/errors.js';
import type { IdGenerator } from '../shared/ids.js';
import { textOrNull, toJsonOrNull } from '../shared/json.js';
import { sanitizeTitle, titleKind, titleMayReplace } from '../shared/sanitize.js';
import { isUniqueViolation, type SqlDialect } from '../shared/sql-dialect.js';
import { toDomainError } from '../shared/store-errors.js';
import type { Tx, UnitOfWork } from '../shared/unit-of-work.js';
import { type SessionListFilter, SessionRepository, toSession, ZERO_DELTA } from './session.repository.js';
import { assertWriterMayProceed, requireIfMatch } from './session-guards.js';
import { SessionLifecycle } from './session-lifecycle.js';
import { availableTitle } from './session-titles.js';

export class SessionService {
  private readonly sessions: SessionRepository;
  private readonly lineage = new LineageRepository();
  private readonly profiles = new ProfileRepository();
  private readonly generations = new ConversationGenerationRepository();
  private readonly lifecycle: SessionLifecycle;

  constructor(
    private readonly db: Db,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    dialect: SqlDialect,
    private readonly messages: MessageService,
    private readonly hooks: HookRegistry,
    /** Where listings read: the read pool on SQLite (a deadline, off the event loop). */
    private readonly reads: Db = db,
  ) {
    this.sessions = new SessionRepository(dialect);
    this.lifecycle = new SessionLifecycle(this.sessions);
  }

  /**
   * Creates a session — with its opening messages in the same transaction, durable from that
   * moment. A member naming a profile outside its set is answered as if the profile did not exist.
   */
  async create(ctx: OperationContext, request: CreateSessionCommand): Promise<Session> {
    if (!canAccessProfile(ctx.principal, request.profile)) throw new NotFoundError('profile');
    return this.uow.run(ctx, async (tx) => {
      const now = this.clock.now();
      await this.profiles.ensure(tx.db, request.profile, now);
      const id = request.id ?? this.ids.next();
      if (await this.sessions.exists(tx.db, id)) throw new ConflictError(`session ${id} already exists`);
      let delegated: 0 | 1 = 0;
      let createdSource = request.source;
      let flags: Pick<SessionPatch, 'archived' | 'pinned' | 'hidden'> = {};
      if (request.parentSessionId !== undefined) {
        const parent = await this.sessions.findById(tx.db, request.parentSessionId);
        if (!parent || parent.profile !== request.profile || !canAccessProfile(ctx.principal, parent.profile)) {
          throw new NotFoundError('parent session');
        }
        if (request.lineageKind === 'delegate') delegated = 1;
        // A continuation keeps the conversation's provenance: the root's first surface (docs/domain.md §2.2).
        else createdSource = parent.created_source;
        if (request.lineageKind === 'compression') {
          delegated = Number(parent.delegated) as 0 | 1;
          // Archive, pin and hide apply to the whole compression lineage (docs/domain.md §3).
          flags = {
            archived: Number(parent.archived) as 0 | 1,
            pinned: Number(parent.pinned) as 0 | 1,
            hidden: Number(parent.hidden) as 0 | 1,
          };
        }
      }
      const owner = request.gatewayId ? await gatewayOwnership(tx.db, request.gatewayId, request.profile) : {};
      const conversationGeneration = request.sessionKey
        ? await this.generations.current(tx.db, createdSource, textOrNull(request.sessionKey)!)
        : 0;
      const titleSource: TitleSource = request.titleSource ?? 'user';
      const title = await availableTitle(
        this.sessions,
        tx.db,
        request.profile,
        sanitizeTitle(request.title, titleKind(titleSource)),
        titleSource,
        id,
      );
      try {
        await this.sessions.insert(tx.db, {
          id,
          profile: request.profile,
          source: request.source,
          created_source: createdSource,
          ...flags,
          ...owner,
          session_key: textOrNull(request.sessionKey),
          user_id: textOrNull(request.userId),
          chat_id: textOrNull(request.chatId),
          chat_type: textOrNull(request.chatType),
          thread_id: textOrNull(request.threadId),
          display_name: textOrNull(request.displayName),
          origin: toJsonOrNull(request.origin),
          transport_profile: textOrNull(request.transportProfile),
          model: textOrNull(request.model),
          model_config: toJsonOrNull(request.modelConfig),
          title,
          title_source: title === null ? null : titleSource,
          parent_session_id: request.parentSessionId ?? null,
          lineage_kind: request.lineageKind ?? null,
          delegated,
          conversation_generation: conversationGeneration,
          started_at: now,
          last_activity_at: now,
        });
      } catch (error) {
        if (isUniqueViolation(error, 'title')) throw new TitleConflictError(title ?? '');
        if (isUniqueViolation(error)) throw new ConflictError(`session ${id} already exists`);
        throw error;
      }
      if (request.messages?.length) {
        const row = (await this.sessions.findById(tx.db, id))!;
        const written = await this.messages.write(tx, row, request.messages);
        await this.sessions.applyAppend(
          tx.db,
          id,
          { ...ZERO_DELTA, messages: written.visibleCreated, toolCalls: written.toolCalls },
          now,
          written.preview,
          undefined,
          {},
          false,
        );
      }
      return toSession((await this.sessions.findById(tx.db, id))!, this.clock.now());
    });
  }

  async get(ctx: OperationContext, id: string): Promise<Session> {
    return toSession(await this.readVisible(ctx, id), this.clock.now());
  }

  /** The raw row after the owner fence — for other services of the state layer. */
  async readVisible(ctx: OperationContext, id: string): Promise<SessionRow> {
    try {
      const row = await this.sessions.findById(this.db, id);
      if (!row || !canAccessProfile(ctx.principal, row.profile)) throw new NotFoundError('session');
      return row;
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /**
   * One row per logical conversation, compression chains projected onto their tip (docs/domain.md §3), with
   * the conversation's token and cost counters summed over its segments. Pages both ways by
   * keyset (`nextCursor` older, `prevCursor` newer) and counts the matches up to a bound.
   */
  async list(
    ctx: OperationContext,
    query: Omit<ListSessionsQuery, 'includeHidden'> & { includeHidden?: boolean },
  ): Promise<SessionListResponse> {
    try {
      const scope = profileScope(ctx.principal);
      const empty = { items: [], nextCursor: null, prevCursor: null, total: { count: 0, exact: true } };
      if (query.profile && !canAccessProfile(ctx.principal, query.profile)) return empty;
      const position = query.cursor ? decodeListCursor(query.cursor) : undefined;
      const filter: SessionListFilter = {
        profiles: scope,
        profile: query.profile,
        source: query.source,
        model: query.model,
        userId: query.userId,
        status: query.status,
        archived: query.archived,
        includeChildren: query.includeChildren,
        includeHidden: query.includeHidden ?? false,
        handoff: query.handoff,
        // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL cannot reach PostgreSQL text.
        q: query.q?.replace(/[\u0000-\u001F]/g, ' ').trim() || undefined,
        started: timeRange(query.startedFrom, query.startedTo),
        active: timeRange(query.activeFrom, query.activeTo),
        order: query.order,
        limit: query.limit + 1,
      };
      const orderKey = (row: SessionRow) => Number(query.order === 'recent' ? row.last_activity_at : row.started_at);
      let page: SessionRow[];
      let nextCursor: string | null;
      let prevCursor: string | null;
      const firstPage = async () => {
        const rows = await this.sessions.listConversationTips(this.reads, filter);
        page = rows.slice(0, query.limit);
        nextCursor =
          rows.length > query.limit
            ? encodeListCursor('next', orderKey(page[page.length - 1]), page[page.length - 1].id)
            : null;
        prevCursor = null;
      };
      if (!position) {
        await firstPage();
      } else if (position.direction === 'next') {
        const rows = await this.sessions.listConversationTips(this.reads, { ...filter, after: position });
        page = rows.slice(0, query.limit);
        const last = page[page.length - 1];
        nextCursor = rows.length > query.limit ? encodeListCursor('next', orderKey(last), last.id) : null;
        // Rows came before this page (the reader paged past them); the previous page starts above its first row.
        prevCursor =
          page.length > 0
            ? encodeListCursor('prev', orderKey(page[0]), page[0].id)
            : encodeListCursor('prev', position.at, position.id);
      } else {
        const newer = await this.sessions.listConversationTips(this.reads, { ...filter, before: position });
        if (newer.length <= query.limit) {
          // Back at the top: the first page itself, full, so paging back never shows a short page.
          await firstPage();
        } else {
          page = newer.slice(0, query.limit).reverse();
          prevCursor = encodeListCursor('prev', orderKey(page[0]), page[0].id);
          nextCursor = encodeListCursor('next', orderKey(page[page.length - 1]), page[page.length - 1].id);
        }
      }
      const counted = await this.sessions.countConversationTips(this.reads, filter, SESSION_LIST_TOTAL_BOUND);
      const usage = await this.lineage.chainUsageOf(
        this.reads,
        page!.filter((row) => row.lineage_kind === 'compression').map((row) => row.id),
      );
      const now = this.clock.now();
      const items: SessionListItem[] = page!.map((row) => {
        const chain = usage.get(row.id) ?? ownUsage(row);
        const session = toSession(row, now);
        const end = row.ended_at === null ? Number(row.last_activity_at) : Number(row.ended_at);
        return {
          ...session,
          rootId: chain.rootId,
          conversationStartedAt: toIso(chain.rootStartedAt),
          preview: row.preview,
          lastActiveAt: session.lastActivityAt,
          durationMs: Math.max(0, end - chain.rootStartedAt),
          conversationUsage: {
            segments: chain.segments,
            messageCount: chain.messageCount,
            inputTokens: chain.inputTokens,
            outputTokens: chain.outputTokens,
            cacheReadTokens: chain.cacheReadTokens,
            cacheWriteTokens: chain.cacheWriteTokens,
            reasoningTokens: chain.reasoningTokens,
            totalTokens: chain.inputTokens + chain.outputTokens,
            estimatedCostUsd: chain.estimatedCostUsd,
          },
        };
      });
      return {
        items,
        nextCursor: nextCursor!,
        prevCursor: prevCursor!,
        total: { count: Math.min(counted, SESSION_LIST_TOTAL_BOUND), exact: counted <= SESSION_LIST_TOTAL_BOUND },
      };
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /**
   * Title, flags and source, under If-Match. Archive, pin and hide apply to the whole compression
   * lineage; every row that changes gets its own revision bump.
   */
  async update(
    ctx: OperationContext,
    id: string,
    request: UpdateSessionRequest,
    preconditions: Preconditions,
  ): Promise<Session> {
    if (preconditions.ifMatch === undefined) throw new PreconditionRequiredError('If-Match');
    return this.uow.run(ctx, async (tx) => {
      const row = await this.sessions.findByIdForUpdate(tx.db, id);
      if (!row || !canAccessProfile(ctx.principal, row.profile)) throw new NotFoundError('session');
      if (Number(row.revision) !== preconditions.ifMatch) throw new RevisionConflictError(Number(row.revision));

      const patch: SessionPatch = {};
      if (request.title !== undefined) {
        const incoming: TitleSource = request.titleSource ?? 'user';
        const wanted = sanitizeTitle(request.title, titleKind(incoming));
        if (titleMayReplace(row.title === null ? null : (row.title_source as TitleSource | null), incoming)) {
          const title = await availableTitle(this.sessions, tx.db, row.profile, wanted, incoming, row.id);
          if (title !== row.title) {
            patch.title = title;
            patch.title_source = title === null ? null : incoming;
          }
        }
      }
      if (request.source !== undefined && request.source !== row.source) patch.source = request.source;
      if (request.transportProfile !== undefined && request.transportProfile !== row.transport_profile) {
        patch.transport_profile = textOrNull(request.transportProfile ?? undefined);
      }
      // Where the conversation is delivered is a writer's change: fenced like an append while a
      // turn is live. Titles and flags are presentation and need If-Match only (docs/domain.md §4.6).
      if (patch.source !== undefined || patch.transport_profile !== undefined) {
        assertWriterMayProceed(row, preconditions, this.clock.now());
      }
      const flags: SessionPatch = {};
      for (const flag of ['archived', 'pinned', 'hidden'] as const) {
        const value = request[flag];
        if (value !== undefined && (value ? 1 : 0) !== Number(row[flag])) flags[flag] = value ? 1 : 0;
      }
      if (Object.keys(patch).length === 0 && Object.keys(flags).length === 0) return toSession(row, this.clock.now());

      try {
        const updated = await this.sessions.update(tx.db, id, { ...patch, ...flags }, preconditions.ifMatch);
        if (!updated) throw new RevisionConflictError(Number(row.revision));
      } catch (error) {
        if (isUniqueViolation(error, 'title')) throw new TitleConflictError(String(patch.title));
        throw error;
      }
      if (Object.keys(flags).length > 0) {
        const members = await this.lineage.compressionChainMembers(tx.db, id);
        for (const member of members) {
          if (member !== id) await this.sessions.update(tx.db, member, flags);
        }
        if (flags.archived === 1) {
          // A deliberate archive tells plugins they may release what they hold (no receipt: nothing was removed).
          const event = {
            operationId: this.ids.next(),
            reason: 'archive' as const,
            origin: ctx.channel === 'dashboard' ? ('user_dashboard' as const) : ('user_api' as const),
            intent: 'explicit_user' as const,
            profile: row.profile,
            sessionId: id,
            deletedIds: [],
            archivedIds: members,
          };
          tx.afterCommit(() => this.hooks.dispatchSessionDeleted(event));
        }
      }
      return toSession((await this.sessions.findById(tx.db, id))!, this.clock.now());
    });
  }

  /** First end wins: ending an ended session changes nothing and answers it as it stands. */
  async end(
    ctx: OperationContext,
    id: string,
    request: EndSessionRequest,
    preconditions: Preconditions,
  ): Promise<Session> {
    requireIfMatch(preconditions);
    return this.uow.run(ctx, async (tx) => {
      const row = await this.lockVisible(tx, ctx, id);
      if (Number(row.revision) !== preconditions.ifMatch) throw new RevisionConflictError(Number(row.revision));
      assertWriterMayProceed(row, preconditions, this.clock.now());
      if (row.ended_at === null) await this.lifecycle.end(tx, row, request.reason, this.clock.now());
      return toSession((await this.sessions.findById(tx.db, id))!, this.clock.now());
    });
  }

  /**
   * Clears an end stamp (docs/domain.md §4.5): automatic ones always; a deliberate close only for a
   * caller naming the transport the conversation is delivered through, or a dashboard user — and
   * never once a continuation exists; compression, branched and resets never. Clearing a
   * deliberate close is recorded in the transcript (a `session_meta` message).
   */
  async reopen(
    ctx: OperationContext,
    id: string,
    request: ReopenSessionRequest,
    preconditions: Preconditions,
  ): Promise<Session> {
    requireIfMatch(preconditions);
    return this.uow.run(ctx, async (tx) => {
      const row = await this.lockVisible(tx, ctx, id);
      const now = this.clock.now();
      if (Number(row.revision) !== preconditions.ifMatch) throw new RevisionConflictError(Number(row.revision));
      if (row.ended_at === null) return toSession(row, now);
      assertWriterMayProceed(row, preconditions, now);
      const verdict = reopenVerdict(row.end_reason);
      if (verdict === 'never') {
        throw new SessionClosedError(`ended with ${row.end_reason}: that end is final; continue in a new session`);
      }
      if (verdict === 'explicit_only') {
        if (await this.sessions.hasCompressionChild(tx.db, id)) {
          throw new SessionClosedError('the conversation continues in a compression child; reopen that instead');
        }
        const routingTransport = row.transport_profile ?? row.source;
        const named = request.transportProfile ?? request.host;
        const byDashboard = ctx.channel === 'dashboard';
        if (!byDashboard && named !== routingTransport) {
          throw new ReopenNotPermittedError(
            `ended with ${row.end_reason} (a deliberate close): only the transport that delivers this conversation (name it: transportProfile "${routingTransport}") or a dashboard user may reopen it`,
          );
        }
        await this.lifecycle.clearEnd(tx, row);
        await this.recordReopen(tx, row, ctx, byDashboard ? null : routingTransport, now);
      } else {
        await this.lifecycle.clearEnd(tx, row);
      }
      return toSession((await this.sessions.findById(tx.db, id))!, now);
    });
  }

  /** Who cleared a deliberate close, kept in the transcript itself (role `session_meta`). */
  private async recordReopen(
    tx: Tx,
    row: SessionRow,
    ctx: OperationContext,
    transport: string | null,
    now: number,
  ): Promise<void> {
    const by = transport === null ? `${ctx.principal.name} (dashboard)` : `transport ${transport}`;
    const written = await this.messages.write(tx, row, [
      {
        role: 'session_meta',
        content: {
          type: 'reopened',
          text: `Reopened by ${by} after ${row.end_reason}`,
          clearedEndReason: row.end_reason,
          by: { kind: ctx.principal.kind, id: ctx.principal.id, name: ctx.principal.name, channel: ctx.channel },
          transportProfile: transport,
        },
      },
    ]);
    await this.sessions.applyAppend(
      tx.db,
      row.id,
      { ...ZERO_DELTA, messages: written.visibleCreated },
      now,
      null,
      undefined,
      {},
      false,
    );
  }

  private async lockVisible(tx: Tx, ctx: OperationContext, id: string): Promise<SessionRow> {
    const row = await this.sessions.findByIdForUpdate(tx.db, id);
    if (!row || !canAccessProfile(ctx.principal, row.profile)) throw new NotFoundError('session');
    return row;
  }

  /** JSON lines: the session, every message (hidden and rewound included), its lineage edges. */
  async *export(ctx: OperationContext, id: string): AsyncGenerator<Record<string, unknown>> {
    const row = await this.readVisible(ctx, id);
    yield { type: 'session', session: toSession(row, this.clock.now()) };
    let cursor: string | undefined;
    do {
      const page = await this.messages.list(
        ctx,
        id,
        { cursor, limit: 1000, includeCompacted: true, includeHidden: true, includeInactive: true, order: 'oldest' },
        { bulk: true },
      );
      for (const message of page.items) yield { type: 'message', message };
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    if (row.parent_session_id && row.lineage_kind) {
      yield { type: 'edge', from: row.parent_session_id, to: row.id, kind: row.lineage_kind };
    }
    for (const child of await this.sessions.childrenOf(this.db, [row.id])) {
      if (child.lineage_kind) yield { type: 'edge', from: row.id, to: child.id, kind: child.lineage_kind };
    }
  }

  /**
   * Test fixtures only: an end stamp without the lifecycle rules — e.g. `compression` on a row with
   * no continuation, which the end operation (`end`, docs/domain.md §4) rightly refuses. The demo
   * seed ends its sessions through `end` and the lineage operations, never through this.
   */
  async stampEndForSeed(id: string, endedAt: number, reason: string): Promise<void> {
    await this.uow.run(null, async (tx) => {
      await this.sessions.stampEnd(tx.db, id, endedAt, reason);
    });
  }
}

/** List cursors: the key of a page's edge row and which way the next request walks from it. */
function encodeListCursor(direction: 'next' | 'prev', at: number, id: string): string {
  return direction === 'next' ? encodeCursor([at, id]) : encodeCursor(['prev', at, id]);
}

/** (last activity or start, id) of the row a page ends at; `prev` first for a page above it. */
const NEXT_CURSOR = cursorShape(CursorPart.epochMs, CursorPart.text);
const PREV_CURSOR = cursorShape(CursorPart.tag('prev'), CursorPart.epochMs, CursorPart.text);

function decodeListCursor(cursor: string): { direction: 'next' | 'prev'; at: number; id: string } {
  try {
    const [at, id] = decodeCursor(cursor, NEXT_CURSOR);
    return { direction: 'next', at, id };
  } catch {
    const [, at, id] = decodeCursor(cursor, PREV_CURSOR);
    return { direction: 'prev', at, id };
  }
}

function timeRange(from: string | undefined, to: string | undefined): { from?: number; to?: number } | undefined {
  if (from === undefined && to === undefined) return undefined;
  return { from: from === undefined ? undefined : instantMs(from), to: to === undefined ? undefined : instantMs(to) };
}

/** A row that is its own conversation (not a compression continuation). */
function ownUsage(row: SessionRow): ChainUsage {
  return {
    rootId: row.id,
    rootStartedAt: Number(row.started_at),
    segments: 1,
    messageCount: Number(row.message_count),
    inputTokens: Number(row.input_tokens),
    outputTokens: Number(row.output_tokens),
    cacheReadTokens: Number(row.cache_read_tokens),
    cacheWriteTokens: Number(row.cache_write_tokens),
    reasoningTokens: Number(row.reasoning_tokens),
    estimatedCostUsd: Number(row.estimated_cost_usd),
  };
}
