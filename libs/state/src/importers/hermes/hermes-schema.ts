import type Database from 'better-sqlite3';
import { ImportInputError } from '../../domain/import-errors.js';

/**
 * What a Hermes Agent `state.db` may hold. Files in the wild differ in which columns they have
 * (the schema grows by ADD COLUMN), so the importer probes tables and columns and treats every
 * column below the core as optional; `schema_version` is informative only.
 */
export const SESSION_CORE = [
  'id',
  'source',
  'user_id',
  'model',
  'model_config',
  'system_prompt',
  'parent_session_id',
  'started_at',
  'ended_at',
  'end_reason',
  'message_count',
  'tool_call_count',
  'input_tokens',
  'output_tokens',
  'title',
] as const;

export const SESSION_OPTIONAL = [
  'created_source',
  'session_key',
  'chat_id',
  'chat_type',
  'thread_id',
  'display_name',
  'origin_json',
  'cache_read_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'estimated_cost_usd',
  'actual_cost_usd',
  'cost_status',
  'cost_source',
  'billing_provider',
  'billing_base_url',
  'billing_mode',
  'cwd',
  'git_branch',
  'git_repo_root',
  'title_source',
  'last_activity_at',
  'api_call_count',
  'handoff_state',
  'handoff_platform',
  'handoff_error',
  'profile_name',
  'transport_profile',
  'rewind_count',
  'archived',
  'auto_archived',
  'pinned',
  'hidden',
  'last_read_at',
  'system_prompt_hash',
  'tool_names',
  'compression_failure_cooldown_until',
  'compression_failure_error',
  'compression_recovery_deadline',
] as const;

/**
 * Session columns known and deliberately not imported (no note in the report): Hermes' compressor
 * heuristics, which restart from zero with the runtime that reads them (docs/migrating-from-hermes.md).
 */
export const SESSION_NOT_IMPORTED = [
  'compression_fallback_streak',
  'compression_ineffective_count',
  'compression_overload_streak',
] as const;

export const MESSAGE_CORE = [
  'id',
  'session_id',
  'role',
  'content',
  'tool_call_id',
  'tool_calls',
  'tool_name',
  'timestamp',
  'token_count',
  'finish_reason',
] as const;

export const MESSAGE_OPTIONAL = [
  'reasoning',
  'reasoning_content',
  'reasoning_details',
  'platform_message_id',
  'active',
  'compacted',
  '_compressed_summary',
  'display_kind',
  'display_metadata',
  'api_content',
  'message_uid',
] as const;

export type SessionColumn = (typeof SESSION_CORE)[number] | (typeof SESSION_OPTIONAL)[number];
export type MessageColumn = (typeof MESSAGE_CORE)[number] | (typeof MESSAGE_OPTIONAL)[number];

/** Without these there is nothing to import: the file is not a Hermes store. */
const SESSION_REQUIRED = ['id', 'source', 'started_at'];
const MESSAGE_REQUIRED = ['id', 'session_id', 'role', 'content'];

/** Tables Hermes keeps for itself (runtime bookkeeping, search): known, not conversation data. */
const BOOKKEEPING_TABLES = new Set([
  'schema_version',
  'state_meta',
  'compression_locks',
  'session_turn_leases',
  'async_delegations',
  'gateway_heartbeats',
  'delivery_obligations',
  'session_deletion_receipts',
  'system_prompts',
]);
const DATA_TABLES = new Set([
  'sessions',
  'messages',
  'session_model_usage',
  'gateway_routing',
  'conversation_generations',
]);

export interface HermesSchema {
  sessionColumns: ReadonlySet<string>;
  messageColumns: ReadonlySet<string>;
  usageColumns: ReadonlySet<string>;
  routingColumns: ReadonlySet<string>;
  generationColumns: ReadonlySet<string>;
  /** Runtime tables the importer maps (docs/migrating-from-hermes.md): empty when absent. */
  delegationColumns: ReadonlySet<string>;
  obligationColumns: ReadonlySet<string>;
  /** Every table of the file. */
  tables: ReadonlySet<string>;
  /** `schema_version.version` when present (informative: decisions come from the probes). */
  schemaVersion: number | null;
  /** One line each: unknown tables and columns are ignored, missing core columns read as NULL. */
  notes: string[];
}

const quoteIdentifier = (name: string) => `"${name.replaceAll('"', '""')}"`;

function columnsOf(db: Database.Database, table: string): Set<string> {
  const rows = db.prepare(`pragma table_info(${quoteIdentifier(table)})`).all() as { name: string }[];
  return new Set(rows.map((row) => row.name));
}

/** Probes a (private copy of a) Hermes file. Throws ImportInputError when it is not one. */
export function probeHermesSchema(db: Database.Database): HermesSchema {
  let tables: string[];
  try {
    tables = (
      db.prepare(`select name from sqlite_master where type = 'table' order by name`).all() as { name: string }[]
    ).map((row) => row.name);
  } catch (error) {
    throw ImportInputError.fromSqlite(error);
  }
  const tableSet = new Set(tables);
  if (tableSet.has('kysely_migration')) {
    throw new ImportInputError(
      'this is a Statehouse database, not a Hermes Agent state.db (it has a kysely_migration table)',
    );
  }
  const missingTables = ['sessions', 'messages'].filter((table) => !tableSet.has(table));
  if (missingTables.length > 0) {
    throw new ImportInputError(
      `not a Hermes Agent state.db: no ${missingTables.join(' or ')} table` +
        (tables.length
          ? ` (it has: ${tables.slice(0, 12).join(', ')}${tables.length > 12 ? ', …' : ''})`
          : ' (it has no tables)'),
    );
  }
  const sessionColumns = columnsOf(db, 'sessions');
  const messageColumns = columnsOf(db, 'messages');
  const missingRequired = [
    ...SESSION_REQUIRED.filter((column) => !sessionColumns.has(column)).map((column) => `sessions.${column}`),
    ...MESSAGE_REQUIRED.filter((column) => !messageColumns.has(column)).map((column) => `messages.${column}`),
  ];
  if (missingRequired.length > 0) {
    throw new ImportInputError(`not a Hermes Agent state.db: missing ${missingRequired.join(', ')}`);
  }
  // Both Hermes core sets are much larger than the required minimum; a table that has almost none
  // of them is some other application's `sessions`.
  const coreSeen = SESSION_CORE.filter((column) => sessionColumns.has(column)).length;
  if (coreSeen < Math.ceil(SESSION_CORE.length / 2)) {
    throw new ImportInputError(
      `not a Hermes Agent state.db: its sessions table has only ${coreSeen} of the ${SESSION_CORE.length} Hermes core columns`,
    );
  }

  const notes: string[] = [];
  const missingCore = [
    ...SESSION_CORE.filter((column) => !sessionColumns.has(column)).map((column) => `sessions.${column}`),
    ...MESSAGE_CORE.filter((column) => !messageColumns.has(column)).map((column) => `messages.${column}`),
  ];
  if (missingCore.length > 0) notes.push(`source lacks core columns (read as empty): ${missingCore.join(', ')}`);
  const knownSession = new Set<string>([...SESSION_CORE, ...SESSION_OPTIONAL, ...SESSION_NOT_IMPORTED]);
  const knownMessage = new Set<string>([...MESSAGE_CORE, ...MESSAGE_OPTIONAL]);
  const extraColumns = [
    ...[...sessionColumns].filter((column) => !knownSession.has(column)).map((column) => `sessions.${column}`),
    ...[...messageColumns].filter((column) => !knownMessage.has(column)).map((column) => `messages.${column}`),
  ];
  if (extraColumns.length > 0) notes.push(`unknown columns ignored: ${extraColumns.join(', ')}`);
  const extraTables = tables.filter(
    (table) =>
      !DATA_TABLES.has(table) &&
      !BOOKKEEPING_TABLES.has(table) &&
      !table.startsWith('messages_fts') &&
      !table.startsWith('sqlite_'),
  );
  if (extraTables.length > 0) notes.push(`unknown tables ignored: ${extraTables.join(', ')}`);

  let schemaVersion: number | null = null;
  if (tableSet.has('schema_version')) {
    try {
      const row = db.prepare('select version from schema_version limit 1').get() as { version?: unknown } | undefined;
      schemaVersion = typeof row?.version === 'number' ? row.version : null;
    } catch {
      schemaVersion = null;
    }
  }
  const optionalColumns = (table: string) => (tableSet.has(table) ? columnsOf(db, table) : new Set<string>());
  return {
    sessionColumns,
    messageColumns,
    usageColumns: optionalColumns('session_model_usage'),
    routingColumns: optionalColumns('gateway_routing'),
    generationColumns: optionalColumns('conversation_generations'),
    delegationColumns: optionalColumns('async_delegations'),
    obligationColumns: optionalColumns('delivery_obligations'),
    tables: tableSet,
    schemaVersion,
    notes,
  };
}
