import {
  ATTRIBUTES_MAX_CHARS,
  type CreateSessionCommand,
  classifyEndReason,
  type EndSessionRequest,
  ID_PATTERN,
  instantMs,
  type ListSessionsQuery,
  type ModelUsageList,
  PAGE_LIMIT_MAX,
  type RecordUsageRequest,
  type ReopenSessionRequest,
  type ResolveId,
  type ResolveIdQuery,
  SESSION_LIST_TOTAL_BOUND,
  type Session,
  type SessionCount,
  type SessionCountQuery,
  type SessionListItem,
  type SessionListResponse,
  type SessionOrder,
  type TitleLineage,
  type TitleLineageQuery,
  type TitleSource,
  type UpdateSessionRequest,
  WORKSPACE_LIST_MAX,
  type Workspaces,
  type WorkspacesQuery,
} from '@statehouse/contracts';
import { z } from 'zod';
import type { Db, SessionPatch, SessionRow } from '../db/database.js';
import { isUniqueViolation, type SqlDialect } from '../db/sql-dialect.js';
import type { Tx, UnitOfWork } from '../db/unit-of-work.js';
import { reopenVerdict } from '../domain/end-reasons.js';
import { gatewayOwnership } from '../domain/gateway-owner.js';
import type { HookRegistry } from '../domain/hook-registry.js';
import { labelIdSets } from '../domain/label-filter.js';
import { assertPreconditions, assertWriterMayProceed, requireIfMatch } from '../domain/session-guards.js';
import { SessionLifecycle } from '../domain/session-lifecycle.js';
import { availableTitle } from '../domain/session-titles.js';
import { ConversationGenerationRepository } from '../repositories/conversation-generation.repository.js';
import { type ChainUsage, LineageRepository } from '../repositories/lineage.repository.js';
import { ProfileRepository } from '../repositories/profile.repository.js';
import { RouteRepository } from '../repositories/route.repository.js';
import { SessionRepository, toSession, ZERO_DELTA } from '../repositories/session.repository.js';
import { SessionLabelRepository } from '../repositories/session-label.repository.js';
import { type SessionListFilter, SessionListRepository } from '../repositories/session-list.repository.js';
import { SessionModelUsageRepository } from '../repositories/session-model-usage.repository.js';
import { SessionPromptRepository } from '../repositories/session-prompt.repository.js';
import { HOUR_MS, UsageRollupRepository } from '../repositories/usage-rollup.repository.js';
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
  ValidationError,
} from '../shared/errors.js';
import type { IdGenerator } from '../shared/ids.js';
import { parseJsonObject, textOrNull, toJsonOrNull } from '../shared/json.js';
import { sanitizeTitle, titleKind, titleMayReplace } from '../shared/sanitize.js';
import { toDomainError } from '../shared/store-errors.js';
import type { MessageService } from './message.service.js';

export class SessionService {
  private readonly sessions: SessionRepository;
  private readonly lists = new SessionListRepository();
  private readonly lineage = new LineageRepository();
  private readonly profiles = new ProfileRepository();
  private readonly generations = new ConversationGenerationRepository();
  private readonly routes = new RouteRepository();
  private readonly lifecycle: SessionLifecycle;
  private readonly dialectName: SqlDialect['name'];
  private readonly prompts = new SessionPromptRepository();
  private readonly sessionLabels = new SessionLabelRepository();

  private readonly usageByModel = new SessionModelUsageRepository();
  private readonly usageRollups = new UsageRollupRepository();

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
    this.lifecycle = new SessionLifecycle(this.sessions, hooks);
    this.dialectName = dialect.name;
  }

  /**
   * Creates a session — with its opening messages in the same transaction, durable from that
   * moment. A member naming a profile outside its set is answered as if the profile did not exist.
   */
  async create(ctx: OperationContext, request: CreateSessionCommand, within?: Tx): Promise<Session> {
    return (await this.createOrFill(ctx, request, within)).session;
  }

  /**
   * Creates a session; with `ifExists: 'fill'` an existing one of the profile keeps every field it
   * has and gets only its empty ones from the request (docs/domain.md §2.2.20) — `created` says which.
   * `within`: the caller's transaction (a first turn that claims the key's route in the same one).
   */
  async createOrFill(
    ctx: OperationContext,
    request: CreateSessionCommand,
    within?: Tx,
  ): Promise<{ session: Session; created: boolean }> {
    if (!canAccessProfile(ctx.principal, request.profile)) throw new NotFoundError('profile');
    let created = true;
    // The session itself is the answer an Idempotency-Key replays.
    const insert = async (tx: Tx): Promise<Session> => {
      const now = this.clock.now();
      await this.profiles.ensure(tx.db, request.profile, now);
      const id = request.id ?? this.ids.next();
      if (await this.sessions.exists(tx.db, id)) {
        if (request.ifExists !== 'fill') throw new ConflictError(`session ${id} already exists`);
        const existing = await this.sessions.findByIdForUpdate(tx.db, id);
        if (!existing || existing.profile !== request.profile) throw new ConflictError(`session ${id} already exists`);
        created = false;
        // A replay answers as the fill did (200, not a creation's 201).
        if (ctx.idempotency) ctx.idempotency.status = 200;
        return this.fillEmpty(tx, existing, request, now);
      }
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
          tool_names: request.toolNames ? JSON.stringify(request.toolNames) : null,
          title,
          title_source: title === null ? null : titleSource,
          parent_session_id: request.parentSessionId ?? null,
          lineage_kind: request.lineageKind ?? null,
          delegated,
          conversation_generation: conversationGeneration,
          started_at: now,
          last_activity_at: now,
          cwd: textOrNull(request.cwd),
          git_branch: textOrNull(request.gitBranch),
          git_repo_root: textOrNull(request.gitRepoRoot),
          attributes: toJsonOrNull(request.attributes),
        });
      } catch (error) {
        if (isUniqueViolation(error, 'title')) throw new TitleConflictError(title ?? '');
        if (isUniqueViolation(error)) throw new ConflictError(`session ${id} already exists`);
        throw error;
      }
      if (request.systemPrompt !== undefined) await this.prompts.set(tx.db, id, textOrNull(request.systemPrompt), now);
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
    };
    const session = within ? await insert(within) : await this.uow.run(ctx, insert);
    return { session, created };
  }

  /**
   * The first turn of a chat (docs/domain.md §6.3.5): creates the session and points the key's
   * route at it in one transaction — unless the route already points at an open, unarchived
   * session of the profile, which is answered instead (`created: false`). Gateways that take the
   * first messages of a new chat concurrently (both resolved `none`) so converge on one row: the
   * route is the key's single point of decision (locked on PostgreSQL; SQLite writers take turns),
   * and a creator that finds the route claimed meanwhile joins the row that claimed it.
   */
  async createForKey(
    ctx: OperationContext,
    request: CreateSessionCommand & { sessionKey: string },
  ): Promise<{ session: Session; created: boolean }> {
    if (!canAccessProfile(ctx.principal, request.profile)) throw new NotFoundError('profile');
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.uow.run(ctx, (tx) => this.joinOrCreate(tx, ctx, request));
      } catch (error) {
        // Another first turn committed its claim while this one waited: the next attempt joins it.
        // (With a caller-chosen id, the other creator may have taken that id first: the same.)
        const raced = error instanceof RouteClaimedMeanwhile || (error instanceof ConflictError && request.id);
        if (raced && attempt < 3) continue;
        throw error;
      }
    }
  }

  private async joinOrCreate(
    tx: Tx,
    ctx: OperationContext,
    request: CreateSessionCommand & { sessionKey: string },
  ): Promise<{ session: Session; created: boolean }> {
    const now = this.clock.now();
    const key = request.sessionKey;
    const route = await this.routes.findForUpdate(tx.db, request.profile, key, this.dialectName === 'postgres');
    if (route && Number(route.suspended) === 0) {
      const target = await this.sessions.findById(tx.db, route.session_id);
      if (
        target &&
        target.profile === request.profile &&
        target.hidden_for === null &&
        target.ended_at === null &&
        Number(target.archived) === 0
      ) {
        return { session: toSession(target, now), created: false };
      }
    }
    const session = await this.create(ctx, request, tx);
    if (route) await this.routes.pointAt(tx.db, request.profile, key, session.id, now);
    else {
      const claimed = await this.routes.insertIfAbsent(tx.db, {
        profile: request.profile,
        session_key: key,
        session_id: session.id,
        origin: toJsonOrNull(request.origin),
        suspended: 0,
        created_at: now,
        updated_at: now,
      });
      if (!claimed) throw new RouteClaimedMeanwhile();
    }
    return { session, created: true };
  }

  /** The empty fields of an existing session, filled from a create request (first writer wins). */
  private async fillEmpty(tx: Tx, row: SessionRow, request: CreateSessionCommand, now: number): Promise<Session> {
    const patch: SessionPatch = {};
    const fill = <K extends keyof SessionPatch>(column: K, value: SessionPatch[K] | null) => {
      if (value !== null && value !== undefined && (row[column as keyof SessionRow] ?? null) === null)
        patch[column] = value;
    };
    fill('model', textOrNull(request.model));
    fill('model_config', toJsonOrNull(request.modelConfig));
    fill('session_key', textOrNull(request.sessionKey));
    fill('chat_id', textOrNull(request.chatId));
    fill('chat_type', textOrNull(request.chatType));
    fill('thread_id', textOrNull(request.threadId));
    fill('cwd', textOrNull(request.cwd));
    fill('git_branch', textOrNull(request.gitBranch));
    fill('git_repo_root', textOrNull(request.gitRepoRoot));
    if (Object.keys(patch).length > 0) await this.sessions.update(tx.db, row.id, patch);
    if (request.systemPrompt !== undefined && (await this.prompts.get(tx.db, row.id)) === null) {
      await this.prompts.set(tx.db, row.id, textOrNull(request.systemPrompt), now);
    }
    return toSession((await this.sessions.findById(tx.db, row.id))!, this.clock.now());
  }

  /** The single-session read: the row and its system prompt snapshot. */
  async get(ctx: OperationContext, id: string): Promise<Session> {
    try {
      const row = await this.sessions.findByIdWithPrompt(this.db, id);
      if (!row || !canAccessProfile(ctx.principal, row.profile)) throw new NotFoundError('session');
      return { ...toSession(row, this.clock.now()), systemPrompt: row.system_prompt };
    } catch (error) {
      throw toDomainError(error);
    }
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
      const position = query.cursor ? decodeListCursor(query.cursor, query.order) : undefined;
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
        tokens: bounds(query.minTokens, query.maxTokens),
        costUsd: bounds(query.minCostUsd, query.maxCostUsd),
        maxMessages: query.maxMessages,
        limit: query.limit + 1,
        ...(await this.selectionFilter(ctx, query)),
        labelIdSets: query.label
          ? await labelIdSets(this.reads, query.profile ? [query.profile] : scope, query.label)
          : undefined,
      };
      // The value the page was sorted by, as the database computed it (cost: the stored double as is).
      const orderKey = (row: SessionRow) => Number((row as SessionRow & { sort_key: unknown }).sort_key);
      let page: SessionRow[];
      let nextCursor: string | null;
      let prevCursor: string | null;
      const firstPage = async () => {
        const rows = await this.lists.listConversationTips(this.reads, filter);
        page = rows.slice(0, query.limit);
        nextCursor =
          rows.length > query.limit
            ? encodeListCursor(query.order, 'next', orderKey(page[page.length - 1]), page[page.length - 1].id)
            : null;
        prevCursor = null;
      };
      if (!position) {
        await firstPage();
      } else if (position.direction === 'next') {
        const rows = await this.lists.listConversationTips(this.reads, { ...filter, after: position });
        page = rows.slice(0, query.limit);
        const last = page[page.length - 1];
        nextCursor = rows.length > query.limit ? encodeListCursor(query.order, 'next', orderKey(last), last.id) : null;
        // Rows came before this page (the reader paged past them); the previous page starts above its first row.
        prevCursor =
          page.length > 0
            ? encodeListCursor(query.order, 'prev', orderKey(page[0]), page[0].id)
            : encodeListCursor(query.order, 'prev', position.at, position.id);
      } else {
        const newer = await this.lists.listConversationTips(this.reads, { ...filter, before: position });
        if (newer.length <= query.limit) {
          // Back at the top: the first page itself, full, so paging back never shows a short page.
          await firstPage();
        } else {
          page = newer.slice(0, query.limit).reverse();
          prevCursor = encodeListCursor(query.order, 'prev', orderKey(page[0]), page[0].id);
          nextCursor = encodeListCursor(query.order, 'next', orderKey(page[page.length - 1]), page[page.length - 1].id);
        }
      }
      const counted = await this.lists.countConversationTips(this.reads, filter, SESSION_LIST_TOTAL_BOUND);
      const usage = await this.lineage.chainUsageOf(
        this.reads,
        page!.filter((row) => row.lineage_kind === 'compression').map((row) => row.id),
      );
      const now = this.clock.now();
      const prompts =
        query.include === 'systemPrompt'
          ? await this.prompts.getMany(
              this.reads,
              page!.map((row) => row.id),
            )
          : undefined;
      // The page's labels in one query, never one per row.
      const labels = await this.sessionLabels.forSessions(
        this.reads,
        page!.map((row) => row.id),
      );
      const items: SessionListItem[] = page!.map((row) => {
        const chain = usage.get(row.id) ?? ownUsage(row);
        const session = toSession(row, now);
        const end = row.ended_at === null ? Number(row.last_activity_at) : Number(row.ended_at);
        return {
          ...session,
          ...(prompts ? { systemPrompt: prompts.get(row.id) ?? null } : {}),
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
          labels: (labels.get(row.id) ?? []) as SessionListItem['labels'],
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
   * Title, flags, source and transport, and the runtime state (tool pins, model configuration,
   * compression deadline), under If-Match. Archive, pin and hide apply to the whole compression
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
      Object.assign(patch, runtimeStatePatch(row, request));
      // The routing identity (docs/domain.md §2.2.3) is re-stamped by the gateway that serves the chat.
      const peer: SessionPatch = {};
      setIfChanged(peer, row, 'session_key', request.sessionKey);
      setIfChanged(peer, row, 'user_id', request.userId);
      setIfChanged(peer, row, 'chat_id', request.chatId);
      setIfChanged(peer, row, 'chat_type', request.chatType);
      setIfChanged(peer, row, 'thread_id', request.threadId);
      setIfChanged(peer, row, 'display_name', request.displayName);
      if (request.origin !== undefined) {
        const origin = toJsonOrNull(request.origin);
        if (origin !== row.origin) peer.origin = origin;
      }
      // Where the conversation is delivered (and whose chat it is), and the runtime state its worker
      // runs it with (tool pins, model configuration, compression deadline), are a writer's changes:
      // fenced like an append while a turn is live. Titles, flags and the runtime's bookkeeping
      // (usage, workspace, attributes) need If-Match only (docs/domain.md §4.6, §2.2.11).
      if (Object.keys(patch).some((column) => WRITER_COLUMNS.has(column)) || Object.keys(peer).length > 0) {
        assertWriterMayProceed(row, preconditions, this.clock.now());
      }
      Object.assign(patch, peer);
      setIfChanged(patch, row, 'model', request.model);
      setIfChanged(patch, row, 'billing_provider', request.billingProvider);
      setIfChanged(patch, row, 'billing_base_url', request.billingBaseUrl);
      setIfChanged(patch, row, 'billing_mode', request.billingMode);
      setIfChanged(patch, row, 'cwd', request.cwd);
      setIfChanged(patch, row, 'git_branch', request.gitBranch);
      setIfChanged(patch, row, 'git_repo_root', request.gitRepoRoot);
      if (request.attributes !== undefined) {
        const merged = mergeAttributes(row.attributes, request.attributes);
        if (merged !== row.attributes) patch.attributes = merged;
      }
      const prompt = request.systemPrompt === undefined ? undefined : textOrNull(request.systemPrompt ?? undefined);
      const promptChanged = prompt !== undefined && prompt !== (await this.prompts.get(tx.db, id));
      const flags: SessionPatch = {};
      for (const flag of ['archived', 'pinned', 'hidden'] as const) {
        const value = request[flag];
        if (value !== undefined && (value ? 1 : 0) !== Number(row[flag])) flags[flag] = value ? 1 : 0;
      }
      if (Object.keys(patch).length === 0 && Object.keys(flags).length === 0 && !promptChanged) {
        return { ...toSession(row, this.clock.now()), systemPrompt: await this.prompts.get(tx.db, id) };
      }

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
            byProfile: {},
            receipts: [],
            archivedIds: members,
          };
          tx.afterCommit(() => this.hooks.dispatchSessionDeleted(event));
        }
      }
      if (promptChanged) await this.prompts.set(tx.db, id, prompt, this.clock.now());
      return {
        ...toSession((await this.sessions.findById(tx.db, id))!, this.clock.now()),
        systemPrompt: await this.prompts.get(tx.db, id),
      };
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
      if (row.ended_at === null) {
        // A reason outside the taxonomy is a deliberate close, kept in the caller's words (§4.9).
        const { reason, detail } = classifyEndReason(request.reason);
        await this.lifecycle.end(tx, row, reason, this.clock.now(), detail);
      }
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
        await this.lifecycle.clearEnd(tx, row, 'reopen');
        await this.recordReopen(tx, row, ctx, byDashboard ? null : routingTransport, now);
      } else {
        await this.lifecycle.clearEnd(tx, row, 'reopen');
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

  /**
   * Every row the list's filters match, in its order: the list read page by page (keyset, so a row
   * written meanwhile neither repeats nor shifts a page), as the caller drains it.
   */
  async *exportList(
    ctx: OperationContext,
    query: Omit<ListSessionsQuery, 'includeHidden'> & { includeHidden?: boolean },
  ): AsyncGenerator<SessionListItem> {
    let cursor: string | undefined;
    do {
      const page = await this.list(ctx, { ...query, cursor, limit: PAGE_LIMIT_MAX });
      yield* page.items;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }

  /** JSON lines: the session, every message (hidden and rewound included), its lineage edges. */
  async *export(ctx: OperationContext, id: string): AsyncGenerator<Record<string, unknown>> {
    const row = await this.readVisible(ctx, id);
    yield { type: 'session', session: toSession(row, this.clock.now()) };
    // Its labels (name and colour): a Statehouse import has to recreate them in the profile.
    const labels = (await this.sessionLabels.forSessions(this.db, [row.id])).get(row.id) ?? [];
    for (const label of labels) yield { type: 'label', label };
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
   * The selection filters of the list and the count (docs/api.md, "Sessions for agent runtimes").
   * `idContains` matches the id of any segment of a compression chain: the matching rows are found
   * first (bounded), then listed as themselves and as the tips of their chains.
   */
  private async selectionFilter(ctx: OperationContext, query: SessionSelection): Promise<Partial<SessionListFilter>> {
    const filter: Partial<SessionListFilter> = {
      view: query.view ?? 'tips',
      sources: query.sources,
      excludeSources: query.excludeSources,
      cwdPrefix: query.cwdPrefix === undefined ? undefined : query.cwdPrefix.replace(/[/\\]+$/, '') || query.cwdPrefix,
      minMessages: query.minMessages,
      sessionKey: query.sessionKey,
      chatId: query.chatId,
      chatType: query.chatType,
      threadId: query.threadId,
      keyed: query.keyed,
      idPrefix: query.idPrefix,
    };
    if (query.idContains !== undefined) {
      const matching = await this.lists.idsContaining(
        this.reads,
        query.profile ? [query.profile] : profileScope(ctx.principal),
        query.idContains,
        ID_SEARCH_BOUND,
      );
      const tips = await this.lineage.tipsOf(this.reads, matching);
      filter.ids = [...new Set([...matching, ...tips.values()])];
    }
    return filter;
  }

  /** Exact counts of the sessions the filters select and of their messages. */
  async count(ctx: OperationContext, query: SessionCountQuery): Promise<SessionCount> {
    try {
      if (query.profile && !canAccessProfile(ctx.principal, query.profile)) return { sessions: 0, messages: 0 };
      const filter: SessionListFilter = {
        profiles: profileScope(ctx.principal),
        profile: query.profile,
        source: query.source,
        status: query.status,
        archived: query.archived,
        includeChildren: query.includeChildren,
        includeHidden: query.includeHidden,
        order: 'started',
        limit: 0,
        sessionId: query.sessionId,
        ...(await this.selectionFilter(ctx, query)),
      };
      return await this.lists.countSelected(this.reads, filter);
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /** An exact id, else the one id of the profile that starts with the prefix (docs/domain.md §2.2.1). */
  async resolveId(ctx: OperationContext, query: ResolveIdQuery): Promise<ResolveId> {
    try {
      const scope = query.profile ? [query.profile] : profileScope(ctx.principal);
      if (query.profile && !canAccessProfile(ctx.principal, query.profile)) return { id: null, ambiguous: false };
      if (ID_PATTERN.test(query.prefix)) {
        const exact = await this.sessions.findById(this.db, query.prefix);
        if (exact && (scope === null || scope.includes(exact.profile))) return { id: exact.id, ambiguous: false };
      }
      const ids = await this.lists.idsWithPrefix(this.db, scope, query.prefix, 2);
      return ids.length === 1 ? { id: ids[0], ambiguous: false } : { id: null, ambiguous: ids.length > 1 };
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /**
   * Who holds a title in the profile, its newest `"title #N"` continuation, and the title the next
   * continuation takes (docs/domain.md §2.2.5): `"title #N+1"` after the highest N in use (the
   * title itself counts as #1), or the title itself while nobody holds it or a numbered variant.
   */
  async titleLineage(ctx: OperationContext, query: TitleLineageQuery): Promise<TitleLineage> {
    try {
      const profile = query.profile ?? (ctx.principal.profiles === '*' ? undefined : ctx.principal.profiles[0]);
      if (!profile || !canAccessProfile(ctx.principal, profile))
        return { session: null, latest: null, next: query.title };
      const variants = await this.sessions.titleVariants(this.db, profile, query.title, TITLE_VARIANTS_BOUND);
      const exact = variants.find((row) => row.title === query.title);
      const numbered = variants.filter((row) => row.title !== query.title);
      let highest = exact ? 1 : 0;
      for (const row of numbered) {
        const match = /^.* #(\d+)$/.exec(row.title ?? '');
        if (match) highest = Math.max(highest, Number(match[1]));
      }
      const session = exact ? await this.sessions.findById(this.db, exact.id) : undefined;
      return {
        session: session ? toSession(session, this.clock.now()) : null,
        latest: numbered.length > 0 ? { id: numbered[0].id, title: numbered[0].title! } : null,
        next: highest === 0 ? query.title : `${query.title} #${Math.max(1, highest) + 1}`,
      };
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /** The working directories of the caller's sessions, most used first (docs/domain.md §2.2.16). */
  async workspaces(ctx: OperationContext, query: WorkspacesQuery): Promise<Workspaces> {
    try {
      if (query.profile && !canAccessProfile(ctx.principal, query.profile)) return { items: [], truncated: false };
      const scope = query.profile ? [query.profile] : profileScope(ctx.principal);
      const rows = await this.sessions.workspaces(this.reads, scope, query.archived, WORKSPACE_LIST_MAX + 1);
      return {
        items: rows
          .slice(0, WORKSPACE_LIST_MAX)
          .map((row) => ({ cwd: row.cwd, sessions: row.sessions, lastActiveAt: toIso(row.lastActiveAt) })),
        truncated: rows.length > WORKSPACE_LIST_MAX,
      };
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /**
   * Usage accounting of model calls (docs/domain.md §2.2.17). `increment` adds one call's deltas and
   * records them per model and billing route; `absolute` sets the running totals (nothing per
   * model: totals cannot be split back into calls). The billing route and the model are filled
   * only while empty, by calls that account for something — except the first accounted call of a
   * session, whose route replaces the one recorded before any call (a fallback that succeeded).
   * Like an append: If-Match and the generation are checked when given, and the write is fenced
   * while another holder's turn is live.
   */
  async recordUsage(
    ctx: OperationContext,
    id: string,
    request: RecordUsageRequest,
    preconditions: Preconditions,
  ): Promise<Session> {
    return this.uow.run(ctx, async (tx) => {
      const row = await this.lockVisible(tx, ctx, id);
      const now = this.clock.now();
      assertPreconditions(row, preconditions);
      assertWriterMayProceed(row, preconditions, now);
      const accounted =
        request.inputTokens > 0 ||
        request.outputTokens > 0 ||
        request.cacheReadTokens > 0 ||
        request.cacheWriteTokens > 0 ||
        request.reasoningTokens > 0 ||
        request.apiCallCount > 0 ||
        (request.estimatedCostUsd ?? 0) > 0 ||
        (request.actualCostUsd ?? 0) > 0;
      const firstAccountedRoute =
        accounted &&
        Number(row.api_call_count) === 0 &&
        request.model !== undefined &&
        request.billingProvider !== undefined &&
        (row.model !== request.model || row.billing_provider !== request.billingProvider);
      if (firstAccountedRoute) {
        await this.sessions.update(tx.db, id, {
          model: request.model,
          billing_provider: request.billingProvider,
          billing_base_url: request.billingBaseUrl ?? null,
          billing_mode: request.billingMode ?? null,
        });
      }
      await this.sessions.applyUsage(tx.db, id, {
        mode: request.mode,
        inputTokens: request.inputTokens,
        outputTokens: request.outputTokens,
        cacheReadTokens: request.cacheReadTokens,
        cacheWriteTokens: request.cacheWriteTokens,
        reasoningTokens: request.reasoningTokens,
        apiCallCount: request.apiCallCount,
        estimatedCostUsd: request.estimatedCostUsd,
        actualCostUsd: request.actualCostUsd,
        costStatus: request.costStatus,
        costSource: request.costSource,
        pricingVersion: request.pricingVersion,
        fillRoute: accounted
          ? {
              model: request.model,
              billingProvider: request.billingProvider,
              billingBaseUrl: request.billingBaseUrl,
              billingMode: request.billingMode,
            }
          : {},
        now,
      });
      const after = (await this.sessions.findById(tx.db, id))!;
      if (request.mode === 'increment' && accounted) {
        await this.usageByModel.addCall(tx.db, {
          session_id: id,
          model: request.model ?? after.model ?? 'unknown',
          billing_provider: request.billingProvider ?? after.billing_provider ?? '',
          billing_base_url: request.billingBaseUrl ?? after.billing_base_url ?? '',
          billing_mode: request.billingMode ?? after.billing_mode ?? '',
          task: '',
          api_call_count: request.apiCallCount,
          input_tokens: request.inputTokens,
          output_tokens: request.outputTokens,
          cache_read_tokens: request.cacheReadTokens,
          cache_write_tokens: request.cacheWriteTokens,
          reasoning_tokens: request.reasoningTokens,
          estimated_cost_usd: request.estimatedCostUsd ?? 0,
          actual_cost_usd: request.actualCostUsd ?? null,
          cost_status: request.costStatus ?? null,
          cost_source: request.costSource ?? null,
          first_seen: now,
          last_seen: now,
        });
      }
      if (request.mode === 'absolute') await this.rollUpDecrease(tx, row, after, now);
      return toSession(after, now);
    });
  }

  /** The session's usage per model, billing route and task (docs/domain.md §2.2.17). */
  async modelUsage(ctx: OperationContext, id: string): Promise<ModelUsageList> {
    await this.readVisible(ctx, id);
    try {
      const rows = await this.usageByModel.listForSessions(this.db, [id]);
      const at = (value: number | null) => (value === null ? null : toIso(Number(value)));
      return {
        items: rows.map((row) => ({
          model: row.model,
          billingProvider: row.billing_provider,
          billingBaseUrl: row.billing_base_url,
          billingMode: row.billing_mode,
          task: row.task,
          apiCallCount: Number(row.api_call_count),
          inputTokens: Number(row.input_tokens),
          outputTokens: Number(row.output_tokens),
          cacheReadTokens: Number(row.cache_read_tokens),
          cacheWriteTokens: Number(row.cache_write_tokens),
          reasoningTokens: Number(row.reasoning_tokens),
          estimatedCostUsd: Number(row.estimated_cost_usd),
          actualCostUsd: row.actual_cost_usd === null ? null : Number(row.actual_cost_usd),
          costStatus: row.cost_status,
          costSource: row.cost_source,
          firstSeenAt: at(row.first_seen),
          lastSeenAt: at(row.last_seen),
        })),
      };
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /**
   * Totals set lower than they were: the usage rollups (which count what writes add, by trigger)
   * take the decrease in the write's hour, so the overview stays equal to the sessions' counters.
   */
  private async rollUpDecrease(tx: Tx, before: SessionRow, after: SessionRow, now: number): Promise<void> {
    const decrease = (column: keyof SessionRow) => Math.min(0, Number(after[column]) - Number(before[column]));
    const contribution = {
      inputTokens: decrease('input_tokens'),
      outputTokens: decrease('output_tokens'),
      cacheReadTokens: decrease('cache_read_tokens'),
      cacheWriteTokens: decrease('cache_write_tokens'),
      reasoningTokens: decrease('reasoning_tokens'),
      costUsd: decrease('estimated_cost_usd'),
    };
    if (Object.values(contribution).every((value) => value === 0)) return;
    await this.usageRollups.record(tx.db, [
      {
        sessionId: after.id,
        hourStart: now - (now % HOUR_MS),
        source: after.source,
        model: after.model ?? '',
        profile: after.profile,
        ...contribution,
      },
    ]);
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

/** Columns whose change is a writer's, fenced during another holder's live turn (docs/domain.md §4.6). */
const WRITER_COLUMNS = new Set<string>([
  'source',
  'transport_profile',
  'tool_names',
  'model_config',
  'compression_retry_after',
  'compression_retry_reason',
]);

/**
 * Tool pins, model configuration and the compression deadline as a PATCH asks (docs/domain.md
 * §2.2.11): only what differs from the row. A deadline set without a reason clears the old reason;
 * clearing the deadline clears both.
 */
function runtimeStatePatch(row: SessionRow, request: UpdateSessionRequest): SessionPatch {
  const patch: SessionPatch = {};
  if (request.toolNames !== undefined) {
    const toolNames = request.toolNames === null ? null : JSON.stringify(request.toolNames);
    if (toolNames !== row.tool_names) patch.tool_names = toolNames;
  }
  if (request.modelConfig !== undefined) {
    const modelConfig = request.modelConfig === null ? null : JSON.stringify(request.modelConfig);
    if (modelConfig !== row.model_config) patch.model_config = modelConfig;
  }
  if (request.compressionRetryAfter !== undefined) {
    const deadline = request.compressionRetryAfter;
    const after = deadline === null ? null : typeof deadline === 'number' ? deadline : Date.parse(deadline);
    const reason = after === null ? null : (request.compressionRetryReason ?? null);
    const storedAfter = row.compression_retry_after === null ? null : Number(row.compression_retry_after);
    if (after !== storedAfter) patch.compression_retry_after = after;
    if (reason !== row.compression_retry_reason) patch.compression_retry_reason = reason;
  }
  return patch;
}

/**
 * List cursors: the key of a page's edge row and which way the next request walks from it. The
 * time orders keep their original shape; a counter order names itself, so a cursor is refused
 * under another order rather than read as a value of the wrong kind.
 */
function encodeListCursor(order: SessionOrder, direction: 'next' | 'prev', at: number, id: string): string {
  const key = isTimeOrder(order) ? [at, id] : [order, at, id];
  return encodeCursor(direction === 'next' ? key : ['prev', ...key]);
}

const isTimeOrder = (order: SessionOrder) => order === 'recent' || order === 'started';

/** (last activity or start, id) of the row a page ends at; `prev` first for a page above it. */
const NEXT_CURSOR = cursorShape(CursorPart.epochMs, CursorPart.text);
const PREV_CURSOR = cursorShape(CursorPart.tag('prev'), CursorPart.epochMs, CursorPart.text);
/** (order, value, id) for the counter orders: a finite value (a cost is fractional; a duration of odd rows negative). */
const COUNTER_ORDER = CursorPart.tag('messages', 'tokens', 'cost', 'duration');
const COUNTER_VALUE = z.number().min(-1e15).max(1e15);
const NEXT_COUNTER_CURSOR = cursorShape(COUNTER_ORDER, COUNTER_VALUE, CursorPart.text);
const PREV_COUNTER_CURSOR = cursorShape(CursorPart.tag('prev'), COUNTER_ORDER, COUNTER_VALUE, CursorPart.text);

function decodeListCursor(cursor: string, order: SessionOrder): { direction: 'next' | 'prev'; at: number; id: string } {
  if (isTimeOrder(order)) {
    try {
      const [at, id] = decodeCursor(cursor, NEXT_CURSOR);
      return { direction: 'next', at, id };
    } catch {
      const [, at, id] = decodeCursor(cursor, PREV_CURSOR);
      return { direction: 'prev', at, id };
    }
  }
  let decoded: { direction: 'next' | 'prev'; order: string; at: number; id: string };
  try {
    const [cursorOrder, at, id] = decodeCursor(cursor, NEXT_COUNTER_CURSOR);
    decoded = { direction: 'next', order: cursorOrder, at, id };
  } catch {
    const [, cursorOrder, at, id] = decodeCursor(cursor, PREV_COUNTER_CURSOR);
    decoded = { direction: 'prev', order: cursorOrder, at, id };
  }
  if (decoded.order !== order) {
    throw new ValidationError('cursor of another order', [
      { path: 'cursor', message: `a cursor of order ${decoded.order}` },
    ]);
  }
  return { direction: decoded.direction, at: decoded.at, id: decoded.id };
}

function bounds(min: number | undefined, max: number | undefined): { min?: number; max?: number } | undefined {
  return min === undefined && max === undefined ? undefined : { min, max };
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

/** A first turn found the key's route claimed by another one after it looked (its transaction is retried). */
class RouteClaimedMeanwhile extends Error {
  constructor() {
    super('the route of this key was claimed by another first turn meanwhile');
  }
}

/** What a session selection can filter by beyond the list's own filters. */
type SessionSelection = Pick<
  ListSessionsQuery,
  | 'profile'
  | 'view'
  | 'sources'
  | 'excludeSources'
  | 'cwdPrefix'
  | 'minMessages'
  | 'sessionKey'
  | 'chatId'
  | 'chatType'
  | 'threadId'
  | 'keyed'
  | 'idPrefix'
  | 'idContains'
>;

/** How many rows an `idContains` search looks at (its chains' tips are listed). */
const ID_SEARCH_BOUND = 1000;
/** How many titles of one lineage a title lookup reads (newest first). */
const TITLE_VARIANTS_BOUND = 10_000;

/** Sets `patch[column]` when the request gives a value (null clears) that differs from the row's. */
function setIfChanged<K extends keyof SessionPatch & keyof SessionRow>(
  patch: SessionPatch,
  row: SessionRow,
  column: K,
  value: string | null | undefined,
): void {
  if (value === undefined) return;
  const next = textOrNull(value);
  if (next !== (row[column] ?? null)) (patch as Record<string, unknown>)[column] = next;
}

/** Stored attributes with a change merged in: a key set to null is removed; null clears them all. */
function mergeAttributes(stored: string | null, change: Record<string, unknown> | null): string | null {
  if (change === null) return null;
  const merged: Record<string, unknown> = { ...(parseJsonObject(stored) ?? {}) };
  for (const [key, value] of Object.entries(change)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  if (Object.keys(merged).length === 0) return null;
  const text = JSON.stringify(merged);
  if (text.length > ATTRIBUTES_MAX_CHARS) {
    throw new ValidationError(`attributes are a small object (at most ${ATTRIBUTES_MAX_CHARS} characters of JSON)`);
  }
  return text === stored ? stored : text;
}
