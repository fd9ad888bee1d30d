import type { ColumnType, Generated, Insertable, Kysely, Selectable, Transaction, Updateable } from 'kysely';

/**
 * The one hand-written schema of both dialects. Times are epoch milliseconds (BIGINT), booleans
 * are 0/1 integers and JSON is text, so the same row shape comes back from SQLite and PostgreSQL;
 * repositories map rows to contract types (ISO dates, booleans, parsed JSON).
 */
export type Bool = 0 | 1;
type Counter = ColumnType<number, number | undefined, number>;

export interface ProfilesTable {
  name: string;
  created_at: number;
}

export interface SessionsTable {
  id: string;
  profile: string;
  source: string;
  created_source: ColumnType<string, string, never>;
  session_key: string | null;
  user_id: string | null;
  chat_id: string | null;
  chat_type: string | null;
  thread_id: string | null;
  display_name: string | null;
  origin: string | null;
  transport_profile: string | null;
  model: string | null;
  model_config: string | null;
  title: string | null;
  title_source: string | null;
  parent_session_id: string | null;
  lineage_kind: string | null;
  started_at: number;
  ended_at: number | null;
  end_reason: string | null;
  last_activity_at: number;
  archived: ColumnType<Bool, Bool | undefined, Bool>;
  pinned: ColumnType<Bool, Bool | undefined, Bool>;
  hidden: ColumnType<Bool, Bool | undefined, Bool>;
  message_count: Counter;
  tool_call_count: Counter;
  input_tokens: Counter;
  output_tokens: Counter;
  cache_read_tokens: Counter;
  cache_write_tokens: Counter;
  reasoning_tokens: Counter;
  estimated_cost_usd: Counter;
  handoff_state: string | null;
  handoff_platform: string | null;
  handoff_error: string | null;
  /** First visible user message, truncated: the list preview without a per-row subquery. */
  preview: string | null;
  revision: Counter;
  generation: Counter;
  /** The live turn lease, if any: busy while lease_expires_at is in the future. */
  lease_turn_id: ColumnType<string | null, string | null | undefined, string | null>;
  lease_holder: ColumnType<string | null, string | null | undefined, string | null>;
  lease_expires_at: ColumnType<number | null, number | null | undefined, number | null>;
  /** A sub-agent conversation: a delegate child or a compression continuation of one. */
  delegated: ColumnType<Bool, Bool | undefined, Bool>;
  /** The peer's conversation generation when this session was created (0 when unkeyed). */
  conversation_generation: ColumnType<number, number | undefined, number>;
  /** The gateway process that owns this open row (docs/domain.md §10), and its incarnation. */
  gateway_id: ColumnType<string | null, string | null | undefined, string | null>;
  gateway_started_at: ColumnType<number | null, number | null | undefined, number | null>;
  /** When the handoff state last moved: a `running` handoff expires after a timeout. */
  handoff_updated_at: ColumnType<number | null, number | null | undefined, number | null>;
  /**
   * Why the session is not there for readers yet (or any more): null = visible; `'import'` while an
   * import writes it in chunks. Every read path and write by id leaves hidden rows out.
   */
  hidden_for: ColumnType<string | null, string | null | undefined, string | null>;
  /** The workspace the session runs in (docs/domain.md §2.2.16). */
  cwd: ColumnType<string | null, string | null | undefined, string | null>;
  git_branch: ColumnType<string | null, string | null | undefined, string | null>;
  git_repo_root: ColumnType<string | null, string | null | undefined, string | null>;
  /** Billing route and usage accounting beyond the token counters (docs/domain.md §2.2.17). */
  billing_provider: ColumnType<string | null, string | null | undefined, string | null>;
  billing_base_url: ColumnType<string | null, string | null | undefined, string | null>;
  billing_mode: ColumnType<string | null, string | null | undefined, string | null>;
  api_call_count: Counter;
  actual_cost_usd: ColumnType<number | null, number | null | undefined, number | null>;
  cost_status: ColumnType<string | null, string | null | undefined, string | null>;
  cost_source: ColumnType<string | null, string | null | undefined, string | null>;
  pricing_version: ColumnType<string | null, string | null | undefined, string | null>;
  /** The caller's own end reason when it is outside the taxonomy (`end_reason` is then `other`, §4.9). */
  end_reason_detail: ColumnType<string | null, string | null | undefined, string | null>;
  /** JSON object of client-owned attributes (docs/domain.md §2.2.18), never interpreted here. */
  attributes: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * When an import last wrote this row (null: created here). Until a Statehouse writer moves its
   * activity past that moment, an open imported row keeps the old store's liveness (§10.3).
   */
  imported_at: ColumnType<number | null, number | null | undefined, number | null>;
  /** JSON array of the tools the session was offered, in order (docs/domain.md §2.2.11); null: never pinned. */
  tool_names: ColumnType<string | null, string | null | undefined, string | null>;
  /** The compression anti-thrash deadline (epoch ms) and why; cleared by a successful compression. */
  compression_retry_after: ColumnType<number | null, number | null | undefined, number | null>;
  compression_retry_reason: ColumnType<string | null, string | null | undefined, string | null>;
}

/**
 * Every column of `sessions`, named: a read that lists them has a result shape its SQL fixes,
 * where a `select *` follows whatever schema the file has at the moment (the driver's row
 * constructors check the schema version for those; db/sqlite-dialect.ts). Hot reads by id use it.
 * The type below fails to compile when a column of SessionsTable is missing here.
 */
export const SESSION_COLUMNS = [
  'id',
  'profile',
  'source',
  'created_source',
  'session_key',
  'user_id',
  'chat_id',
  'chat_type',
  'thread_id',
  'display_name',
  'origin',
  'transport_profile',
  'model',
  'model_config',
  'title',
  'title_source',
  'parent_session_id',
  'lineage_kind',
  'started_at',
  'ended_at',
  'end_reason',
  'last_activity_at',
  'archived',
  'pinned',
  'hidden',
  'message_count',
  'tool_call_count',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'estimated_cost_usd',
  'handoff_state',
  'handoff_platform',
  'handoff_error',
  'preview',
  'revision',
  'generation',
  'lease_turn_id',
  'lease_holder',
  'lease_expires_at',
  'delegated',
  'conversation_generation',
  'gateway_id',
  'gateway_started_at',
  'handoff_updated_at',
  'hidden_for',
  'cwd',
  'git_branch',
  'git_repo_root',
  'billing_provider',
  'billing_base_url',
  'billing_mode',
  'api_call_count',
  'actual_cost_usd',
  'cost_status',
  'cost_source',
  'pricing_version',
  'end_reason_detail',
  'attributes',
  'imported_at',
  'tool_names',
  'compression_retry_after',
  'compression_retry_reason',
] as const satisfies readonly (keyof SessionsTable)[];
type MissingSessionColumns = Exclude<keyof SessionsTable, (typeof SESSION_COLUMNS)[number]>;
// Compiles only while MissingSessionColumns is empty (the error names the missing column).
const everySessionColumn: [MissingSessionColumns] extends [never] ? true : MissingSessionColumns = true;
void everySessionColumn;

export interface RoutesTable {
  profile: string;
  session_key: string;
  session_id: string;
  origin: string | null;
  suspended: ColumnType<Bool, Bool | undefined, Bool>;
  created_at: number;
  updated_at: number;
}

export interface ConversationGenerationsTable {
  source: string;
  session_key: string;
  generation: number;
  updated_at: number;
}

export interface MessagesTable {
  id: Generated<number>;
  session_id: string;
  role: string;
  /** Plain text: the content itself, or the text extracted from structured content (indexed). */
  content: string | null;
  /** Structured content exactly as given (JSON), or null for plain text. */
  content_json: string | null;
  tool_call_id: string | null;
  tool_calls: string | null;
  tool_name: string | null;
  timestamp: number;
  token_count: number | null;
  finish_reason: string | null;
  reasoning: string | null;
  display_kind: string;
  active: ColumnType<Bool, Bool | undefined, Bool>;
  compacted: ColumnType<Bool, Bool | undefined, Bool>;
  platform_message_id: string | null;
  /**
   * Decided once at insert (docs/domain.md §7: not tool rows, not cron/sub-agent/delegate sessions), so the
   * substring index's triggers depend on the row alone and stay consistent when a session changes.
   */
  substring_indexed: Bool;
  /**
   * JSON of what an agent replays to its provider with the message — reasoning content, reasoning
   * details, Codex items — and its own annotations (observed, effect disposition); null for most rows.
   */
  replay_fields: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * An assistant reply's time minus the time of the user message it answers, set when the reply is
   * written (docs/stats.md, "Reply latency"); null otherwise (migration 2026-12-06T21.00).
   */
  reply_latency_ms: ColumnType<number | null, number | null | undefined, number | null>;
  /** The append's `estimatedCostUsd`, on its last assistant reply; null when no cost was sent. */
  cost_usd: ColumnType<number | null, number | null | undefined, number | null>;
}

/** A session's system prompt snapshot, beside its row (docs/domain.md §2.2.19). */
export interface SessionPromptsTable {
  session_id: string;
  prompt: string;
  updated_at: number;
}

/** A small key/value store per profile (docs/domain.md §12). */
export interface ProfileMetaTable {
  profile: string;
  key: string;
  value: string;
  updated_at: number;
}

/** A profile's label (docs/domain.md §15). */
export interface LabelsTable {
  id: string;
  profile: string;
  name: string;
  /** The name folded for uniqueness and lookups (labels.name-unique). */
  name_key: string;
  colour: string;
  created_at: number;
  updated_at: number;
  revision: Generated<number>;
}

/** A label on a session (docs/domain.md §15). */
export interface SessionLabelsTable {
  session_id: string;
  label_id: string;
  created_at: number;
}

export interface ApiTokensTable {
  id: string;
  name: string;
  token_hash: string;
  role: string;
  profiles: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface UsersTable {
  id: string;
  username: string;
  password_hash: string;
  role: string;
  profiles: string;
  created_at: number;
  /** Set while the user is disabled: no sign-in, no dashboard session. */
  disabled_at: ColumnType<number | null, number | null | undefined, number | null>;
  last_login_at: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface AuthSessionsTable {
  id_hash: string;
  user_id: string;
  created_at: number;
  expires_at: number;
  /** What the owner sees and ends a session by: random, never the secret or its hash. */
  public_id: string;
  last_seen_at: ColumnType<number | null, number | null | undefined, number | null>;
  user_agent: ColumnType<string | null, string | null | undefined, string | null>;
  client_address: ColumnType<string | null, string | null | undefined, string | null>;
}

/** One login attempt, reserved before the password check; `pending` counts as a failure. */
export interface LoginAttemptsTable {
  id: Generated<number>;
  /** The username as typed, lowercased (unknown names are throttled like real ones). */
  account: string;
  /** The client address (IPv6 by /64), as the API's trusted proxies report it. */
  address: string;
  state: 'pending' | 'failed';
  at: number;
}

/** Where an account signed in successfully: its failures there are judged apart from others'. */
export interface LoginKnownAddressesTable {
  account: string;
  address: string;
  last_success_at: number;
}

export interface IdempotencyKeysTable {
  principal_key: string;
  idempotency_key: string;
  fingerprint: string;
  status: number;
  body: string | null;
  created_at: number;
}

export interface DeletionReceiptsTable {
  sequence: Generated<number>;
  operation_id: string;
  origin: string;
  intent: string;
  reason: string;
  profile: string;
  actor_kind: string;
  actor_id: string;
  created_at: number;
  /** JSON: {sessions, messages, routes}. */
  counts: string;
  /** JSON: one identity per removed session (no content, titles or names). */
  identities: string;
  prev_hash: string;
  hash: string;
}

export interface ReceiptConsumersTable {
  name: string;
  cursor: number;
  /** The principal that acknowledged last. */
  principal: string;
  updated_at: number;
  /** The principal that registered the consumer (null only for rows older than the column). */
  created_by: string | null;
  created_at: number | null;
  /** The store epoch the cursor was acknowledged in (docs/domain.md §5.3.6). */
  epoch: string | null;
}

/** Per profile, the highest receipt sequence reclamation removed: a member's floor. */
export interface ReceiptProfileFloorsTable {
  profile: string;
  floor: number;
}

export interface StoreMetaTable {
  key: string;
  value: string;
}

export interface RetentionPoliciesTable {
  profile: string;
  retention_days: number;
  updated_at: number;
}

export interface JobLeasesTable {
  name: string;
  holder: string;
  expires_at: number;
}

/** A gateway process identity and its liveness (docs/domain.md §10). */
export interface GatewaysTable {
  id: string;
  profile: string;
  host: string;
  pid: number;
  /** The incarnation: when the process now heartbeating under this id started. */
  started_at: number;
  registered_at: number;
  last_seen_at: number;
  heartbeats: Counter;
}

/** An obligation a gateway owes a chat (docs/domain.md §11). */
export interface DeliveriesTable {
  id: string;
  profile: string;
  session_id: string;
  transport_profile: string | null;
  /** JSON; erased when the obligation is abandoned because its session was deleted. */
  payload: string | null;
  fingerprint: string;
  state: string;
  attempts: Counter;
  max_attempts: number;
  claim_id: string | null;
  claim_holder: string | null;
  claim_expires_at: number | null;
  last_error: string | null;
  abandoned_reason: string | null;
  created_at: number;
  updated_at: number;
  delivered_at: number | null;
}

/** Async sub-agent work and the wake-up it owes its origin session (docs/domain.md §12). */
export interface DelegationsTable {
  id: string;
  /** The origin's profile. */
  profile: string;
  origin_session_id: string;
  child_session_id: string | null;
  state: string;
  /** JSON; erased with the origin session. */
  task: string | null;
  /** Erased when the origin or the child session is deleted. */
  result_summary: string | null;
  error: string | null;
  abandoned_reason: string | null;
  /** What makes a create the same one (origin, child, task): a retry of it is answered, not refused. */
  fingerprint: string;
  wake_attempts: Counter;
  claim_id: string | null;
  claim_holder: string | null;
  claim_expires_at: number | null;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
  delivered_at: number | null;
}

/**
 * A scheduled wake-up of a session (docs/domain.md §13). `wake_at` is what the due scan reads: the
 * next tick while unclaimed, the lease expiry while claimed (a lapsed claim is due again).
 */
export interface SchedulesTable {
  id: string;
  profile: string;
  session_id: string;
  kind: string;
  interval_seconds: number | null;
  cron: string | null;
  time_zone: string | null;
  /** JSON object. */
  payload: string;
  enabled: Bool;
  next_due_at: number;
  last_fired_at: number | null;
  wake_at: number;
  /** +1 on every claim: the fencing token a completion presents. */
  claim_generation: Counter;
  claim_holder: string | null;
  claim_expires_at: number | null;
  claimed_due_at: number | null;
  revision: Counter;
  created_at: number;
  updated_at: number;
}

export interface ImportJobsTable {
  id: string;
  kind: string;
  state: string;
  dry_run: ColumnType<Bool, Bool | undefined, Bool>;
  profile: string | null;
  on_conflict: string;
  file_name: string | null;
  file_bytes: number;
  /** JSON: ImportProgress. */
  progress: string;
  /** JSON: ImportReport (counts so far while running). */
  report: string;
  /** JSON: [{id, title}], a bounded sample of imported conversations. */
  conversations: string;
  error: string | null;
  /** Which process runs it (host:pid:…); with updated_at, tells a live run from an interrupted one. */
  holder: string | null;
  created_by: string;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  updated_at: number;
}

/** The import ledger: one row per source session ever imported (a tombstone once deleted here). */
export interface ImportSessionsTable {
  source: string;
  source_session_id: string;
  session_id: string;
  /** Fingerprint of what makes the source session the same one (id, first source, start). */
  identity: string;
  /** JSON of the session fields as last imported (null once deleted here): the base of a three-way update. */
  snapshot: string | null;
  /** Fingerprint of the whole source transcript as last imported (null once deleted here). */
  messages_hash: string | null;
  state: 'imported' | 'deleted' | string;
  job_id: string | null;
  imported_at: number;
}

export interface ImportMessagesTable {
  session_id: string;
  source_message_id: number;
  message_id: number;
  fingerprint: string;
  active: Bool;
  compacted: Bool;
}

/** Token and cost counters per (session, model, billing route, task); `task = ''` is the main loop. */
export interface SessionModelUsageTable {
  session_id: string;
  model: string;
  billing_provider: string;
  billing_base_url: string;
  billing_mode: string;
  task: string;
  api_call_count: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  estimated_cost_usd: number;
  actual_cost_usd: number | null;
  cost_status: string | null;
  cost_source: string | null;
  first_seen: number | null;
  last_seen: number | null;
}

/** The additive figures a usage rollup row carries (docs/stats.md). */
export interface UsageCounterColumns {
  conversations: Counter;
  sessions: Counter;
  messages: Counter;
  input_tokens: Counter;
  output_tokens: Counter;
  cache_read_tokens: Counter;
  cache_write_tokens: Counter;
  reasoning_tokens: Counter;
  cost_usd: Counter;
}

/** What one session contributed in one UTC hour, on one surface, with one model ('' = none). */
export interface SessionUsageTable extends UsageCounterColumns {
  session_id: string;
  hour_start: number;
  source: string;
  model: string;
  profile: string;
}

/**
 * `session_usage` summed per UTC day, profile, surface and model; kept by triggers. On PostgreSQL
 * a key's figures are spread over several rows (a `stripe` column, part of the key, migration
 * 2026-12-01T03.10) so concurrent appends don't wait on one row: readers always sum over the key.
 * `stripe` is left out here because SQLite has no such column; only PostgreSQL-branch raw SQL
 * names it.
 */
export interface UsageDailyTable extends UsageCounterColumns {
  day_start: number;
  profile: string;
  source: string;
  model: string;
}

/**
 * A histogram of reply latencies per UTC hour, profile, surface, model ('' = none) and logarithmic
 * bucket (docs/stats.md, "Reply latency"); `reply_latency_daily` is the same per UTC day.
 */
export interface ReplyLatencyHourlyTable {
  hour_start: number;
  profile: string;
  source: string;
  model: string;
  bucket: number;
  replies: Counter;
  min_ms: number;
  max_ms: number;
}

export interface ReplyLatencyDailyTable extends Omit<ReplyLatencyHourlyTable, 'hour_start'> {
  day_start: number;
}

/** Deletion receipts per UTC hour, profile and origin (kept when receipts are reclaimed). */
export interface DeletionRollupsTable {
  hour_start: number;
  profile: string;
  origin: string;
  operations: Counter;
  sessions: Counter;
  messages: Counter;
}

/** One row per (job, interval): the lease of that interval while it runs, its record once done. */
export interface JobRunsTable {
  job: string;
  interval_start: number;
  interval_end: number;
  /** running | done | failed */
  status: string;
  holder: string;
  lease_expires_at: number;
  attempts: number;
  started_at: number;
  finished_at: number | null;
  /** JSON: what the pass did. */
  summary: string | null;
  error: string | null;
}

export interface BackupsTable {
  id: string;
  /** cli | scheduled */
  trigger: string;
  /** running | succeeded | failed */
  status: string;
  dialect: string;
  path: string;
  holder: string;
  started_at: number;
  finished_at: number | null;
  bytes: number | null;
  /** JSON: {sessions, messages, receipts} in the copy. */
  counts: string | null;
  error: string | null;
}

/** A long operation that continues in chunks after the transaction that started it. */
export interface DeferredWorkTable {
  kind: string;
  subject: string;
  created_at: number;
}

export interface DB {
  profiles: ProfilesTable;
  sessions: SessionsTable;
  messages: MessagesTable;
  api_tokens: ApiTokensTable;
  users: UsersTable;
  auth_sessions: AuthSessionsTable;
  login_attempts: LoginAttemptsTable;
  login_known_addresses: LoginKnownAddressesTable;
  idempotency_keys: IdempotencyKeysTable;
  conversation_generations: ConversationGenerationsTable;
  deletion_receipts: DeletionReceiptsTable;
  receipt_consumers: ReceiptConsumersTable;
  receipt_profile_floors: ReceiptProfileFloorsTable;
  store_meta: StoreMetaTable;
  retention_policies: RetentionPoliciesTable;
  job_leases: JobLeasesTable;
  job_runs: JobRunsTable;
  backups: BackupsTable;
  deferred_work: DeferredWorkTable;
  routes: RoutesTable;
  gateways: GatewaysTable;
  deliveries: DeliveriesTable;
  delegations: DelegationsTable;
  schedules: SchedulesTable;
  import_jobs: ImportJobsTable;
  import_sessions: ImportSessionsTable;
  import_messages: ImportMessagesTable;
  session_model_usage: SessionModelUsageTable;
  session_usage: SessionUsageTable;
  usage_daily: UsageDailyTable;
  deletion_rollups: DeletionRollupsTable;
  reply_latency_hourly: ReplyLatencyHourlyTable;
  reply_latency_daily: ReplyLatencyDailyTable;
  session_prompts: SessionPromptsTable;
  profile_meta: ProfileMetaTable;
  labels: LabelsTable;
  session_labels: SessionLabelsTable;
}

export type Dialect = 'sqlite' | 'postgres';
export type Db = Kysely<DB>;
export type Executor = Kysely<DB> | Transaction<DB>;

export type SessionRow = Selectable<SessionsTable>;
export type NewSessionRow = Insertable<SessionsTable>;
export type SessionPatch = Updateable<SessionsTable>;
export type MessageRow = Selectable<MessagesTable>;
export type NewMessageRow = Insertable<MessagesTable>;
