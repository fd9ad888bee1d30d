import {
  type HandoffStateSchema,
  type LineageKind,
  SESSION_COST_MAX,
  SESSION_TOKENS_MAX,
  type Session,
  type TitleSource,
} from '@statehouse/contracts';
import { sql } from 'kysely';
import type { z } from 'zod';
import {
  type Db,
  type Executor,
  type NewSessionRow,
  SESSION_COLUMNS,
  type SessionPatch,
  type SessionRow,
} from '../db/database.js';
import { PreparedQuery } from '../db/prepared.js';
import { chunk, type SqlDialect } from '../db/sql-dialect.js';
import { toIso, toIsoOrNull } from '../shared/clock.js';
import { parseJsonObject } from '../shared/json.js';

/** A lease is live while its expiry is in the future; an expired one is simply not there. */
export function isBusy(row: Pick<SessionRow, 'lease_expires_at'>, now: number): boolean {
  return row.lease_expires_at !== null && Number(row.lease_expires_at) > now;
}

export function toSession(row: SessionRow, now: number): Session {
  return {
    id: row.id,
    profile: row.profile,
    source: row.source,
    createdSource: row.created_source,
    sessionKey: row.session_key,
    userId: row.user_id,
    chatId: row.chat_id,
    chatType: row.chat_type,
    threadId: row.thread_id,
    displayName: row.display_name,
    origin: parseJsonObject(row.origin),
    transportProfile: row.transport_profile,
    model: row.model,
    modelConfig: parseJsonObject(row.model_config),
    toolNames: parseToolNames(row.tool_names),
    compressionRetryAfter: toIsoOrNull(
      row.compression_retry_after === null ? null : Number(row.compression_retry_after),
    ),
    compressionRetryReason: row.compression_retry_reason,
    title: row.title,
    titleSource: row.title_source as TitleSource | null,
    parentSessionId: row.parent_session_id,
    lineageKind: row.lineage_kind as LineageKind | null,
    startedAt: toIso(Number(row.started_at)),
    endedAt: toIsoOrNull(row.ended_at === null ? null : Number(row.ended_at)),
    endReason: row.end_reason,
    lastActivityAt: toIso(Number(row.last_activity_at)),
    archived: Number(row.archived) === 1,
    pinned: Number(row.pinned) === 1,
    hidden: Number(row.hidden) === 1,
    messageCount: Number(row.message_count),
    toolCallCount: Number(row.tool_call_count),
    inputTokens: Number(row.input_tokens),
    outputTokens: Number(row.output_tokens),
    cacheReadTokens: Number(row.cache_read_tokens),
    cacheWriteTokens: Number(row.cache_write_tokens),
    reasoningTokens: Number(row.reasoning_tokens),
    estimatedCostUsd: Number(row.estimated_cost_usd),
    handoffState: row.handoff_state as z.infer<typeof HandoffStateSchema> | null,
    handoffPlatform: row.handoff_platform,
    handoffError: row.handoff_error,
    revision: Number(row.revision),
    generation: Number(row.generation),
    gatewayId: row.gateway_id,
    conversationGeneration: Number(row.conversation_generation),
    turn: isBusy(row, now)
      ? { turnId: row.lease_turn_id!, holder: row.lease_holder!, expiresAt: toIso(Number(row.lease_expires_at)) }
      : null,
    endReasonDetail: row.end_reason_detail ?? null,
    cwd: row.cwd ?? null,
    gitBranch: row.git_branch ?? null,
    gitRepoRoot: row.git_repo_root ?? null,
    billingProvider: row.billing_provider ?? null,
    billingBaseUrl: row.billing_base_url ?? null,
    billingMode: row.billing_mode ?? null,
    apiCallCount: Number(row.api_call_count ?? 0),
    actualCostUsd:
      row.actual_cost_usd === null || row.actual_cost_usd === undefined ? null : Number(row.actual_cost_usd),
    costStatus: row.cost_status ?? null,
    costSource: row.cost_source ?? null,
    pricingVersion: row.pricing_version ?? null,
    attributes: parseJsonObject(row.attributes ?? null),
    importedAt: toIsoOrNull(row.imported_at === null ? null : Number(row.imported_at)),
    awaitingClaim: awaitingClaim(row),
  };
}

/**
 * An imported row that no writer here has claimed (docs/domain.md §10.3): no gateway owns it and
 * nothing here moved its activity past the import. Its liveness stays the old store's — the
 * sweep leaves it — until a resolve naming a gateway, a turn or an append claims it.
 */
export function awaitingClaim(row: Pick<SessionRow, 'imported_at' | 'gateway_id' | 'last_activity_at'>): boolean {
  return row.imported_at !== null && row.gateway_id === null && Number(row.last_activity_at) <= Number(row.imported_at);
}

/** The stored JSON array of tool names; anything else (a damaged cell) reads as never pinned. */
export function parseToolNames(value: string | null): string[] | null {
  if (value === null) return null;
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) && parsed.every((name) => typeof name === 'string') ? parsed : null;
  } catch {
    return null;
  }
}

type TokenColumn = 'input_tokens' | 'output_tokens' | 'cache_read_tokens' | 'cache_write_tokens' | 'reasoning_tokens';

/** One usage write, as the service decided it (docs/domain.md §2.2.17). */
export interface UsageUpdate {
  mode: 'increment' | 'absolute';
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  apiCallCount: number;
  estimatedCostUsd?: number;
  actualCostUsd?: number;
  costStatus?: string;
  costSource?: string;
  pricingVersion?: string;
  /** Fill these only while the session has none (coalesce). */
  fillRoute: { model?: string; billingProvider?: string; billingBaseUrl?: string; billingMode?: string };
  now: number;
}

export interface CounterDelta {
  messages: number;
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  estimatedCostUsd: number;
}

export const ZERO_DELTA: CounterDelta = {
  messages: 0,
  toolCalls: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  estimatedCostUsd: 0,
};

/** What an append needs to know about the session it wrote to (returned by the same statement). */
export interface AppendedSession {
  profile: string;
  source: string;
  created_source: string;
  model: string | null;
  delegated: number;
  ended_at: number | null;
  end_reason: string | null;
  handoff_state: string | null;
  last_activity_at: number;
  revision: number;
  generation: number;
  lease_turn_id: string | null;
  lease_holder: string | null;
  lease_expires_at: number | null;
}

type AppendParam =
  | 'id'
  | 'messages'
  | 'toolCalls'
  | 'inputTokens'
  | 'outputTokens'
  | 'cacheReadTokens'
  | 'cacheWriteTokens'
  | 'reasoningTokens'
  | 'estimatedCostUsd'
  | 'now'
  | 'preview'
  | 'model';

export class SessionRepository {
  /**
   * The append hot path in one prepared statement: counters, activity, preview, model and revision
   * move together, and the row comes back for the caller's checks (a failed check rolls it back).
   * The usage rollup follows by trigger (migration 2026-11-30T04.00).
   */
  private readonly appendStatement = new PreparedQuery<AppendParam, AppendedSession>((db, param) =>
    db
      .updateTable('sessions')
      .set((eb) => ({
        message_count: eb('message_count', '+', param('messages')),
        tool_call_count: eb('tool_call_count', '+', param('toolCalls')),
        input_tokens: this.dialect.least(eb('input_tokens', '+', param('inputTokens')), sql.lit(SESSION_TOKENS_MAX)),
        output_tokens: this.dialect.least(eb('output_tokens', '+', param('outputTokens')), sql.lit(SESSION_TOKENS_MAX)),
        cache_read_tokens: this.dialect.least(
          eb('cache_read_tokens', '+', param('cacheReadTokens')),
          sql.lit(SESSION_TOKENS_MAX),
        ),
        cache_write_tokens: this.dialect.least(
          eb('cache_write_tokens', '+', param('cacheWriteTokens')),
          sql.lit(SESSION_TOKENS_MAX),
        ),
        reasoning_tokens: this.dialect.least(
          eb('reasoning_tokens', '+', param('reasoningTokens')),
          sql.lit(SESSION_TOKENS_MAX),
        ),
        estimated_cost_usd: this.dialect.least(
          eb('estimated_cost_usd', '+', param('estimatedCostUsd')),
          sql.lit(SESSION_COST_MAX),
        ),
        last_activity_at: this.dialect.greatest(eb.ref('last_activity_at'), param('now')),
        revision: eb('revision', '+', 1),
        preview: eb.fn.coalesce('preview', sql.val(param('preview'))),
        model: eb.fn.coalesce(sql.val(param('model')), 'model'),
      }))
      .where('id', '=', param('id'))
      .where('hidden_for', 'is', null)
      .returning([
        'profile',
        'source',
        'created_source',
        'model',
        'delegated',
        'ended_at',
        'end_reason',
        'handoff_state',
        'last_activity_at',
        'revision',
        'generation',
        'lease_turn_id',
        'lease_holder',
        'lease_expires_at',
      ]),
  );

  /**
   * The most frequent read of all (every single-session request): prepared once. A hidden session
   * (`hidden_for`, migration 2026-12-01T03.00) is not there: every read and write by id answers as
   * for an unknown one.
   */
  private readonly byId = new PreparedQuery<'id', SessionRow>((db, param) =>
    db.selectFrom('sessions').select(SESSION_COLUMNS).where('id', '=', param('id')).where('hidden_for', 'is', null),
  );
  private readonly byIdWithPrompt = new PreparedQuery<'id', SessionRow & { system_prompt: string | null }>(
    (db, param) =>
      db
        .selectFrom('sessions')
        .select(SESSION_COLUMNS)
        .select((eb) =>
          eb
            .selectFrom('session_prompts')
            .select('session_prompts.prompt')
            .whereRef('session_prompts.session_id', '=', 'sessions.id')
            .as('system_prompt'),
        )
        .where('id', '=', param('id'))
        .where('hidden_for', 'is', null),
  );

  /**
   * A revival on its own (a resolve that recovers an accidentally ended row): the one write a
   * gateway's next inbound message may cost, prepared once.
   */
  private readonly reviveStatement = new PreparedQuery<'id' | 'now', never>((db, param) =>
    db
      .updateTable('sessions')
      .set((eb) => ({
        ended_at: null,
        end_reason: null,
        end_reason_detail: null,
        last_activity_at: this.dialect.greatest(eb.ref('last_activity_at'), param('now')),
        revision: eb('revision', '+', 1),
      }))
      .where('id', '=', param('id'))
      .where('hidden_for', 'is', null),
  );

  constructor(private readonly dialect: SqlDialect) {}

  /** Runs the prepared append update; undefined when the session does not exist. */
  async appendCounters(
    db: Executor,
    id: string,
    delta: CounterDelta,
    now: number,
    preview: string | null,
    model: string | null,
  ): Promise<AppendedSession | undefined> {
    const result = await this.appendStatement.execute(db, {
      id,
      messages: delta.messages,
      toolCalls: delta.toolCalls,
      inputTokens: delta.inputTokens,
      outputTokens: delta.outputTokens,
      cacheReadTokens: delta.cacheReadTokens,
      cacheWriteTokens: delta.cacheWriteTokens,
      reasoningTokens: delta.reasoningTokens,
      estimatedCostUsd: delta.estimatedCostUsd,
      now,
      preview,
      model,
    });
    return result.rows[0];
  }

  async insert(db: Executor, row: NewSessionRow): Promise<SessionRow> {
    await db.insertInto('sessions').values(row).execute();
    return (await this.findIncludingHidden(db, row.id))!;
  }

  async findById(db: Executor, id: string): Promise<SessionRow | undefined> {
    return (await this.byId.execute(db, { id })).rows[0];
  }

  /**
   * The row with its system prompt snapshot (`GET /v1/sessions/:id`): one statement, not two — on
   * SQLite every statement outside a transaction is a read transaction of its own, and its begin
   * and end (WAL and file locks) cost more than the lookup itself.
   */
  async findByIdWithPrompt(
    db: Executor,
    id: string,
  ): Promise<(SessionRow & { system_prompt: string | null }) | undefined> {
    return (await this.byIdWithPrompt.execute(db, { id })).rows[0];
  }

  /** The row even while hidden: only for the writer that hid it (an import resuming its chunks). */
  async findIncludingHidden(db: Executor, id: string): Promise<SessionRow | undefined> {
    return db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * The row, hidden or not, locked on PostgreSQL for the rest of the transaction: two purges of the
   * same session (the deferred work, an importer waiting for the id) take turns chunk by chunk, so
   * neither mistakes rows the other is removing for rows already gone.
   */
  async findIncludingHiddenForUpdate(db: Executor, id: string): Promise<SessionRow | undefined> {
    const query = db.selectFrom('sessions').selectAll().where('id', '=', id);
    return (this.dialect.name === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
  }

  /**
   * Makes a hidden session visible (the last chunk of the write that hid it); no revision bump.
   * `patch`: what the revealing write settles with it (a branch's title and activity time).
   */
  async reveal(
    db: Executor,
    id: string,
    hiddenFor: string,
    patch: { title?: string | null; title_source?: string | null; last_activity_at?: number } = {},
  ): Promise<boolean> {
    const result = await db
      .updateTable('sessions')
      .set({ ...patch, hidden_for: null })
      .where('id', '=', id)
      .where('hidden_for', '=', hiddenFor)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * A hidden row's writer is still at work: its `last_activity_at` (nobody reads it while hidden)
   * says when it last wrote. False when the row is gone or no longer hidden for this reason.
   */
  async touchHidden(db: Executor, id: string, hiddenFor: string, at: number): Promise<boolean> {
    const result = await db
      .updateTable('sessions')
      .set({ last_activity_at: at })
      .where('id', '=', id)
      .where('hidden_for', '=', hiddenFor)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Reads the row and, on PostgreSQL, locks it for the rest of the transaction. */
  async findByIdForUpdate(db: Executor, id: string): Promise<SessionRow | undefined> {
    const query = db.selectFrom('sessions').selectAll().where('id', '=', id).where('hidden_for', 'is', null);
    // SQLite transactions are already exclusive (BEGIN IMMEDIATE) and reject FOR UPDATE.
    return (this.dialect.name === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
  }

  /**
   * Reads the row and, on PostgreSQL, holds a key-share lock on it for the rest of the transaction:
   * a concurrent delete waits for this transaction (and a row inserted here that refers to the
   * session can never outlive it), while ordinary updates of the session are not blocked.
   */
  async findByIdForKeyShare(db: Executor, id: string): Promise<SessionRow | undefined> {
    const query = db.selectFrom('sessions').selectAll().where('id', '=', id).where('hidden_for', 'is', null);
    return (this.dialect.name === 'postgres' ? query.forKeyShare() : query).executeTakeFirst();
  }

  /** Whether the id is taken — by a hidden session too (an id cannot be given twice). */
  async exists(db: Executor, id: string): Promise<boolean> {
    const row = await db.selectFrom('sessions').select('id').where('id', '=', id).executeTakeFirst();
    return row !== undefined;
  }

  /** Titles are unique per profile whether the holder is visible or hidden: no filter here. */
  async findByTitle(db: Executor, profile: string, title: string): Promise<{ id: string } | undefined> {
    return db
      .selectFrom('sessions')
      .select('id')
      .where('profile', '=', profile)
      .where('title', '=', title)
      .executeTakeFirst();
  }

  /**
   * Compare-and-set: applies `patch` and bumps the revision only when the row still carries
   * `expectedRevision` (when given). Returns false when no row matched — the caller decides
   * between not-found and conflict.
   */
  async update(db: Executor, id: string, patch: SessionPatch, expectedRevision?: number): Promise<boolean> {
    let query = db
      .updateTable('sessions')
      .set(patch)
      .set((eb) => ({ revision: eb('revision', '+', 1) }))
      .where('id', '=', id)
      .where('hidden_for', 'is', null);
    if (expectedRevision !== undefined) query = query.where('revision', '=', expectedRevision);
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Counters, activity and revision move in one statement with the preconditions (docs/domain.md §2.2). */
  async applyAppend(
    db: Executor,
    id: string,
    delta: CounterDelta,
    activityAt: number,
    preview: string | null,
    model: string | undefined,
    expected: { revision?: number; generation?: number },
    bumpRevision = true,
  ): Promise<boolean> {
    let query = db
      .updateTable('sessions')
      .set((eb) => ({
        message_count: eb('message_count', '+', delta.messages),
        tool_call_count: eb('tool_call_count', '+', delta.toolCalls),
        input_tokens: this.dialect.least(eb('input_tokens', '+', delta.inputTokens), sql.lit(SESSION_TOKENS_MAX)),
        output_tokens: this.dialect.least(eb('output_tokens', '+', delta.outputTokens), sql.lit(SESSION_TOKENS_MAX)),
        cache_read_tokens: this.dialect.least(
          eb('cache_read_tokens', '+', delta.cacheReadTokens),
          sql.lit(SESSION_TOKENS_MAX),
        ),
        cache_write_tokens: this.dialect.least(
          eb('cache_write_tokens', '+', delta.cacheWriteTokens),
          sql.lit(SESSION_TOKENS_MAX),
        ),
        reasoning_tokens: this.dialect.least(
          eb('reasoning_tokens', '+', delta.reasoningTokens),
          sql.lit(SESSION_TOKENS_MAX),
        ),
        estimated_cost_usd: this.dialect.least(
          eb('estimated_cost_usd', '+', delta.estimatedCostUsd),
          sql.lit(SESSION_COST_MAX),
        ),
        last_activity_at: this.dialect.greatest(eb.ref('last_activity_at'), activityAt),
        revision: eb('revision', '+', bumpRevision ? 1 : 0),
        ...(preview !== null ? { preview: eb.fn.coalesce('preview', sql.val(preview)) } : {}),
        ...(model !== undefined ? { model } : {}),
      }))
      .where('id', '=', id)
      .where('hidden_for', 'is', null);
    if (expected.revision !== undefined) query = query.where('revision', '=', expected.revision);
    if (expected.generation !== undefined) query = query.where('generation', '=', expected.generation);
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** First end wins: stamps only a row that is still open. Returns false when it was not open. */
  async stampEnd(
    db: Executor,
    id: string,
    endedAt: number,
    reason: string,
    detail: string | null = null,
  ): Promise<boolean> {
    const result = await db
      .updateTable('sessions')
      .set((eb) => ({
        ended_at: endedAt,
        end_reason: reason,
        end_reason_detail: detail,
        revision: eb('revision', '+', 1),
      }))
      .where('id', '=', id)
      .where('hidden_for', 'is', null)
      .where('ended_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** After a rewind: counters shrink, the preview follows the first still-active user message. */
  async applyRewind(
    db: Executor,
    id: string,
    removed: { messages: number; toolCalls: number },
    preview: string | null,
  ) {
    await db
      .updateTable('sessions')
      .set((eb) => ({
        message_count: eb('message_count', '-', removed.messages),
        tool_call_count: eb('tool_call_count', '-', removed.toolCalls),
        preview,
        revision: eb('revision', '+', 1),
      }))
      .where('id', '=', id)
      .execute();
  }

  /**
   * Clears the end stamp without a revision bump: for a transaction whose own statement already
   * bumped it (an append that revives its session is one change, one revision).
   */
  async clearEndKeepingRevision(db: Executor, id: string): Promise<void> {
    await db.updateTable('sessions').set({ ended_at: null, end_reason: null }).where('id', '=', id).execute();
  }

  /** When an import last wrote the row (bookkeeping: no revision of its own). */
  async markImported(db: Executor, id: string, importedAt: number): Promise<void> {
    await db.updateTable('sessions').set({ imported_at: importedAt }).where('id', '=', id).execute();
  }

  /**
   * `revive` committed on its own if the store's writer is idle and unchanged since `stamp`
   * (db/solo-write.ts); false: nothing ran.
   */
  reviveAlone(db: Db, id: string, now: number, stamp: string): boolean {
    return this.reviveStatement.executeAlone(db, { id, now }, stamp);
  }

  /** Reopens an ended row as activity at `now` (never moving activity back); bumps the revision. */
  async revive(db: Executor, id: string, now: number): Promise<void> {
    await this.reviveStatement.execute(db, { id, now });
  }

  async clearEnd(db: Executor, id: string): Promise<void> {
    await db
      .updateTable('sessions')
      .set((eb) => ({ ended_at: null, end_reason: null, end_reason_detail: null, revision: eb('revision', '+', 1) }))
      .where('id', '=', id)
      .execute();
  }

  /** Compare-and-set on the handoff state machine; false when the row was not in an allowed state. */
  async transitionHandoff(
    db: Executor,
    id: string,
    from: readonly (string | null)[],
    to: { state: string; platform?: string; error?: string | null },
    now: number,
    expectedRevision?: number,
  ): Promise<boolean> {
    const states = from.filter((state): state is string => state !== null);
    let query = db
      .updateTable('sessions')
      .set((eb) => ({
        handoff_state: to.state,
        handoff_updated_at: now,
        ...(to.platform !== undefined ? { handoff_platform: to.platform } : {}),
        ...(to.error !== undefined ? { handoff_error: to.error } : {}),
        revision: eb('revision', '+', 1),
      }))
      .where('id', '=', id)
      .where((eb) => {
        const allowed = states.length ? [eb('handoff_state', 'in', states)] : [];
        if (from.includes(null)) allowed.push(eb('handoff_state', 'is', null));
        return eb.or(allowed);
      });
    if (expectedRevision !== undefined) query = query.where('revision', '=', expectedRevision);
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Open sessions with activity since `since` (the recent-activity index bounds the scan). */
  async countActiveSince(db: Executor, since: number, profiles: string[] | null): Promise<number> {
    if (profiles !== null && profiles.length === 0) return 0;
    let query = db
      .selectFrom('sessions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('last_activity_at', '>=', since)
      .where('ended_at', 'is', null)
      .where('hidden_for', 'is', null);
    if (profiles !== null) query = query.where('profile', 'in', profiles);
    return Number((await query.executeTakeFirstOrThrow()).n);
  }

  /** `running` handoffs that last moved before `before` fail as expired; returns their ids. */
  async expireRunningHandoffs(
    db: Executor,
    before: number,
    now: number,
    limit: number,
    onlyId?: string,
  ): Promise<string[]> {
    let candidates = db
      .selectFrom('sessions')
      .select('id')
      .where('handoff_state', '=', 'running')
      .where('hidden_for', 'is', null);
    if (onlyId !== undefined) candidates = candidates.where('id', '=', onlyId);
    const stale = await candidates
      .where((eb) => eb.or([eb('handoff_updated_at', 'is', null), eb('handoff_updated_at', '<', before)]))
      .limit(limit)
      .execute();
    if (stale.length === 0) return [];
    const rows = await db
      .updateTable('sessions')
      .set((eb) => ({
        handoff_state: 'failed',
        handoff_error: 'expired',
        handoff_updated_at: now,
        revision: eb('revision', '+', 1),
      }))
      .where(
        'id',
        'in',
        stale.map((row) => row.id),
      )
      .where('handoff_state', '=', 'running')
      .returning('id')
      .execute();
    return rows.map((row) => row.id);
  }

  /**
   * Ends these rows with `reason` where they are still open and not under a live turn lease (the
   * check is in the statement itself); returns the ids it ended.
   */
  /** Every row of the profile, hidden ones too: a hidden session still needs its profile row. */
  async countInProfile(db: Executor, profile: string): Promise<number> {
    const row = await db
      .selectFrom('sessions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('profile', '=', profile)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** The profile's visible sessions (a hidden one is being written, or is deleted already). */
  async listInProfile(db: Executor, profile: string): Promise<SessionRow[]> {
    return db
      .selectFrom('sessions')
      .selectAll()
      .where('profile', '=', profile)
      .where('hidden_for', 'is', null)
      .execute();
  }

  /** Ids of the profile's rows hidden for this reason. */
  async listHiddenInProfile(db: Executor, profile: string, hiddenFor: string): Promise<string[]> {
    const rows = await db
      .selectFrom('sessions')
      .select('id')
      .where('profile', '=', profile)
      .where('hidden_for', '=', hiddenFor)
      .execute();
    return rows.map((row) => row.id);
  }

  async moveProfile(db: Executor, from: string, to: string): Promise<number> {
    const result = await db.updateTable('sessions').set({ profile: to }).where('profile', '=', from).executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /**
   * A profile rename: the profile's sessions delivered through a transport profile named like the
   * old profile are delivered through the one named like the new profile (docs/domain.md §6.1).
   */
  async renameTransportProfile(db: Executor, profile: string, from: string, to: string): Promise<number> {
    const result = await db
      .updateTable('sessions')
      .set({ transport_profile: to })
      .where('profile', '=', profile)
      .where('transport_profile', '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Rewrites routing keys by exact prefix (`substr`, never `LIKE`: `_` is legal in profile names). */
  async rewriteKeyPrefix(db: Executor, profile: string, oldPrefix: string, newPrefix: string): Promise<number> {
    const result = await db
      .updateTable('sessions')
      .set({ session_key: sql<string>`${newPrefix} || substr(session_key, ${oldPrefix.length + 1})` })
      .where('profile', '=', profile)
      .where(sql<boolean>`substr(session_key, 1, ${oldPrefix.length}) = ${oldPrefix}`)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async originsInProfile(db: Executor, profile: string): Promise<{ id: string; origin: string }[]> {
    const rows = await db
      .selectFrom('sessions')
      .select(['id', 'origin'])
      .where('profile', '=', profile)
      .where('origin', 'is not', null)
      .execute();
    return rows.map((row) => ({ id: row.id, origin: row.origin! }));
  }

  async setOrigin(db: Executor, id: string, origin: string): Promise<void> {
    await db.updateTable('sessions').set({ origin }).where('id', '=', id).execute();
  }

  /** The newest sessions of one peer (profile + routing key), for recovery decisions. */
  async peerSessions(db: Executor, profile: string, sessionKey: string, limit: number): Promise<SessionRow[]> {
    return db
      .selectFrom('sessions')
      .selectAll()
      .where('profile', '=', profile)
      .where('session_key', '=', sessionKey)
      .where('hidden_for', 'is', null)
      .orderBy('last_activity_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  /**
   * The newest sessions of one chat by its identity (profile, source, chat type, chat id, thread,
   * user), for recovery of rows whose key is missing or was written differently. The source
   * matches the live or the first surface; an absent thread means "no thread"; a user id, when
   * given, matches that user or rows that never recorded one.
   */
  async peerTupleSessions(
    db: Executor,
    peer: { profile: string; source: string; chatType: string; chatId: string; threadId?: string; userId?: string },
    limit: number,
  ): Promise<SessionRow[]> {
    let query = db
      .selectFrom('sessions')
      .selectAll()
      .where('profile', '=', peer.profile)
      .where('chat_id', '=', peer.chatId)
      .where('chat_type', '=', peer.chatType)
      .where('hidden_for', 'is', null)
      .where((eb) => eb.or([eb('source', '=', peer.source), eb('created_source', '=', peer.source)]))
      // An empty thread id is a value (compared with =), only a missing one is null.
      .where('thread_id', peer.threadId !== undefined ? '=' : 'is', peer.threadId ?? null);
    if (peer.userId !== undefined) {
      query = query.where((eb) => eb.or([eb('user_id', '=', peer.userId!), eb('user_id', 'is', null)]));
    }
    return query.orderBy('last_activity_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  async hasCompressionChild(db: Executor, id: string): Promise<boolean> {
    const row = await db
      .selectFrom('sessions')
      .select('id')
      .where('parent_session_id', '=', id)
      .where('lineage_kind', '=', 'compression')
      .where('hidden_for', 'is', null)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Visible rows of these ids (hidden ones are not there). */
  async listByIds(db: Executor, ids: readonly string[]): Promise<SessionRow[]> {
    const rows: SessionRow[] = [];
    for (const part of chunk(ids))
      rows.push(
        ...(await db
          .selectFrom('sessions')
          .selectAll()
          .where('id', 'in', part)
          .where('hidden_for', 'is', null)
          .execute()),
      );
    return rows;
  }

  /** Rows of these ids, hidden ones too: for an import deciding between create, resume and conflict. */
  async listByIdsIncludingHidden(db: Executor, ids: readonly string[]): Promise<SessionRow[]> {
    const rows: SessionRow[] = [];
    for (const part of chunk(ids))
      rows.push(...(await db.selectFrom('sessions').selectAll().where('id', 'in', part).execute()));
    return rows;
  }

  /**
   * Children of these rows; hidden ones only with `includeHidden` (the deletion engine, which must
   * orphan or take along every row that refers to a deleted one).
   */
  async childrenOf(
    db: Executor,
    parentIds: readonly string[],
    kind?: string,
    includeHidden = false,
  ): Promise<SessionRow[]> {
    const rows: SessionRow[] = [];
    for (const part of chunk(parentIds)) {
      let query = db.selectFrom('sessions').selectAll().where('parent_session_id', 'in', part);
      if (kind) query = query.where('lineage_kind', '=', kind);
      if (!includeHidden) query = query.where('hidden_for', 'is', null);
      rows.push(...(await query.execute()));
    }
    return rows;
  }

  /**
   * Moves a row to another profile (profile repair): its routing key follows the profile's exact
   * `agent:<profile>:` prefix, its title is the one the caller found free there.
   */
  async relocate(db: Executor, row: SessionRow, profile: string, title: string | null): Promise<void> {
    const oldPrefix = `agent:${row.profile}:`;
    const sessionKey =
      row.session_key?.startsWith(oldPrefix) === true
        ? `agent:${profile}:${row.session_key.slice(oldPrefix.length)}`
        : row.session_key;
    await db
      .updateTable('sessions')
      .set((eb) => ({
        profile,
        session_key: sessionKey,
        title,
        title_source: title === null ? null : row.title_source,
        revision: eb('revision', '+', 1),
      }))
      .where('id', '=', row.id)
      .execute();
  }

  /** Children that outlive their parent become roots of their own. */
  async orphan(db: Executor, ids: readonly string[]): Promise<void> {
    for (const part of chunk(ids)) {
      await db
        .updateTable('sessions')
        .set((eb) => ({ parent_session_id: null, lineage_kind: null, revision: eb('revision', '+', 1) }))
        .where('id', 'in', part)
        .execute();
    }
  }

  /**
   * PostgreSQL: locks these rows (FOR UPDATE NOWAIT, in id order); false when another transaction
   * holds one of them. SQLite transactions are exclusive: nothing to lock.
   */
  async lockNoWait(db: Executor, ids: readonly string[]): Promise<boolean> {
    if (this.dialect.name !== 'postgres' || ids.length === 0) return true;
    try {
      for (const part of chunk([...ids].sort())) {
        await db
          .selectFrom('sessions')
          .select('id')
          .where('id', 'in', part)
          .orderBy('id')
          .forUpdate()
          .noWait()
          .execute();
      }
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === '55P03') return false;
      throw error;
    }
  }

  async deleteByIds(db: Executor, ids: readonly string[]): Promise<void> {
    for (const part of chunk(ids)) await db.deleteFrom('sessions').where('id', 'in', part).execute();
  }

  /**
   * Hides these rows from every reader (`hidden_for`) while their removal continues in chunks. The
   * title goes at once: titles are unique per profile, and a deleted session must not hold one.
   */
  async hide(db: Executor, ids: readonly string[], hiddenFor: string): Promise<void> {
    for (const part of chunk(ids)) {
      await db.updateTable('sessions').set({ hidden_for: hiddenFor, title: null }).where('id', 'in', part).execute();
    }
  }

  /** Removes the row if it is still hidden for this reason; false when it is not (gone, or not hidden so). */
  async deleteHidden(db: Executor, id: string, hiddenFor: string): Promise<boolean> {
    const result = await db
      .deleteFrom('sessions')
      .where('id', '=', id)
      .where('hidden_for', '=', hiddenFor)
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  /**
   * Titles of the profile equal to `title` or of the form `"<title> #…"` (an exact prefix comparison,
   * never LIKE: `%` and `_` are ordinary characters of titles), newest start first.
   */
  async titleVariants(db: Executor, profile: string, title: string, limit: number) {
    const numbered = `${title} #`;
    return db
      .selectFrom('sessions')
      .select(['id', 'title', 'started_at'])
      .where('profile', '=', profile)
      .where('hidden_for', 'is', null)
      .where((eb) =>
        eb.or([eb('title', '=', title), sql<boolean>`substr(title, 1, ${[...numbered].length}) = ${numbered}`]),
      )
      .orderBy('started_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  /** The working directories of the profiles' sessions, most used first. */
  async workspaces(
    db: Executor,
    profiles: string[] | null,
    archived: 'exclude' | 'only' | 'include',
    limit: number,
  ): Promise<{ cwd: string; sessions: number; lastActiveAt: number }[]> {
    if (profiles !== null && profiles.length === 0) return [];
    let query = db
      .selectFrom('sessions')
      .select((eb) => [
        'cwd',
        eb.fn.countAll<number>().as('sessions'),
        eb.fn.max(eb.fn.coalesce('ended_at', 'started_at')).as('last'),
      ])
      .where('hidden_for', 'is', null)
      .where('cwd', 'is not', null)
      .where(sql<boolean>`trim(cwd) <> ''`);
    if (profiles !== null) query = query.where('profile', 'in', profiles);
    if (archived === 'exclude') query = query.where('archived', '=', 0);
    if (archived === 'only') query = query.where('archived', '=', 1);
    const rows = await query.groupBy('cwd').orderBy('sessions', 'desc').orderBy('cwd').limit(limit).execute();
    return rows.map((row) => ({ cwd: row.cwd!, sessions: Number(row.sessions), lastActiveAt: Number(row.last) }));
  }

  /**
   * Usage accounting of model calls (docs/domain.md §2.2.17) in one statement: counters added
   * (`increment`) or set (`absolute`); cost status, source and pricing version replaced when given;
   * the billing route and the model filled only while empty, and only by calls that account for
   * something. Bumps the revision.
   */
  async applyUsage(db: Executor, id: string, usage: UsageUpdate): Promise<boolean> {
    const add = usage.mode === 'increment';
    const counter = (column: TokenColumn, value: number) =>
      add
        ? this.dialect.least(sql<number>`${sql.ref(column)} + ${value}`, sql.lit(SESSION_TOKENS_MAX))
        : sql<number>`${value}`;
    const result = await db
      .updateTable('sessions')
      .set((eb) => ({
        input_tokens: counter('input_tokens', usage.inputTokens),
        output_tokens: counter('output_tokens', usage.outputTokens),
        cache_read_tokens: counter('cache_read_tokens', usage.cacheReadTokens),
        cache_write_tokens: counter('cache_write_tokens', usage.cacheWriteTokens),
        reasoning_tokens: counter('reasoning_tokens', usage.reasoningTokens),
        estimated_cost_usd: add
          ? this.dialect.least(eb('estimated_cost_usd', '+', usage.estimatedCostUsd ?? 0), sql.lit(SESSION_COST_MAX))
          : sql<number>`${usage.estimatedCostUsd ?? 0}`,
        ...(usage.actualCostUsd !== undefined
          ? {
              actual_cost_usd: add
                ? sql<number>`coalesce(actual_cost_usd, 0) + ${usage.actualCostUsd}`
                : sql<number>`${usage.actualCostUsd}`,
            }
          : {}),
        ...(usage.costStatus !== undefined ? { cost_status: usage.costStatus } : {}),
        ...(usage.costSource !== undefined ? { cost_source: usage.costSource } : {}),
        ...(usage.pricingVersion !== undefined ? { pricing_version: usage.pricingVersion } : {}),
        ...(usage.fillRoute.model !== undefined
          ? { model: eb.fn.coalesce('model', sql.val(usage.fillRoute.model)) }
          : {}),
        ...(usage.fillRoute.billingProvider !== undefined
          ? { billing_provider: eb.fn.coalesce('billing_provider', sql.val(usage.fillRoute.billingProvider)) }
          : {}),
        ...(usage.fillRoute.billingBaseUrl !== undefined
          ? { billing_base_url: eb.fn.coalesce('billing_base_url', sql.val(usage.fillRoute.billingBaseUrl)) }
          : {}),
        ...(usage.fillRoute.billingMode !== undefined
          ? { billing_mode: eb.fn.coalesce('billing_mode', sql.val(usage.fillRoute.billingMode)) }
          : {}),
        api_call_count: add ? eb('api_call_count', '+', usage.apiCallCount) : sql<number>`${usage.apiCallCount}`,
        last_activity_at: this.dialect.greatest(eb.ref('last_activity_at'), usage.now),
        revision: eb('revision', '+', 1),
      }))
      .where('id', '=', id)
      .where('hidden_for', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}
