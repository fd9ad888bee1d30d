import type { DisplayKind, Message, MessageContent, MessageRole, SessionChangeEvent } from '@statehouse/contracts';
import { sql } from 'kysely';
import type { Executor, MessageRow, NewMessageRow } from '../db/database.js';
import { PreparedQuery } from '../db/prepared.js';
import { chunk, countForSessions } from '../db/sql-dialect.js';
import { toIso } from '../shared/clock.js';
import { parseJson } from '../shared/json.js';

/** A session a live feed reports, as the sessions feed's `session` event carries it. */
export type ChangedSessionRow = SessionChangeEvent;

export function toMessage(row: MessageRow, ordinal: number): Message {
  const toolCalls = parseJson(row.tool_calls);
  return {
    id: Number(row.id),
    ordinal,
    sessionId: row.session_id,
    role: row.role as MessageRole,
    content: row.content_json !== null ? (parseJson(row.content_json) as MessageContent) : row.content,
    toolCallId: row.tool_call_id,
    toolCalls: Array.isArray(toolCalls) ? toolCalls : null,
    toolName: row.tool_name,
    timestamp: toIso(Number(row.timestamp)),
    tokenCount: row.token_count === null ? null : Number(row.token_count),
    finishReason: row.finish_reason,
    reasoning: row.reasoning,
    displayKind: row.display_kind as DisplayKind,
    active: Number(row.active) === 1,
    compacted: Number(row.compacted) === 1,
    platformMessageId: row.platform_message_id,
    ...replayFieldsOf(row.replay_fields ?? null),
    replyLatencyMs: row.reply_latency_ms == null ? null : Number(row.reply_latency_ms),
    costUsd: row.cost_usd == null ? null : Number(row.cost_usd),
  };
}

/** What an agent replays with a message (docs/domain.md §2.3.8), as stored in `replay_fields`. */
export interface ReplayFields {
  reasoningContent: string | null;
  reasoningDetails: Message['reasoningDetails'];
  codexReasoningItems: unknown[] | null;
  codexMessageItems: unknown[] | null;
  observed: boolean;
  effectDisposition: string | null;
}

const NO_REPLAY_FIELDS: ReplayFields = {
  reasoningContent: null,
  reasoningDetails: null,
  codexReasoningItems: null,
  codexMessageItems: null,
  observed: false,
  effectDisposition: null,
};

export function replayFieldsOf(text: string | null): ReplayFields {
  if (text === null) return NO_REPLAY_FIELDS;
  const stored = parseJson(text) as Partial<ReplayFields> | null;
  if (!stored || typeof stored !== 'object') return NO_REPLAY_FIELDS;
  return {
    reasoningContent: typeof stored.reasoningContent === 'string' ? stored.reasoningContent : null,
    reasoningDetails: stored.reasoningDetails ?? null,
    codexReasoningItems: Array.isArray(stored.codexReasoningItems) ? stored.codexReasoningItems : null,
    codexMessageItems: Array.isArray(stored.codexMessageItems) ? stored.codexMessageItems : null,
    observed: stored.observed === true,
    effectDisposition: typeof stored.effectDisposition === 'string' ? stored.effectDisposition : null,
  };
}

/** The `replay_fields` JSON of an input: only the fields it gives (an empty reasoningContent included); null when none. */
export function storedReplayFields(input: {
  reasoningContent?: string;
  reasoningDetails?: unknown;
  codexReasoningItems?: unknown[];
  codexMessageItems?: unknown[];
  observed?: boolean;
  effectDisposition?: string;
}): string | null {
  const stored: Record<string, unknown> = {};
  if (input.reasoningContent !== undefined) stored.reasoningContent = input.reasoningContent;
  if (input.reasoningDetails !== undefined && input.reasoningDetails !== null)
    stored.reasoningDetails = input.reasoningDetails;
  if (input.codexReasoningItems !== undefined) stored.codexReasoningItems = input.codexReasoningItems;
  if (input.codexMessageItems !== undefined) stored.codexMessageItems = input.codexMessageItems;
  if (input.observed === true) stored.observed = true;
  if (input.effectDisposition !== undefined) stored.effectDisposition = input.effectDisposition;
  return Object.keys(stored).length === 0 ? null : JSON.stringify(stored);
}

export interface MessageListFilter {
  sessionId: string;
  /** Only the message stored under this platform id. */
  platformMessageId?: string;
  includeCompacted: boolean;
  includeHidden: boolean;
  includeInactive: boolean;
  order: 'oldest' | 'latest';
  /** Exclusive keyset bound on id (after for oldest, before for latest). */
  afterId?: number;
  limit: number;
}

/** How many of a session's latest user messages `lastAnswerableAt` looks through. */
const ANSWERABLE_LOOKBACK = 50;

/** 19 columns per row keeps a batch well under SQLite's and PostgreSQL's parameter limits. */
const INSERT_CHUNK = 500;

export class MessageRepository {
  private readonly insertOne = new PreparedQuery<keyof NewMessageRow & string, { id: number }>((db, param) =>
    db
      .insertInto('messages')
      .values({
        session_id: param('session_id'),
        role: param('role'),
        content: param('content'),
        content_json: param('content_json'),
        tool_call_id: param('tool_call_id'),
        tool_calls: param('tool_calls'),
        tool_name: param('tool_name'),
        timestamp: param('timestamp'),
        token_count: param('token_count'),
        finish_reason: param('finish_reason'),
        reasoning: param('reasoning'),
        display_kind: param('display_kind'),
        platform_message_id: param('platform_message_id'),
        substring_indexed: param('substring_indexed'),
        replay_fields: param('replay_fields'),
        reply_latency_ms: param('reply_latency_ms'),
        cost_usd: param('cost_usd'),
      })
      .returning('id'),
  );

  /** The session's latest active, visible user messages, newest first (what a reply answers). */
  private readonly lastUserMessages = new PreparedQuery<
    'sessionId' | 'limit',
    { timestamp: number; replay_fields: string | null }
  >((db, param) =>
    db
      .selectFrom('messages')
      .select(['timestamp', 'replay_fields'])
      .where('session_id', '=', param('sessionId'))
      // Literals, not parameters: the planner may use a partial index only when the query's own
      // terms imply its WHERE (messages_answerable_idx, migration 2026-12-07T02.00).
      .where('role', '=', sql.lit('user'))
      .where('active', '=', sql.lit(1))
      .where('display_kind', '=', sql.lit('visible'))
      .orderBy('id', 'desc')
      .limit(param('limit')),
  );

  /**
   * The time of the session's latest user message a reply answers (docs/stats.md, "Reply
   * latency"): active, visible, not merely observed — among its last 50 user messages (a walk back
   * on messages_answerable_idx, which holds only those rows: tool rows since the question cost
   * nothing; a group chat where the agent was not addressed in 50 messages has nothing to answer).
   * Null when there is none.
   */
  async lastAnswerableAt(db: Executor, sessionId: string): Promise<number | null> {
    // The latest one first: it is the answer unless it was only observed (a group chat), which is
    // when the walk goes further back — reading 50 rows on every reply costs the append path.
    for (const limit of [1, ANSWERABLE_LOOKBACK]) {
      const { rows } = await this.lastUserMessages.execute(db, { sessionId, limit });
      const answered = rows.find((row) => !replayFieldsOf(row.replay_fields).observed);
      if (answered) return Number(answered.timestamp);
      if (rows.length < limit) return null;
    }
    return null;
  }

  /** One row through a prepared statement (the single-message append path). */
  async insert(db: Executor, row: NewMessageRow): Promise<number> {
    const result = await this.insertOne.execute(db, row as Record<keyof NewMessageRow & string, unknown>);
    return Number(result.rows[0].id);
  }

  /** Inserts in order and returns the new ids in input order. */
  async insertMany(db: Executor, rows: NewMessageRow[]): Promise<number[]> {
    const ids: number[] = [];
    for (const part of chunk(rows, INSERT_CHUNK)) {
      const inserted = await db.insertInto('messages').values(part).returning('id').execute();
      // Ids of one INSERT are assigned in VALUES order; RETURNING order itself is unspecified.
      ids.push(...inserted.map((row) => Number(row.id)).sort((a, b) => a - b));
    }
    return ids;
  }

  private readonly byPlatformId = new PreparedQuery<'sessionId' | 'platformId', { id: number }>((db, param) =>
    db
      .selectFrom('messages')
      .select('id')
      .where('session_id', '=', param('sessionId'))
      .where('platform_message_id', '=', param('platformId')),
  );

  /** The one-key case of the lookup below, prepared: a gateway appends one message at a time. */
  async findByPlatformId(db: Executor, sessionId: string, platformId: string): Promise<Map<string, number>> {
    const { rows } = await this.byPlatformId.execute(db, { sessionId, platformId });
    return new Map(rows.map((row) => [platformId, Number(row.id)]));
  }

  async findByPlatformIds(
    db: Executor,
    sessionId: string,
    platformIds: readonly string[],
  ): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    for (const part of chunk([...new Set(platformIds)])) {
      const rows = await db
        .selectFrom('messages')
        .select(['id', 'platform_message_id'])
        .where('session_id', '=', sessionId)
        .where('platform_message_id', 'in', part)
        .execute();
      for (const row of rows) found.set(row.platform_message_id!, Number(row.id));
    }
    return found;
  }

  async list(db: Executor, filter: MessageListFilter): Promise<MessageRow[]> {
    let query = db.selectFrom('messages').selectAll().where('session_id', '=', filter.sessionId);
    if (filter.platformMessageId !== undefined)
      query = query.where('platform_message_id', '=', filter.platformMessageId);
    if (!filter.includeHidden) query = query.where('display_kind', '<>', 'hidden');
    if (!filter.includeInactive) {
      query = filter.includeCompacted
        ? query.where((eb) => eb.or([eb('active', '=', 1), eb('compacted', '=', 1)]))
        : query.where('active', '=', 1).where('compacted', '=', 0);
    } else if (!filter.includeCompacted) {
      query = query.where('compacted', '=', 0);
    }
    if (filter.afterId !== undefined) {
      query = query.where('id', filter.order === 'oldest' ? '>' : '<', filter.afterId);
    }
    return query
      .orderBy('id', filter.order === 'oldest' ? 'asc' : 'desc')
      .limit(filter.limit)
      .execute();
  }

  /**
   * Each id's position in its session (1-based, every row counted in id order): one count below the
   * smallest id, then the ids of the span the page covers (index range scans of (session_id, id)).
   */
  async ordinalsOf(db: Executor, sessionId: string, ids: readonly number[]): Promise<Map<number, number>> {
    const ordinals = new Map<number, number>();
    if (ids.length === 0) return ordinals;
    const low = Math.min(...ids);
    const high = Math.max(...ids);
    const below = await db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('session_id', '=', sessionId)
      .where('id', '<', low)
      .executeTakeFirstOrThrow();
    const span = await db
      .selectFrom('messages')
      .select('id')
      .where('session_id', '=', sessionId)
      .where('id', '>=', low)
      .where('id', '<=', high)
      .orderBy('id')
      .execute();
    const base = Number(below.n);
    for (const [index, row] of span.entries()) ordinals.set(Number(row.id), base + index + 1);
    return ordinals;
  }

  async findInSession(db: Executor, sessionId: string, messageId: number): Promise<MessageRow | undefined> {
    return db
      .selectFrom('messages')
      .selectAll()
      .where('session_id', '=', sessionId)
      .where('id', '=', messageId)
      .executeTakeFirst();
  }

  /** Active messages up to and including `uptoId` (all when omitted), in order — what a branch copies. */
  async listActiveUpTo(db: Executor, sessionId: string, uptoId?: number): Promise<MessageRow[]> {
    let query = db.selectFrom('messages').selectAll().where('session_id', '=', sessionId).where('active', '=', 1);
    if (uptoId !== undefined) query = query.where('id', '<=', uptoId);
    return query.orderBy('id').execute();
  }

  /**
   * How many active messages up to `uptoId` a branch would copy, counting no further than `cap`
   * (a bounded read whatever the transcript's size: it only decides how the copy is made).
   */
  async countActiveUpTo(db: Executor, sessionId: string, uptoId: number | undefined, cap: number): Promise<number> {
    let inner = db.selectFrom('messages').select('id').where('session_id', '=', sessionId).where('active', '=', 1);
    if (uptoId !== undefined) inner = inner.where('id', '<=', uptoId);
    const row = await db
      .selectFrom(inner.limit(cap).as('counted'))
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** The session's last message id (0 when it has none): the upper bound a chunked branch fixes. */
  async lastId(db: Executor, sessionId: string): Promise<number> {
    const row = await db
      .selectFrom('messages')
      .select('id')
      .where('session_id', '=', sessionId)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? Number(row.id) : 0;
  }

  /** The newest message id of the whole store (0 when empty): where a live feed starts by default. */
  async maxId(db: Executor): Promise<number> {
    const row = await db.selectFrom('messages').select('id').orderBy('id', 'desc').limit(1).executeTakeFirst();
    return row ? Number(row.id) : 0;
  }

  /**
   * Sessions that got messages with `afterId < id <= uptoId`, by their newest such id, up to
   * `limit` — with what a list row shows of them. `profiles` null: every profile.
   */
  async changedSessions(
    db: Executor,
    filter: { afterId: number; uptoId: number; profiles: readonly string[] | null; limit: number },
  ): Promise<ChangedSessionRow[]> {
    if (filter.profiles !== null && filter.profiles.length === 0) return [];
    let query = db
      .selectFrom('messages as m')
      .innerJoin('sessions as s', 's.id', 'm.session_id')
      .select((eb) => [
        's.id as session_id',
        's.profile as profile',
        's.message_count as message_count',
        's.last_activity_at as last_activity_at',
        's.title as title',
        eb.fn.max('m.id').as('last_id'),
      ])
      .where('m.id', '>', filter.afterId)
      .where('m.id', '<=', filter.uptoId);
    if (filter.profiles !== null) query = query.where('s.profile', 'in', filter.profiles);
    const rows = await query
      .groupBy(['s.id', 's.profile', 's.message_count', 's.last_activity_at', 's.title'])
      .orderBy('last_id', 'asc')
      .limit(filter.limit)
      .execute();
    return rows.map((row) => ({
      sessionId: row.session_id,
      profile: row.profile,
      lastMessageId: Number(row.last_id),
      messageCount: Number(row.message_count),
      lastActivityAt: toIso(Number(row.last_activity_at)),
      title: row.title,
    }));
  }

  /** Up to `limit` active messages with `afterId < id <= uptoId`, in order — one step of a chunked branch. */
  async listActiveBetween(
    db: Executor,
    sessionId: string,
    afterId: number,
    uptoId: number,
    limit: number,
  ): Promise<MessageRow[]> {
    return db
      .selectFrom('messages')
      .selectAll()
      .where('session_id', '=', sessionId)
      .where('active', '=', 1)
      .where('id', '>', afterId)
      .where('id', '<=', uptoId)
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  /** The last `count` visible active messages, in order — the tail a compression keeps. */
  async listVisibleTail(db: Executor, sessionId: string, count: number): Promise<MessageRow[]> {
    if (count === 0) return [];
    const rows = await db
      .selectFrom('messages')
      .selectAll()
      .where('session_id', '=', sessionId)
      .where('active', '=', 1)
      .where('display_kind', '<>', 'hidden')
      .orderBy('id', 'desc')
      .limit(count)
      .execute();
    return rows.reverse();
  }

  /** Archives a transcript by compaction: still shown and searchable. */
  /**
   * Marks up to `limit` of the session's active messages with `id > afterId` compacted (oldest
   * first); returns their ids. A chunked compaction passes the last id it marked: the step then
   * seeks past the archived prefix instead of walking it again (the index is `(session_id, id)`;
   * at 10⁵ messages a late step read ≈ 10⁵ rows, ≈ 100 ms on the event loop, in the health bench).
   */
  async markCompacted(db: Executor, sessionId: string, limit: number, afterId = 0): Promise<number[]> {
    const rows = await db
      .updateTable('messages')
      .set({ compacted: 1 })
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('messages')
          .select('id')
          .where('session_id', '=', sessionId)
          .where('id', '>', afterId)
          .where('active', '=', 1)
          .where('compacted', '=', 0)
          .orderBy('id')
          .limit(limit),
      )
      .returning('id')
      .execute();
    return rows.map((row) => Number(row.id));
  }

  /** Soft rewind: this message and every later active one become inactive. Returns what changed. */
  async deactivateFrom(db: Executor, sessionId: string, fromId: number): Promise<MessageRow[]> {
    const rows = await db
      .selectFrom('messages')
      .selectAll()
      .where('session_id', '=', sessionId)
      .where('id', '>=', fromId)
      .where('active', '=', 1)
      .orderBy('id')
      .execute();
    for (const part of chunk(rows.map((row) => Number(row.id)))) {
      await db.updateTable('messages').set({ active: 0 }).where('id', 'in', part).execute();
    }
    return rows;
  }

  /**
   * One step of a chunked rewind: the last `limit` active messages with `afterId < id <= uptoId`
   * become inactive, from the end backwards (what is left active is always the transcript of a
   * rewind to a later message). Returns the rows it changed, newest first.
   */
  async deactivateLast(
    db: Executor,
    sessionId: string,
    afterId: number,
    uptoId: number,
    limit: number,
  ): Promise<Pick<MessageRow, 'id' | 'display_kind' | 'tool_calls'>[]> {
    const rows = await db
      .selectFrom('messages')
      .select(['id', 'display_kind', 'tool_calls'])
      .where('session_id', '=', sessionId)
      .where('active', '=', 1)
      .where('id', '>', afterId)
      .where('id', '<=', uptoId)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    await this.deactivate(db, rows);
    return rows;
  }

  /**
   * The last `limit` messages with `afterId < id <= uptoId`, active or not, newest first — one step
   * of a chunked rewind, which takes the active ones and records which they were among the others.
   */
  async lastBetween(
    db: Executor,
    sessionId: string,
    afterId: number,
    uptoId: number,
    limit: number,
  ): Promise<Pick<MessageRow, 'id' | 'active' | 'display_kind' | 'tool_calls'>[]> {
    return db
      .selectFrom('messages')
      .select(['id', 'active', 'display_kind', 'tool_calls'])
      .where('session_id', '=', sessionId)
      .where('id', '>', afterId)
      .where('id', '<=', uptoId)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  /** Archives these messages by compaction (inactive, still shown and searched as compacted). */
  async archive(db: Executor, ids: readonly number[]): Promise<void> {
    for (const part of chunk(ids)) {
      await db.updateTable('messages').set({ active: 0, compacted: 1 }).where('id', 'in', part).execute();
    }
  }

  /**
   * Frees platform ids of messages that left the live transcript, for the rows that replace them
   * (the id deduplicates appends per session, docs/domain.md §2.3.6).
   */
  async releasePlatformIds(db: Executor, sessionId: string, platformIds: readonly string[]): Promise<void> {
    for (const part of chunk([...new Set(platformIds)])) {
      await db
        .updateTable('messages')
        .set({ platform_message_id: null })
        .where('session_id', '=', sessionId)
        .where('platform_message_id', 'in', part)
        .execute();
    }
  }

  /** Marks messages inactive (ids found in the session: a chunked rewind's step). */
  async deactivate(db: Executor, rows: readonly Pick<MessageRow, 'id'>[]): Promise<void> {
    for (const part of chunk(rows.map((row) => Number(row.id)))) {
      await db.updateTable('messages').set({ active: 0 }).where('id', 'in', part).execute();
    }
  }

  /** Up to `limit` of the session's message ids with `afterId < id <= uptoId`, in order (only inactive ones: `inactive`). */
  async idsBetween(
    db: Executor,
    sessionId: string,
    afterId: number,
    uptoId: number,
    limit: number,
    inactive = false,
  ): Promise<number[]> {
    let query = db
      .selectFrom('messages')
      .select('id')
      .where('session_id', '=', sessionId)
      .where('id', '>', afterId)
      .where('id', '<=', uptoId);
    if (inactive) query = query.where('active', '=', 0);
    const rows = await query.orderBy('id').limit(limit).execute();
    return rows.map((row) => Number(row.id));
  }

  /** Active messages with `id >= fromId`, counted up to `cap` (a bounded read: which way a rewind goes). */
  async countActiveFrom(db: Executor, sessionId: string, fromId: number, cap: number): Promise<number> {
    const inner = db
      .selectFrom('messages')
      .select('id')
      .where('session_id', '=', sessionId)
      .where('active', '=', 1)
      .where('id', '>=', fromId);
    const row = await db
      .selectFrom(inner.limit(cap).as('counted'))
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** Current visibility of some messages of one session (an import compares them with its ledger). */
  async visibilityOf(
    db: Executor,
    sessionId: string,
    ids: readonly number[],
  ): Promise<Map<number, { active: number; compacted: number; displayKind: string }>> {
    const found = new Map<number, { active: number; compacted: number; displayKind: string }>();
    for (const part of chunk(ids)) {
      const rows = await db
        .selectFrom('messages')
        .select(['id', 'active', 'compacted', 'display_kind'])
        .where('session_id', '=', sessionId)
        .where('id', 'in', part)
        .execute();
      for (const row of rows) {
        found.set(Number(row.id), {
          active: Number(row.active),
          compacted: Number(row.compacted),
          displayKind: row.display_kind,
        });
      }
    }
    return found;
  }

  /**
   * Sets the visibility of messages of one session (a later copy of an imported store rewound or
   * compacted them). Search postings follow in the same statement (triggers / partial indexes).
   */
  async setVisibility(
    db: Executor,
    sessionId: string,
    ids: readonly number[],
    visibility: { active: 0 | 1; compacted: 0 | 1 },
  ): Promise<void> {
    for (const part of chunk(ids)) {
      await db
        .updateTable('messages')
        .set({ active: visibility.active, compacted: visibility.compacted })
        .where('session_id', '=', sessionId)
        .where('id', 'in', part)
        .execute();
    }
  }

  async firstVisibleUserText(
    db: Executor,
    sessionId: string,
    range: { belowId?: number; aboveId?: number } = {},
  ): Promise<string | null> {
    let query = db
      .selectFrom('messages')
      .select('content')
      .where('session_id', '=', sessionId)
      .where('role', '=', 'user')
      .where('active', '=', 1)
      .where('display_kind', '<>', 'hidden');
    if (range.belowId !== undefined) query = query.where('id', '<', range.belowId);
    if (range.aboveId !== undefined) query = query.where('id', '>', range.aboveId);
    const row = await query.orderBy('id').limit(1).executeTakeFirst();
    return row?.content ?? null;
  }

  countForSessions(db: Executor, sessionIds: readonly string[]): Promise<number> {
    return countForSessions(db, 'messages', sessionIds);
  }

  /** Removing a message removes its search postings in the same statement (triggers / generated column). */
  async deleteForSessions(db: Executor, sessionIds: readonly string[]): Promise<void> {
    for (const part of chunk(sessionIds)) await db.deleteFrom('messages').where('session_id', 'in', part).execute();
  }

  /** Removes up to `limit` of a session's messages (a chunk of a huge session's removal); returns how many. */
  async deleteSomeForSession(db: Executor, sessionId: string, limit: number): Promise<number> {
    const result = await db
      .deleteFrom('messages')
      .where('id', 'in', (eb) =>
        eb.selectFrom('messages').select('id').where('session_id', '=', sessionId).orderBy('id', 'desc').limit(limit),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
