import type {
  CreateSessionRequest,
  ListSessionsQuery,
  Session,
  SessionListItem,
  SessionListResponse,
  TitleSource,
  UpdateSessionRequest,
} from '@statehouse/contracts';
import type { Db, SessionPatch, SessionRow } from '../db/database.js';
import { LineageRepository } from '../lineage/lineage.repository.js';
import type { MessageService } from '../messages/message.service.js';
import { ProfileRepository } from '../profiles/profile.repository.js';
import { canAccessProfile, profileScope } from '../shared/access.js';
import { type Clock, toIso } from '../shared/clock.js';
import type { OperationContext, Preconditions } from '../shared/context.js';
import { decodeCursor, encodeCursor } from '../shared/cursor.js';
import {
  ConflictError,
  NotFoundError,
  PreconditionRequiredError,
  RevisionConflictError,
  TitleConflictError,
  ValidationError,
} from '../shared/errors.js';
import type { IdGenerator } from '../shared/ids.js';
import { textOrNull, toJsonOrNull } from '../shared/json.js';
import { sanitizeTitle, titleMayReplace } from '../shared/sanitize.js';
import { isUniqueViolation, type SqlDialect } from '../shared/sql-dialect.js';
import { toDomainError } from '../shared/store-errors.js';
import type { Tx, UnitOfWork } from '../shared/unit-of-work.js';
import { SessionRepository, toSession } from './session.repository.js';

export class SessionService {
  private readonly sessions: SessionRepository;
  private readonly lineage = new LineageRepository();
  private readonly profiles = new ProfileRepository();

  constructor(
    private readonly db: Db,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    dialect: SqlDialect,
    private readonly messages: MessageService,
  ) {
    this.sessions = new SessionRepository(dialect);
  }

  /**
   * Creates a session — with its opening messages in the same transaction, durable from that
   * moment. A member naming a profile outside its set is answered as if the profile did not exist.
   */
  async create(ctx: OperationContext, request: CreateSessionRequest): Promise<Session> {
    if (!canAccessProfile(ctx.principal, request.profile)) throw new NotFoundError('profile');
    return this.uow.run(ctx, async (tx) => {
      const now = this.clock.now();
      await this.profiles.ensure(tx.db, request.profile, now);
      const id = request.id ?? this.ids.next();
      if (await this.sessions.exists(tx.db, id)) throw new ConflictError(`session ${id} already exists`);
      if (request.parentSessionId !== undefined) {
        const parent = await this.sessions.findById(tx.db, request.parentSessionId);
        if (!parent || parent.profile !== request.profile || !canAccessProfile(ctx.principal, parent.profile)) {
          throw new NotFoundError('parent session');
        }
      }
      const titleSource: TitleSource = request.titleSource ?? 'user';
      const title = await this.availableTitle(tx, request.profile, sanitizeTitle(request.title), titleSource, id);
      try {
        await this.sessions.insert(tx.db, {
          id,
          profile: request.profile,
          source: request.source,
          created_source: request.source,
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
      return toSession((await this.sessions.findById(tx.db, id))!);
    });
  }

  async get(ctx: OperationContext, id: string): Promise<Session> {
    return toSession(await this.readVisible(ctx, id));
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

  /** One row per logical conversation, compression chains projected onto their tip (SPEC §3). */
  async list(
    ctx: OperationContext,
    query: ListSessionsQuery & { includeHidden?: boolean },
  ): Promise<SessionListResponse> {
    try {
      const scope = profileScope(ctx.principal);
      if (query.profile && !canAccessProfile(ctx.principal, query.profile)) return { items: [], nextCursor: null };
      const after = query.cursor ? decodeCursor(query.cursor, ['number', 'string']) : undefined;
      const rows = await this.sessions.listConversationTips(this.db, {
        profiles: scope,
        profile: query.profile,
        source: query.source,
        status: query.status,
        archived: query.archived,
        includeChildren: query.includeChildren,
        includeHidden: query.includeHidden ?? false,
        // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL cannot reach PostgreSQL text.
        q: query.q?.replace(/[\u0000-\u001F]/g, ' ').trim() || undefined,
        order: query.order,
        after: after ? { at: Number(after[0]), id: String(after[1]) } : undefined,
        limit: query.limit + 1,
      });
      const page = rows.slice(0, query.limit);
      const continuations = page.filter((row) => row.lineage_kind === 'compression').map((row) => row.id);
      const roots = continuations.length ? await this.lineage.chainRootsOf(this.db, continuations) : new Map();
      const items: SessionListItem[] = page.map((row) => {
        const root = roots.get(row.id) ?? { id: row.id, startedAt: Number(row.started_at) };
        const session = toSession(row);
        return {
          ...session,
          rootId: root.id,
          conversationStartedAt: toIso(root.startedAt),
          preview: row.preview,
          lastActiveAt: session.lastActivityAt,
        };
      });
      const last = page[page.length - 1];
      const orderKey = (row: SessionRow) => Number(query.order === 'recent' ? row.last_activity_at : row.started_at);
      return {
        items,
        nextCursor: rows.length > query.limit && last ? encodeCursor([orderKey(last), last.id]) : null,
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
        if (titleMayReplace(row.title === null ? null : (row.title_source as TitleSource | null), incoming)) {
          const title = await this.availableTitle(tx, row.profile, sanitizeTitle(request.title), incoming, row.id);
          if (title !== row.title) {
            patch.title = title;
            patch.title_source = title === null ? null : incoming;
          }
        }
      }
      if (request.source !== undefined && request.source !== row.source) patch.source = request.source;
      const flags: SessionPatch = {};
      for (const flag of ['archived', 'pinned', 'hidden'] as const) {
        const value = request[flag];
        if (value !== undefined && (value ? 1 : 0) !== Number(row[flag])) flags[flag] = value ? 1 : 0;
      }
      if (Object.keys(patch).length === 0 && Object.keys(flags).length === 0) return toSession(row);

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
      }
      return toSession((await this.sessions.findById(tx.db, id))!);
    });
  }

  /**
   * Demo data only: end stamps without the lifecycle rules.
   * TODO(lineage issue #3): replace with the end operation once it exists.
   */
  async stampEndForSeed(id: string, endedAt: number, reason: string): Promise<void> {
    await this.uow.run(null, async (tx) => {
      await this.sessions.stampEnd(tx.db, id, endedAt, reason);
    });
  }

  /**
   * A user title must be free; an automatic one (derived, llm) takes the next free "title (n)"
   * rather than failing the writer that proposed it.
   */
  private async availableTitle(
    tx: Tx,
    profile: string,
    title: string | null,
    source: TitleSource,
    selfId: string,
  ): Promise<string | null> {
    if (title === null) return null;
    const holder = await this.sessions.findByTitle(tx.db, profile, title);
    if (!holder || holder.id === selfId) return title;
    if (source === 'user') throw new TitleConflictError(title);
    for (let n = 2; n < 100; n++) {
      const candidate = `${Array.from(title).slice(0, 92).join('')} (${n})`;
      const taken = await this.sessions.findByTitle(tx.db, profile, candidate);
      if (!taken || taken.id === selfId) return candidate;
    }
    throw new ValidationError('no free variant of this title');
  }
}

const ZERO_DELTA = {
  messages: 0,
  toolCalls: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  estimatedCostUsd: 0,
};
