import { createHash } from 'node:crypto';
import {
  COMPRESSION_RETRY_REASON_MAX_LENGTH,
  HANDOFF_STATES,
  ID_PATTERN,
  INSTANT_MAX_MS,
  type LineageKind,
  MESSAGE_ROLES,
  type MessageContent,
  PROFILE_PATTERN,
  type TitleSource,
  TOOL_NAME_MAX_LENGTH,
  TOOL_NAMES_MAX,
} from '@statehouse/contracts';
import type { NewMessageRow } from '../../db/database.js';
import { contentText, previewOf, toolUseParts } from '../../domain/message-content.js';
import type { NewSessionModelUsageRow } from '../../repositories/session-model-usage.repository.js';
import { sanitizeTitle } from '../../shared/sanitize.js';
import type { HermesMessageRow, HermesRow, HermesSessionRow } from './hermes-reader.js';
import type { HermesSchema } from './hermes-schema.js';
import {
  cleanJson,
  counter,
  epochMs,
  json,
  jsonObject,
  money,
  nonEmpty,
  Repairs,
  text,
  truthy,
} from './hermes-values.js';

/** Hermes stores structured content as this prefix followed by JSON. */
export const JSON_CONTENT_PREFIX = '\u0000json:';

/** The earliest sane time: what a session with no usable time at all is dated (deterministic). */
const FALLBACK_EPOCH_MS = Date.UTC(2000, 0, 1);

const sha = (value: string, length = 40) => createHash('sha256').update(value).digest('hex').slice(0, length);

/**
 * Statehouse ids are `[A-Za-z0-9._:-]{1,128}`. A Hermes id outside that alphabet gets a stable
 * derived id (the same on every run, so re-imports and parent references still meet).
 */
export function mapSessionId(raw: unknown): { id: string; changed: boolean } {
  const value = typeof raw === 'string' ? raw : Buffer.isBuffer(raw) ? raw.toString('utf8') : String(raw);
  if (ID_PATTERN.test(value)) return { id: value, changed: false };
  return { id: `hermes-${sha(value, 32)}`, changed: true };
}

/** Source labels are `[a-z0-9][a-z0-9_.-]*` (≤ 64); others are folded into that alphabet. */
export function mapSource(raw: unknown): string {
  const value = typeof raw === 'string' ? raw : raw === null || raw === undefined ? '' : String(raw);
  if (/^[a-z0-9][a-z0-9_.-]{0,63}$/.test(value)) return value;
  const folded = value
    .toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 64)
    .replace(/[-_.]+$/, '');
  return folded || 'unknown';
}

/** Profile names are `[a-z0-9][a-z0-9_-]{0,63}`; a name outside it is folded (null if nothing is left). */
export function foldProfile(raw: string): string | null {
  if (PROFILE_PATTERN.test(raw)) return raw;
  const folded = raw
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 64)
    .replace(/[-_]+$/, '');
  return PROFILE_PATTERN.test(folded) ? folded : null;
}

/**
 * The owning profile: `profile_name`, else `origin_json.profile`, else the profile the import was
 * given (else `default`).
 */
export function resolveProfile(
  row: Pick<HermesSessionRow, 'profile_name' | 'origin_json'>,
  fallback: string,
): { profile: string; note: string | null } {
  const repairs = new Repairs();
  const named = nonEmpty(row.profile_name, repairs);
  const origin = named === null ? jsonObject(row.origin_json, 'origin_json', repairs) : null;
  const fromOrigin = origin && typeof origin.profile === 'string' && origin.profile.trim() ? origin.profile : null;
  const wanted = named ?? fromOrigin;
  if (wanted === null) return { profile: fallback, note: null };
  const folded = foldProfile(wanted.trim());
  if (folded === null) return { profile: fallback, note: `profile "${wanted}" is not a valid name; used ${fallback}` };
  return { profile: folded, note: folded === wanted.trim() ? null : `profile "${wanted}" imported as "${folded}"` };
}

/** Lineage markers in a child's model_config name parents by their Hermes ids. */
export function markersOf(modelConfig: unknown): { branch?: string; delegate?: string; reset?: string } {
  const config = jsonObject(modelConfig, 'model_config', new Repairs());
  if (!config) return {};
  const mark = (value: unknown) => (typeof value === 'string' && value ? mapSessionId(value).id : undefined);
  return {
    branch: mark(config._branched_from),
    delegate: mark(config._delegate_from),
    reset: mark(config._reset_from),
  };
}

const TITLE_SOURCES: Record<string, TitleSource> = {
  user: 'user',
  llm: 'llm',
  derived: 'derived',
  // A branch title is made from the parent's: automatic.
  branch: 'derived',
  branch_fallback: 'derived',
};

/** The session fields a later import may move (the base of a three-way update). */
export interface SessionSnapshot {
  source: string;
  sessionKey: string | null;
  userId: string | null;
  chatId: string | null;
  chatType: string | null;
  threadId: string | null;
  displayName: string | null;
  origin: string | null;
  transportProfile: string | null;
  model: string | null;
  modelConfig: string | null;
  /** JSON array text of the offered tools (`sessions.tool_names`), or null. */
  toolNames: string | null;
  /** The compression anti-thrash deadline (epoch ms) and why (docs/migrating-from-hermes.md). */
  compressionRetryAfter: number | null;
  compressionRetryReason: string | null;
  title: string | null;
  titleSource: TitleSource | null;
  endedAt: number | null;
  endReason: string | null;
  archived: 0 | 1;
  pinned: 0 | 1;
  hidden: 0 | 1;
  handoffState: string | null;
  handoffPlatform: string | null;
  handoffError: string | null;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  estimatedCostUsd: number;
  lastActivityAt: number;
  parentId: string | null;
  lineageKind: LineageKind | null;
}

export interface MappedMessage {
  sourceId: number;
  /** Of the content (not of the visibility, which may move). */
  fingerprint: string;
  row: Omit<NewMessageRow, 'session_id' | 'substring_indexed' | 'active' | 'compacted'>;
  active: 0 | 1;
  compacted: 0 | 1;
  /** Counted in message_count: shown (not hidden) and not rewound. */
  counted: boolean;
  /** Tool calls it counts in tool_call_count (none once rewound). */
  toolCalls: number;
  /** Tool calls it carries, whatever its visibility. */
  toolCallsTotal: number;
  preview: string | null;
}

export interface MappedSession {
  sourceId: string;
  id: string;
  identity: string;
  profile: string;
  createdSource: string;
  startedAt: number;
  snapshot: SessionSnapshot;
  conversationGeneration: number;
  delegated: boolean;
  messages: MappedMessage[];
  messagesHash: string;
  /** First shown user message (compacted included: it is still the conversation's opening). */
  preview: string | null;
  usage: NewSessionModelUsageRow[];
  warnings: string[];
}

export interface SessionPlan {
  id: string;
  profile: string;
  parentId: string | null;
  lineageKind: LineageKind | null;
  delegated: boolean;
  conversationGeneration: number;
}

const bit = (value: boolean): 0 | 1 => (value ? 1 : 0);

/**
 * Maps one Hermes session whose messages arrive in pages, in source order (`addMessages` once per
 * page, then `finish`): what a page held can be dropped once it is mapped, and the importer lets
 * the event loop run between pages. The result is the same as with every message
 * mapped at once — each message's mapping depends only on the messages before it (its timestamp
 * fallback, the platform ids seen), and the transcript's hash is fed message by message.
 */
export class SessionMapper {
  private readonly repairs = new Repairs();
  private readonly sourceId: string;
  private readonly messages: MessageMapper;

  constructor(
    private readonly row: HermesSessionRow,
    schema: HermesSchema,
    private readonly now: number,
  ) {
    this.sourceId = text(row.id, this.repairs) ?? '';
    this.messages = new MessageMapper(schema, this.repairs, now);
  }

  /** The next messages of the session, in Hermes id order (after those added before). */
  addMessages(rows: readonly HermesMessageRow[]): void {
    this.messages.add(rows);
  }

  finish(usageRows: readonly HermesRow[], plan: SessionPlan): MappedSession {
    const warnings: string[] = [];
    const { messages, messagesHash } = this.messages.finish(warnings, this.sourceId);
    return mapSessionRow(
      this.row,
      this.sourceId,
      messages,
      messagesHash,
      warnings,
      usageRows,
      plan,
      this.repairs,
      this.now,
    );
  }
}

function mapSessionRow(
  row: HermesSessionRow,
  sourceId: string,
  messages: MappedMessage[],
  messagesHash: string,
  warnings: string[],
  usageRows: readonly HermesRow[],
  plan: SessionPlan,
  repairs: Repairs,
  now: number,
): MappedSession {
  const source = mapSource(row.source);
  const createdSource = mapSource(row.created_source ?? row.source);
  const firstMessageAt = messages.length > 0 ? Number(messages[0].row.timestamp) : null;
  const lastMessageAt = messages.reduce((max, m) => Math.max(max, Number(m.row.timestamp)), 0) || null;

  let endedAt = epochMs(row.ended_at, 'ended_at', repairs, now);
  const endReason = nonEmpty(row.end_reason, repairs);
  const startedRaw = epochMs(row.started_at, 'started_at', repairs, now);
  const startedAt = startedRaw ?? firstMessageAt ?? endedAt ?? FALLBACK_EPOCH_MS;
  if (startedRaw === null && (row.started_at === null || row.started_at === undefined)) {
    warnings.push(`session ${sourceId}: no start time; dated from its first message or end`);
  }
  if (endedAt === null && endReason !== null) endedAt = Math.max(startedAt, lastMessageAt ?? startedAt);
  if (endedAt !== null && endedAt < startedAt) endedAt = startedAt;
  const lastActivityAt = Math.max(
    startedAt,
    epochMs(row.last_activity_at, 'last_activity_at', repairs, now) ?? 0,
    lastMessageAt ?? 0,
    endedAt ?? 0,
  );

  const origin = jsonObject(row.origin_json, 'origin_json', repairs);
  const workspace = {
    cwd: nonEmpty(row.cwd, repairs) ?? undefined,
    gitBranch: nonEmpty(row.git_branch, repairs) ?? undefined,
    gitRepoRoot: nonEmpty(row.git_repo_root, repairs) ?? undefined,
  };
  const hasWorkspace = Object.values(workspace).some((value) => value !== undefined);
  const mergedOrigin = hasWorkspace && !(origin && 'workspace' in origin) ? { ...(origin ?? {}), workspace } : origin;
  const modelConfig = jsonObject(row.model_config, 'model_config', repairs);

  const title = sanitizeTitle(text(row.title, repairs));
  const rawTitleSource = nonEmpty(row.title_source, repairs);
  const titleSource: TitleSource | null =
    title === null ? null : rawTitleSource === null ? 'llm' : (TITLE_SOURCES[rawTitleSource] ?? 'derived');

  const handoffRaw = nonEmpty(row.handoff_state, repairs);
  const handoffState =
    handoffRaw !== null && (HANDOFF_STATES as readonly string[]).includes(handoffRaw) ? handoffRaw : null;
  if (handoffRaw !== null && handoffState === null) {
    warnings.push(`session ${sourceId}: unknown handoff state "${handoffRaw}" left out`);
  }

  const snapshot: SessionSnapshot = {
    source,
    sessionKey: nonEmpty(row.session_key, repairs),
    userId: nonEmpty(row.user_id, repairs),
    chatId: nonEmpty(row.chat_id, repairs),
    chatType: nonEmpty(row.chat_type, repairs),
    threadId: nonEmpty(row.thread_id, repairs),
    displayName: nonEmpty(row.display_name, repairs),
    origin: mergedOrigin ? JSON.stringify(mergedOrigin) : null,
    transportProfile: nonEmpty(row.transport_profile, repairs),
    model: nonEmpty(row.model, repairs),
    modelConfig: modelConfig ? JSON.stringify(modelConfig) : null,
    toolNames: mapToolNames(row.tool_names, sourceId, warnings, repairs),
    ...mapCompressionDeadline(row, repairs),
    title,
    titleSource,
    endedAt,
    endReason: endedAt === null ? null : (endReason ?? 'unknown'),
    archived: bit(truthy(row.archived) || truthy(row.auto_archived)),
    pinned: bit(truthy(row.pinned)),
    hidden: bit(truthy(row.hidden)),
    handoffState,
    handoffPlatform: handoffState === null ? null : nonEmpty(row.handoff_platform, repairs),
    handoffError: handoffState === null ? null : nonEmpty(row.handoff_error, repairs),
    inputTokens: counter(row.input_tokens),
    outputTokens: counter(row.output_tokens),
    cacheReadTokens: counter(row.cache_read_tokens),
    cacheWriteTokens: counter(row.cache_write_tokens),
    reasoningTokens: counter(row.reasoning_tokens),
    estimatedCostUsd: money(row.estimated_cost_usd) ?? 0,
    lastActivityAt,
    parentId: plan.parentId,
    lineageKind: plan.lineageKind,
  };

  const usage = mapUsage(row, usageRows, snapshot, plan.id, startedAt, repairs, now);
  fillTotalsFromUsage(snapshot, usage);
  warnings.push(...repairs.describe(`session ${sourceId}`));
  return {
    sourceId,
    id: plan.id,
    identity: sha(`${sourceId}\n${createdSource}\n${startedAt}`),
    profile: plan.profile,
    createdSource,
    startedAt,
    snapshot,
    conversationGeneration: plan.conversationGeneration,
    delegated: plan.delegated,
    messages,
    messagesHash,
    preview: messages.find((m) => m.preview !== null)?.preview ?? null,
    usage,
    warnings,
  };
}

/**
 * `sessions.tool_names`: the tools the session was offered, as Hermes pinned them (a JSON list;
 * older writers, a comma-separated string). Not derivable from the tool calls: a tool offered and
 * never called is in it. Kept in order, duplicates and unusable names dropped (with a warning).
 */
function mapToolNames(raw: unknown, sourceId: string, warnings: string[], repairs: Repairs): string | null {
  const value = text(raw, repairs);
  if (value === null || value.trim() === '') return null;
  let names: unknown[];
  try {
    const parsed: unknown = JSON.parse(value);
    names = Array.isArray(parsed) ? parsed : [parsed];
  } catch {
    names = value.split(',');
  }
  const kept: string[] = [];
  let dropped = 0;
  for (const name of names) {
    const clean = typeof name === 'string' ? name.trim() : null;
    if (
      clean === null ||
      clean === '' ||
      clean.length > TOOL_NAME_MAX_LENGTH ||
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
      /[\u0000-\u001F\u007F]/.test(clean) ||
      kept.includes(clean) ||
      kept.length >= TOOL_NAMES_MAX
    ) {
      dropped++;
      continue;
    }
    kept.push(clean);
  }
  if (dropped > 0)
    warnings.push(
      `session ${sourceId}: ${dropped} tool name(s) in tool_names left out (empty, repeated, too long or too many)`,
    );
  return JSON.stringify(kept);
}

/** A deadline in epoch seconds (or ms); 0, NULL and garbage are "none" (Hermes writes 0 for disarmed). */
function deadlineMs(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  if (!Number.isFinite(n) || n <= 0) return null;
  const ms = Math.round(Math.abs(n) >= 1e11 ? n : n * 1000);
  return ms >= Date.UTC(2000, 0, 1) && ms <= INSTANT_MAX_MS ? ms : null;
}

/**
 * Hermes keeps two "not before" times for compression: the failure cooldown (with the failure's
 * error) and the anti-thrash recovery deadline. Statehouse keeps one deadline: the later of them,
 * with the failure's error as the reason when there is one.
 */
function mapCompressionDeadline(
  row: HermesSessionRow,
  repairs: Repairs,
): { compressionRetryAfter: number | null; compressionRetryReason: string | null } {
  const cooldown = deadlineMs(row.compression_failure_cooldown_until);
  const recovery = deadlineMs(row.compression_recovery_deadline);
  const after = cooldown === null ? recovery : recovery === null ? cooldown : Math.max(cooldown, recovery);
  if (after === null) return { compressionRetryAfter: null, compressionRetryReason: null };
  const error = cooldown === null ? null : nonEmpty(row.compression_failure_error, repairs);
  const reason = error ?? (recovery === after ? 'anti-thrash recovery (Hermes)' : null);
  return {
    compressionRetryAfter: after,
    compressionRetryReason: reason?.slice(0, COMPRESSION_RETRY_REASON_MAX_LENGTH) ?? null,
  };
}

/**
 * A Hermes sessions row without a total (an older schema without the column, NULL, or the
 * column's default 0) while its per-model usage rows carry one: the session's total is the sum of
 * those rows. Otherwise the session would show $0 (or 0 tokens) beside a per-model breakdown that
 * adds up to more. A total the row does state is kept as Hermes wrote it.
 */
function fillTotalsFromUsage(snapshot: SessionSnapshot, usage: readonly NewSessionModelUsageRow[]): void {
  if (usage.length === 0) return;
  const sum = (pick: (u: NewSessionModelUsageRow) => number) => usage.reduce((total, u) => total + pick(u), 0);
  snapshot.inputTokens ||= sum((u) => u.input_tokens);
  snapshot.outputTokens ||= sum((u) => u.output_tokens);
  snapshot.cacheReadTokens ||= sum((u) => u.cache_read_tokens);
  snapshot.cacheWriteTokens ||= sum((u) => u.cache_write_tokens);
  snapshot.reasoningTokens ||= sum((u) => u.reasoning_tokens);
  // Rounded to a billionth of a dollar: a sum of binary fractions would show 0.42000000000000004.
  snapshot.estimatedCostUsd ||= Math.round(sum((u) => u.estimated_cost_usd) * 1e9) / 1e9;
}

const ROLE_ALIASES: Record<string, string> = { developer: 'system', function: 'tool' };

/** A session's messages mapped page by page (what carries over between messages lives here). */
class MessageMapper {
  private readonly hasActive: boolean;
  private readonly hasCompacted: boolean;
  private readonly seenPlatformIds = new Set<string>();
  private readonly unknownRoles = new Set<string>();
  private duplicatePlatformIds = 0;
  private previousAt: number | null = null;
  private readonly out: MappedMessage[] = [];
  /**
   * sha256 of every message's `sourceId:fingerprint:activecompacted`, joined by newlines (the
   * ledger's messages_hash), fed as the messages are mapped.
   */
  private readonly hash = createHash('sha256');

  constructor(
    schema: HermesSchema,
    private readonly repairs: Repairs,
    private readonly now: number,
  ) {
    this.hasActive = schema.messageColumns.has('active');
    this.hasCompacted = schema.messageColumns.has('compacted');
  }

  add(rows: readonly HermesMessageRow[]): void {
    for (const row of rows) {
      const message = this.map(row);
      if (!message) continue;
      this.hash.update(
        `${this.out.length > 0 ? '\n' : ''}${message.sourceId}:${message.fingerprint}:${message.active}${message.compacted}`,
      );
      this.out.push(message);
    }
  }

  finish(warnings: string[], sessionId: string): { messages: MappedMessage[]; messagesHash: string } {
    if (this.unknownRoles.size > 0) {
      warnings.push(
        `session ${sessionId}: messages with unknown roles (${[...this.unknownRoles].join(', ')}) imported as system`,
      );
    }
    if (this.duplicatePlatformIds > 0) {
      warnings.push(
        `session ${sessionId}: ${this.duplicatePlatformIds} message(s) repeated a platform message id; kept without it`,
      );
    }
    return { messages: this.out, messagesHash: this.hash.digest('hex') };
  }

  private map(row: HermesMessageRow): MappedMessage | null {
    const { repairs, now, seenPlatformIds, unknownRoles } = this;
    const sourceId = Number(row.id);
    if (!Number.isSafeInteger(sourceId)) return null;
    const rawRole = text(row.role, repairs) ?? '';
    let role = ROLE_ALIASES[rawRole] ?? rawRole;
    if (!(MESSAGE_ROLES as readonly string[]).includes(role)) {
      unknownRoles.add(rawRole);
      role = 'system';
    }
    const { content, contentJson, structured } = mapContent(row.content, repairs);
    const toolCallsValue = json(row.tool_calls, 'messages.tool_calls', repairs);
    const toolCalls = Array.isArray(toolCallsValue)
      ? toolCallsValue
      : toolCallsValue === undefined || toolCallsValue === null
        ? null
        : [toolCallsValue];
    const timestamp: number =
      epochMs(row.timestamp, 'messages.timestamp', repairs, now) ?? this.previousAt ?? FALLBACK_EPOCH_MS;
    this.previousAt = timestamp;
    let platformMessageId = nonEmpty(row.platform_message_id, repairs);
    if (platformMessageId !== null) {
      if (seenPlatformIds.has(platformMessageId)) {
        this.duplicatePlatformIds++;
        platformMessageId = null;
      } else {
        seenPlatformIds.add(platformMessageId);
      }
    }
    const displayRaw = nonEmpty(row.display_kind, repairs);
    const displayKind = truthy(row._compressed_summary)
      ? 'compaction_summary'
      : displayRaw === 'hidden'
        ? 'hidden'
        : displayRaw === 'compaction_summary' || displayRaw === 'summary'
          ? 'compaction_summary'
          : 'visible';
    const active = !this.hasActive || row.active === null || row.active === undefined || truthy(row.active);
    const compacted = !active && this.hasCompacted && truthy(row.compacted);
    const tokenCount = row.token_count === null || row.token_count === undefined ? null : counter(row.token_count);
    const mapped: MappedMessage['row'] = {
      role,
      content,
      content_json: contentJson,
      tool_call_id: nonEmpty(row.tool_call_id, repairs),
      tool_calls: toolCalls ? JSON.stringify(toolCalls) : null,
      tool_name: nonEmpty(row.tool_name, repairs),
      timestamp,
      token_count: tokenCount,
      finish_reason: nonEmpty(row.finish_reason, repairs),
      reasoning: nonEmpty(row.reasoning, repairs) ?? nonEmpty(row.reasoning_content, repairs),
      display_kind: displayKind,
      platform_message_id: platformMessageId,
    };
    const shown = displayKind !== 'hidden';
    const live = active || compacted;
    const calls = (toolCalls?.length ?? 0) + toolUseParts(structured);
    return {
      sourceId,
      fingerprint: sha(
        JSON.stringify([
          mapped.role,
          mapped.content,
          mapped.content_json,
          mapped.tool_call_id,
          mapped.tool_calls,
          mapped.tool_name,
          mapped.timestamp,
          mapped.token_count,
          mapped.finish_reason,
          mapped.reasoning,
          mapped.display_kind,
          mapped.platform_message_id,
        ]),
      ),
      row: mapped,
      active: bit(active),
      compacted: bit(compacted),
      counted: shown && live,
      toolCalls: live ? calls : 0,
      toolCallsTotal: calls,
      preview: role === 'user' && shown && live ? previewOf(content) : null,
    };
  }
}

/** Plain text, or `"\x00json:"` + JSON decoded into structured content (its text is what search reads). */
export function mapContent(
  raw: unknown,
  repairs: Repairs,
): { content: string | null; contentJson: string | null; structured?: MessageContent } {
  const value = Buffer.isBuffer(raw) ? raw.toString('utf8') : raw;
  if (typeof value === 'string' && value.startsWith(JSON_CONTENT_PREFIX)) {
    const body = value.slice(JSON_CONTENT_PREFIX.length);
    let parsed: unknown;
    try {
      parsed = cleanJson(JSON.parse(body), repairs);
    } catch {
      repairs.invalidJson.push('messages.content');
      return { content: text(body, repairs), contentJson: null };
    }
    if (parsed === null) return { content: null, contentJson: null };
    if (typeof parsed === 'string') return { content: parsed, contentJson: null };
    if (typeof parsed !== 'object') return { content: String(parsed), contentJson: null };
    const structured = parsed as MessageContent;
    return { content: contentText(structured), contentJson: JSON.stringify(parsed), structured };
  }
  return { content: text(value, repairs), contentJson: null };
}

/**
 * Per-model usage rows: Hermes' own `session_model_usage` when the file has it, else one main-loop
 * row built from the session's counters (so usage by model covers every imported session).
 */
function mapUsage(
  row: HermesSessionRow,
  usageRows: readonly HermesRow[],
  snapshot: SessionSnapshot,
  sessionId: string,
  startedAt: number,
  repairs: Repairs,
  now: number,
): NewSessionModelUsageRow[] {
  const key = (u: NewSessionModelUsageRow) =>
    [u.model, u.billing_provider, u.billing_base_url, u.billing_mode, u.task].join('\n');
  const out = new Map<string, NewSessionModelUsageRow>();
  for (const usage of usageRows) {
    const mapped: NewSessionModelUsageRow = {
      session_id: sessionId,
      model: nonEmpty(usage.model, repairs) ?? 'unknown',
      billing_provider: text(usage.billing_provider, repairs) ?? '',
      billing_base_url: text(usage.billing_base_url, repairs) ?? '',
      billing_mode: text(usage.billing_mode, repairs) ?? '',
      task: text(usage.task, repairs) ?? '',
      api_call_count: counter(usage.api_call_count),
      input_tokens: counter(usage.input_tokens),
      output_tokens: counter(usage.output_tokens),
      cache_read_tokens: counter(usage.cache_read_tokens),
      cache_write_tokens: counter(usage.cache_write_tokens),
      reasoning_tokens: counter(usage.reasoning_tokens),
      estimated_cost_usd: money(usage.estimated_cost_usd) ?? 0,
      actual_cost_usd: money(usage.actual_cost_usd),
      cost_status: nonEmpty(usage.cost_status, repairs),
      cost_source: nonEmpty(usage.cost_source, repairs),
      first_seen: epochMs(usage.first_seen, 'session_model_usage.first_seen', repairs, now),
      last_seen: epochMs(usage.last_seen, 'session_model_usage.last_seen', repairs, now),
    };
    out.set(key(mapped), mapped);
  }
  if (out.size > 0) return [...out.values()];
  const apiCalls = counter(row.api_call_count);
  const actual = money(row.actual_cost_usd);
  const anything =
    snapshot.model !== null ||
    apiCalls > 0 ||
    snapshot.inputTokens + snapshot.outputTokens + snapshot.cacheReadTokens + snapshot.cacheWriteTokens > 0 ||
    snapshot.estimatedCostUsd > 0;
  if (!anything) return [];
  return [
    {
      session_id: sessionId,
      model: snapshot.model ?? 'unknown',
      billing_provider: text(row.billing_provider, repairs) ?? '',
      billing_base_url: text(row.billing_base_url, repairs) ?? '',
      billing_mode: text(row.billing_mode, repairs) ?? '',
      task: '',
      api_call_count: apiCalls,
      input_tokens: snapshot.inputTokens,
      output_tokens: snapshot.outputTokens,
      cache_read_tokens: snapshot.cacheReadTokens,
      cache_write_tokens: snapshot.cacheWriteTokens,
      reasoning_tokens: snapshot.reasoningTokens,
      estimated_cost_usd: snapshot.estimatedCostUsd,
      actual_cost_usd: actual,
      cost_status: nonEmpty(row.cost_status, repairs),
      cost_source: nonEmpty(row.cost_source, repairs),
      first_seen: startedAt,
      last_seen: snapshot.lastActivityAt,
    },
  ];
}
