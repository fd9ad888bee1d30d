import type {
  AppendMessagesRequest,
  AppendMessagesResponse,
  ListMessagesQuery,
  MessageInput,
  MessagePage,
  RewindRequest,
  RewindResponse,
  UsageDelta,
} from '@statehouse/contracts';
import type { Db, NewMessageRow, SessionRow } from '../db/database.js';
import { SessionRepository, toSession } from '../sessions/session.repository.js';
import { assertDestructiveAllowed, requireDestructivePreconditions } from '../sessions/session-guards.js';
import { canAccessProfile } from '../shared/access.js';
import type { Clock } from '../shared/clock.js';
import type { OperationContext, Preconditions } from '../shared/context.js';
import { decodeCursor, encodeCursor } from '../shared/cursor.js';
import { NotFoundError, RevisionConflictError, SessionClosedError, StaleGenerationError } from '../shared/errors.js';
import { textOrNull } from '../shared/json.js';
import type { SqlDialect } from '../shared/sql-dialect.js';
import { toDomainError } from '../shared/store-errors.js';
import type { Tx, UnitOfWork } from '../shared/unit-of-work.js';
import { MessageRepository, toMessage } from './message.repository.js';
import { clampTimestamp, contentText, previewOf, substringEligible } from './message-content.js';

export interface WrittenMessages {
  ids: number[];
  created: number;
  visibleCreated: number;
  toolCalls: number;
  preview: string | null;
}

export class MessageService {
  private readonly messages = new MessageRepository();
  private readonly sessions: SessionRepository;

  constructor(
    private readonly db: Db,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    dialect: SqlDialect,
  ) {
    this.sessions = new SessionRepository(dialect);
  }

  /**
   * Appends a batch in one transaction: dedupe by platformMessageId (against the store and within
   * the batch), counters, activity, preview and revision move together (SPEC §2.2–2.3).
   */
  async append(
    ctx: OperationContext,
    sessionId: string,
    request: AppendMessagesRequest,
    preconditions: Preconditions = {},
  ): Promise<AppendMessagesResponse> {
    return this.uow.run(ctx, async (tx) => {
      const session = await this.sessions.findByIdForUpdate(tx.db, sessionId);
      if (!session || !canAccessProfile(ctx.principal, session.profile)) throw new NotFoundError('session');
      if (session.end_reason === 'compression') {
        throw new SessionClosedError('the session was closed by compression; append to its continuation');
      }
      assertPreconditions(session, preconditions);
      const written = await this.write(tx, session, request.messages);
      const usage = request.usage ?? {};
      if (written.created === 0 && !hasUsage(usage) && request.model === undefined) {
        return {
          ids: written.ids,
          created: 0,
          revision: Number(session.revision),
          generation: Number(session.generation),
        };
      }
      const updated = await this.sessions.applyAppend(
        tx.db,
        session.id,
        {
          messages: written.visibleCreated,
          toolCalls: written.toolCalls,
          inputTokens: usage.inputTokens ?? 0,
          outputTokens: usage.outputTokens ?? 0,
          cacheReadTokens: usage.cacheReadTokens ?? 0,
          cacheWriteTokens: usage.cacheWriteTokens ?? 0,
          reasoningTokens: usage.reasoningTokens ?? 0,
          estimatedCostUsd: usage.estimatedCostUsd ?? 0,
        },
        this.clock.now(),
        session.preview === null ? written.preview : null,
        request.model,
        { revision: Number(session.revision), generation: Number(session.generation) },
      );
      if (!updated) throw await this.conflictFor(tx, session.id);
      return {
        ids: written.ids,
        created: written.created,
        revision: Number(session.revision) + 1,
        generation: Number(session.generation),
      };
    });
  }

  /** Inserts message rows for `session` inside `tx`; counters are the caller's to apply. */
  async write(tx: Tx, session: SessionRow, inputs: readonly MessageInput[]): Promise<WrittenMessages> {
    const now = this.clock.now();
    const platformIdOf = (input: MessageInput) =>
      input.platformMessageId === undefined ? undefined : (textOrNull(input.platformMessageId) ?? undefined);
    const platformIds = inputs.flatMap((input) => platformIdOf(input) ?? []);
    const existing = platformIds.length
      ? await this.messages.findByPlatformIds(tx.db, session.id, platformIds)
      : new Map<string, number>();
    const eligible = substringEligible(session);

    const rows: NewMessageRow[] = [];
    const slots: ({ existing: number } | { row: number } | { sameAs: string })[] = [];
    const inBatch = new Set<string>();
    let visibleCreated = 0;
    let toolCalls = 0;
    let preview: string | null = null;
    for (const input of inputs) {
      const platformId = platformIdOf(input);
      if (platformId !== undefined && existing.has(platformId)) {
        slots.push({ existing: existing.get(platformId)! });
        continue;
      }
      if (platformId !== undefined && inBatch.has(platformId)) {
        slots.push({ sameAs: platformId });
        continue;
      }
      if (platformId !== undefined) inBatch.add(platformId);
      const text = textOrNull(contentText(input.content));
      const structured = input.content !== undefined && input.content !== null && typeof input.content !== 'string';
      const displayKind = input.displayKind ?? 'visible';
      if (displayKind !== 'hidden') visibleCreated++;
      toolCalls += (input.toolCalls?.length ?? 0) + toolUseParts(input.content);
      if (preview === null && input.role === 'user' && displayKind !== 'hidden') preview = previewOf(text);
      slots.push({ row: rows.length });
      rows.push({
        session_id: session.id,
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
        platform_message_id: textOrNull(platformId),
        substring_indexed: eligible && input.role !== 'tool' ? 1 : 0,
      });
    }
    const insertedIds = rows.length ? await this.messages.insertMany(tx.db, rows) : [];
    const byPlatformId = new Map<string, number>();
    rows.forEach((row, index) => {
      if (row.platform_message_id) byPlatformId.set(row.platform_message_id, insertedIds[index]);
    });
    const ids = slots.map((slot) =>
      'existing' in slot ? slot.existing : 'row' in slot ? insertedIds[slot.row] : byPlatformId.get(slot.sameAs)!,
    );
    return { ids, created: rows.length, visibleCreated, toolCalls, preview };
  }

  async list(ctx: OperationContext, sessionId: string, query: ListMessagesQuery): Promise<MessagePage> {
    try {
      const session = await this.sessions.findById(this.db, sessionId);
      if (!session || !canAccessProfile(ctx.principal, session.profile)) throw new NotFoundError('session');
      const afterId = query.cursor ? Number(decodeCursor(query.cursor, ['number'])[0]) : query.after;
      const rows = await this.messages.list(this.db, {
        sessionId,
        includeCompacted: query.includeCompacted,
        includeHidden: query.includeHidden,
        includeInactive: query.includeInactive,
        order: query.order,
        afterId,
        limit: query.limit + 1,
      });
      const page = rows.slice(0, query.limit);
      return {
        items: page.map(toMessage),
        nextCursor: rows.length > query.limit ? encodeCursor([Number(page[page.length - 1].id)]) : null,
      };
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /**
   * Soft rewind: the message and every later one become inactive (kept, not shown, not searchable);
   * their postings leave search in the same transaction.
   */
  async rewind(
    ctx: OperationContext,
    sessionId: string,
    request: RewindRequest,
    preconditions: Preconditions,
  ): Promise<RewindResponse> {
    requireDestructivePreconditions(preconditions);
    return this.uow.run(ctx, async (tx) => {
      const now = this.clock.now();
      const session = await this.sessions.findByIdForUpdate(tx.db, sessionId);
      if (!session || !canAccessProfile(ctx.principal, session.profile)) throw new NotFoundError('session');
      assertDestructiveAllowed(session, preconditions, now);
      if (session.end_reason === 'compression') {
        throw new SessionClosedError('the session was closed by compression; rewind its continuation');
      }
      const target = await this.messages.findInSession(tx.db, sessionId, request.toMessageId);
      if (!target) throw new NotFoundError('message');
      const rewound = await this.messages.deactivateFrom(tx.db, sessionId, request.toMessageId);
      const visible = rewound.filter((row) => row.display_kind !== 'hidden').length;
      const toolCalls = rewound.reduce((sum, row) => sum + toolCallCount(row.tool_calls), 0);
      const preview = previewOf(await this.messages.firstVisibleUserText(tx.db, sessionId));
      await this.sessions.applyRewind(tx.db, sessionId, { messages: visible, toolCalls }, preview);
      return {
        session: toSession((await this.sessions.findById(tx.db, sessionId))!, now),
        rewoundIds: rewound.map((row) => Number(row.id)),
      };
    });
  }

  private async conflictFor(tx: Tx, sessionId: string): Promise<Error> {
    const current = await this.sessions.findById(tx.db, sessionId);
    if (!current) return new NotFoundError('session');
    return new RevisionConflictError(Number(current.revision));
  }
}

export function assertPreconditions(session: SessionRow, preconditions: Preconditions): void {
  if (preconditions.ifMatch !== undefined && preconditions.ifMatch !== Number(session.revision)) {
    throw new RevisionConflictError(Number(session.revision));
  }
  if (
    preconditions.expectedGeneration !== undefined &&
    preconditions.expectedGeneration !== Number(session.generation)
  ) {
    throw new StaleGenerationError(Number(session.generation));
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

/** Tool calls carried as content parts (`{type: 'tool_use'}`, Anthropic style) count as tool calls too. */
function toolUseParts(content: MessageInput['content']): number {
  if (!Array.isArray(content)) return 0;
  return content.filter(
    (part) => typeof part === 'object' && part !== null && (part as { type?: unknown }).type === 'tool_use',
  ).length;
}
