import Database from 'better-sqlite3';

/**
 * Hermes-Agent-shaped `state.db` files for tests and benchmarks, built from the schema Hermes
 * documents: v21 (older columns only, legacy inline FTS, routes keyed by session key alone, no
 * usage or generation tables) and v30 (every optional column, external-content FTS with a trigram
 * twin, per-model usage, scoped routes, conversation generations, bookkeeping tables).
 */
export type HermesVersion = 21 | 30;

const V21_SESSION_EXTRA = [
  'session_key TEXT',
  'chat_id TEXT',
  'chat_type TEXT',
  'thread_id TEXT',
  'display_name TEXT',
  'origin_json TEXT',
  'cache_read_tokens INTEGER DEFAULT 0',
  'cache_write_tokens INTEGER DEFAULT 0',
  'reasoning_tokens INTEGER DEFAULT 0',
  'estimated_cost_usd REAL',
  'actual_cost_usd REAL',
  'cost_status TEXT',
  'cost_source TEXT',
  'billing_provider TEXT',
  'billing_base_url TEXT',
  'billing_mode TEXT',
  'compression_failure_cooldown_until REAL',
  'compression_failure_error TEXT',
  'compression_fallback_streak INTEGER NOT NULL DEFAULT 0',
];

const V30_SESSION_EXTRA = [
  ...V21_SESSION_EXTRA,
  'created_source TEXT',
  'cwd TEXT',
  'git_branch TEXT',
  'git_repo_root TEXT',
  'title_source TEXT',
  'last_activity_at REAL',
  'api_call_count INTEGER DEFAULT 0',
  'handoff_state TEXT',
  'handoff_platform TEXT',
  'handoff_error TEXT',
  'profile_name TEXT',
  'transport_profile TEXT',
  'rewind_count INTEGER NOT NULL DEFAULT 0',
  'archived INTEGER NOT NULL DEFAULT 0',
  'auto_archived INTEGER NOT NULL DEFAULT 0',
  'pinned INTEGER NOT NULL DEFAULT 0',
  'hidden INTEGER NOT NULL DEFAULT 0',
  'last_read_at REAL',
  'system_prompt_hash TEXT',
  'tool_names TEXT',
  'compression_ineffective_count INTEGER NOT NULL DEFAULT 0',
  'compression_recovery_deadline REAL',
];

/** Hermes' async_delegations as v21 writes it (hermes_state.py SCHEMA_SQL). */
const ASYNC_DELEGATIONS_V21 = `
    CREATE TABLE async_delegations (
      delegation_id TEXT PRIMARY KEY,
      origin_session TEXT NOT NULL,
      origin_ui_session_id TEXT NOT NULL DEFAULT '',
      parent_session_id TEXT,
      state TEXT NOT NULL,
      dispatched_at REAL NOT NULL,
      completed_at REAL,
      updated_at REAL NOT NULL,
      event_json TEXT,
      result_json TEXT,
      delivery_state TEXT NOT NULL DEFAULT 'pending',
      delivery_attempts INTEGER NOT NULL DEFAULT 0,
      delivered_at REAL,
      owner_pid INTEGER,
      owner_started_at INTEGER,
      task_json TEXT,
      delivery_claim TEXT,
      delivery_claimed_at REAL`;

const V21_MESSAGE_EXTRA = ['reasoning TEXT', 'reasoning_details TEXT', 'platform_message_id TEXT'];
const V30_MESSAGE_EXTRA = [
  ...V21_MESSAGE_EXTRA,
  'reasoning_content TEXT',
  'active INTEGER NOT NULL DEFAULT 1',
  'compacted INTEGER NOT NULL DEFAULT 0',
  '_compressed_summary INTEGER DEFAULT 0',
  'display_kind TEXT',
  'display_metadata TEXT',
  'api_content TEXT',
  'message_uid TEXT',
];

function schemaSql(version: HermesVersion): string {
  const sessionExtra = version === 21 ? V21_SESSION_EXTRA : V30_SESSION_EXTRA;
  const messageExtra = version === 21 ? V21_MESSAGE_EXTRA : V30_MESSAGE_EXTRA;
  const common = `
    CREATE TABLE schema_version (version INTEGER NOT NULL);
    INSERT INTO schema_version VALUES (${version});
    CREATE TABLE sessions (
      id TEXT PRIMARY KEY,
      source TEXT NOT NULL,
      user_id TEXT,
      model TEXT,
      model_config TEXT,
      system_prompt TEXT,
      parent_session_id TEXT,
      started_at REAL NOT NULL,
      ended_at REAL,
      end_reason TEXT,
      message_count INTEGER DEFAULT 0,
      tool_call_count INTEGER DEFAULT 0,
      input_tokens INTEGER DEFAULT 0,
      output_tokens INTEGER DEFAULT 0,
      title TEXT,
      ${sessionExtra.join(',\n      ')},
      FOREIGN KEY (parent_session_id) REFERENCES sessions(id)
    );
    CREATE TABLE messages (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      session_id TEXT NOT NULL REFERENCES sessions(id),
      role TEXT NOT NULL,
      content TEXT,
      tool_call_id TEXT,
      tool_calls TEXT,
      tool_name TEXT,
      timestamp REAL NOT NULL,
      token_count INTEGER,
      finish_reason TEXT,
      ${messageExtra.join(',\n      ')}
    );
    CREATE TABLE state_meta (key TEXT PRIMARY KEY, value TEXT);
    CREATE INDEX idx_sessions_source ON sessions(source);
    CREATE INDEX idx_sessions_parent ON sessions(parent_session_id);
    CREATE INDEX idx_sessions_started ON sessions(started_at DESC);
    CREATE INDEX idx_messages_session ON messages(session_id, timestamp);
  `;
  if (version === 21) {
    return `${common}
      ${ASYNC_DELEGATIONS_V21}
      );
      CREATE TABLE gateway_routing (session_key TEXT PRIMARY KEY, entry_json TEXT NOT NULL, updated_at REAL NOT NULL);
      CREATE VIRTUAL TABLE messages_fts USING fts5(content);
      CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
        INSERT INTO messages_fts(rowid, content)
        VALUES (new.id, COALESCE(new.content, '') || ' ' || COALESCE(new.tool_name, '') || ' ' || COALESCE(new.tool_calls, ''));
      END;
      CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
        DELETE FROM messages_fts WHERE rowid = old.id;
      END;`;
  }
  return `${common}
    CREATE TABLE system_prompts (hash TEXT PRIMARY KEY, prompt TEXT NOT NULL, created_at REAL);
    CREATE TABLE session_model_usage (
      session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
      model TEXT NOT NULL,
      billing_provider TEXT NOT NULL DEFAULT '',
      billing_base_url TEXT NOT NULL DEFAULT '',
      billing_mode TEXT NOT NULL DEFAULT '',
      task TEXT NOT NULL DEFAULT '',
      api_call_count INTEGER NOT NULL DEFAULT 0,
      input_tokens INTEGER NOT NULL DEFAULT 0,
      output_tokens INTEGER NOT NULL DEFAULT 0,
      cache_read_tokens INTEGER NOT NULL DEFAULT 0,
      cache_write_tokens INTEGER NOT NULL DEFAULT 0,
      reasoning_tokens INTEGER NOT NULL DEFAULT 0,
      estimated_cost_usd REAL NOT NULL DEFAULT 0,
      actual_cost_usd REAL NOT NULL DEFAULT 0,
      cost_status TEXT,
      cost_source TEXT,
      first_seen REAL,
      last_seen REAL,
      PRIMARY KEY (session_id, model, billing_provider, billing_base_url, billing_mode, task)
    );
    CREATE TABLE gateway_routing (
      scope TEXT NOT NULL DEFAULT '',
      session_key TEXT NOT NULL,
      entry_json TEXT NOT NULL,
      updated_at REAL NOT NULL,
      PRIMARY KEY (scope, session_key)
    );
    CREATE TABLE conversation_generations (
      source TEXT NOT NULL,
      session_key TEXT NOT NULL,
      generation INTEGER NOT NULL,
      updated_at REAL,
      PRIMARY KEY (source, session_key)
    );
    CREATE TABLE compression_locks (session_id TEXT PRIMARY KEY, holder TEXT NOT NULL, acquired_at REAL NOT NULL, expires_at REAL NOT NULL);
    CREATE TABLE session_turn_leases (session_key TEXT PRIMARY KEY, holder TEXT NOT NULL, acquired_at REAL NOT NULL, expires_at REAL NOT NULL);
    ${ASYNC_DELEGATIONS_V21},
      origin_session_id TEXT NOT NULL DEFAULT ''
    );
    CREATE TABLE gateway_heartbeats (
      backend_id TEXT PRIMARY KEY,
      pid INTEGER NOT NULL,
      started_at REAL NOT NULL,
      last_heartbeat REAL NOT NULL,
      profile TEXT NOT NULL DEFAULT '',
      host TEXT NOT NULL DEFAULT ''
    );
    CREATE TABLE delivery_obligations (
      obligation_id TEXT PRIMARY KEY,
      session_key TEXT NOT NULL,
      platform TEXT NOT NULL,
      chat_id TEXT NOT NULL,
      thread_id TEXT,
      content TEXT NOT NULL,
      state TEXT NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      created_at REAL NOT NULL,
      updated_at REAL NOT NULL,
      owner_pid INTEGER,
      owner_started_at INTEGER,
      last_error TEXT,
      transport_profile TEXT
    );
    CREATE TABLE session_deletion_receipts (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT, deleted_at REAL);
    CREATE VIRTUAL TABLE messages_fts USING fts5(content, content='messages', content_rowid='id');
    CREATE VIRTUAL TABLE messages_fts_trigram USING fts5(content, content='messages', content_rowid='id', tokenize='trigram');
    CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
      INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
      INSERT INTO messages_fts_trigram(rowid, content) SELECT new.id, new.content WHERE new.role <> 'tool';
    END;
    CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
      INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
      INSERT INTO messages_fts_trigram(messages_fts_trigram, rowid, content) SELECT 'delete', old.id, old.content WHERE old.role <> 'tool';
    END;
  `;
}

export type Row = Record<string, unknown>;

/** One Hermes file under construction. Times are epoch seconds, as Hermes writes them. */
export class HermesFixture {
  readonly db: Database.Database;
  private readonly sessionColumns: Set<string>;
  private readonly messageColumns: Set<string>;

  constructor(
    readonly path: string,
    readonly version: HermesVersion,
    options: { wal?: boolean; existing?: boolean } = {},
  ) {
    this.db = new Database(path);
    // Hermes (Python's sqlite3) runs with foreign keys off: files in the wild hold dangling parents.
    this.db.pragma('foreign_keys = OFF');
    if (!options.existing) {
      if (options.wal !== false) this.db.pragma('journal_mode = WAL');
      this.db.exec(schemaSql(version));
    }
    const columns = (table: string) =>
      new Set((this.db.prepare(`pragma table_info(${table})`).all() as { name: string }[]).map((c) => c.name));
    this.sessionColumns = columns('sessions');
    this.messageColumns = columns('messages');
  }

  /** Inserts a session; columns this version lacks are dropped (so one scenario fits both). */
  session(row: Row): void {
    this.insert('sessions', { message_count: 0, ...row }, this.sessionColumns);
  }

  /** Inserts a message and returns its Hermes id. */
  message(sessionId: string, row: Row): number {
    return this.insert('messages', { session_id: sessionId, ...row }, this.messageColumns);
  }

  /**
   * A row of Hermes' async_delegations (both versions). Defaults: dispatched and updated at
   * SCENARIO_T0, delivery pending; `result_json`/`task_json` objects are encoded as Hermes does.
   */
  delegation(row: Row & { delegation_id: string; origin_session: string; state: string }): void {
    const encode = (value: unknown) =>
      value === undefined || typeof value === 'string' ? value : JSON.stringify(value);
    this.row('async_delegations', {
      dispatched_at: SCENARIO_T0,
      updated_at: SCENARIO_T0,
      ...row,
      result_json: encode(row.result_json),
      task_json: encode(row.task_json),
    });
  }

  /** A row of Hermes' delivery_obligations (v30 only). Defaults: pending, no attempt, at SCENARIO_T0. */
  obligation(row: Row & { obligation_id: string; session_key: string; content: string }): void {
    this.row('delivery_obligations', {
      platform: 'telegram',
      chat_id: '42',
      state: 'pending',
      attempts: 0,
      created_at: SCENARIO_T0,
      updated_at: SCENARIO_T0,
      ...row,
    });
  }

  /** A row of Hermes' gateway_heartbeats (v30 only): a Hermes backend process's liveness. */
  heartbeat(row: Row & { backend_id: string }): void {
    this.row('gateway_heartbeats', {
      pid: 4242,
      started_at: SCENARIO_T0,
      last_heartbeat: SCENARIO_T0 + 30,
      profile: 'alpha',
      host: 'hermes-host',
      ...row,
    });
  }

  /** Rows of optional tables (usage, routes, generations, prompts): only when this version has them. */
  row(table: string, row: Row): void {
    const exists = this.db.prepare(`select 1 from sqlite_master where type = 'table' and name = ?`).get(table);
    if (!exists) return;
    const columns = new Set(
      (this.db.prepare(`pragma table_info(${table})`).all() as { name: string }[]).map((c) => c.name),
    );
    this.insert(table, row, columns);
  }

  update(table: 'sessions' | 'messages', id: string | number, values: Row): void {
    const columns = table === 'sessions' ? this.sessionColumns : this.messageColumns;
    const entries = Object.entries(values).filter(([column]) => columns.has(column));
    if (entries.length === 0) return;
    this.db
      .prepare(`update ${table} set ${entries.map(([column]) => `${column} = ?`).join(', ')} where id = ?`)
      .run(...entries.map(([, value]) => value as never), id as never);
  }

  private insert(table: string, row: Row, columns: Set<string>): number {
    // An undefined value is a column left to its default.
    const entries = Object.entries(row).filter(([column, value]) => columns.has(column) && value !== undefined);
    const result = this.db
      .prepare(
        `insert into ${table} (${entries.map(([column]) => column).join(', ')}) values (${entries.map(() => '?').join(', ')})`,
      )
      .run(...entries.map(([, value]) => value as never));
    return Number(result.lastInsertRowid);
  }

  /** Opens a file built earlier, to make a "newer copy" of the same store. */
  static open(path: string, version: HermesVersion): HermesFixture {
    return new HermesFixture(path, version, { existing: true });
  }

  /** A new file at `path` holding what `fill` writes in one transaction; answers the path. */
  static write(path: string, version: HermesVersion, fill: (f: HermesFixture) => void): string {
    const f = new HermesFixture(path, version);
    f.transaction(() => fill(f));
    f.close();
    return path;
  }

  transaction(work: () => void): void {
    this.db.transaction(work)();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

/** Encodes structured content the way Hermes stores it. */
export const hermesJson = (value: unknown) => `\u0000json:${JSON.stringify(value)}`;

/** Epoch seconds at which the scenario begins (2025-06-15). */
export const SCENARIO_T0 = 1_750_000_000;
export const SCENARIO_KEY = 'agent:alpha:telegram:dm:42';
export const SCENARIO_CLI_KEY = 'agent:alpha:cli:dm:local';

/** The lineage the scenario's edges must be classified as (child → [parent, kind]). */
export const SCENARIO_EDGES: Record<string, [string, 'compression' | 'branch' | 'reset' | 'delegate' | null]> = {
  'cmp-mid': ['cmp-root', 'compression'],
  'cmp-tip': ['cmp-mid', 'compression'],
  'rst-b': ['rst-a', 'reset'],
  'rst-c': ['rst-b', 'reset'],
  'br-child': ['br-parent', 'branch'],
  'mk-child': ['mk-parent', 'branch'],
  'mk-grandchild': ['mk-child', 'compression'],
  'dl-child': ['dl-parent', 'delegate'],
  'dl-marker': ['dl-parent', 'delegate'],
  'unk-child': ['unk-parent', null],
};

export const SCENARIO_SESSIONS = [
  'cmp-root',
  'cmp-mid',
  'cmp-tip',
  'rst-a',
  'rst-b',
  'rst-c',
  'br-parent',
  'br-child',
  'mk-parent',
  'mk-child',
  'mk-grandchild',
  'dl-parent',
  'dl-child',
  'dl-marker',
  'unk-parent',
  'unk-child',
  'beta-origin',
  'no-profile',
];

/**
 * The scenario every import test reads: a compression chain of three segments (with structured
 * content, tool calls, CJK text, and — in v30 — compacted, rewound and hidden rows), a reset by end
 * reason and a parentless v21-style reset on the same session key, a legacy branch and a marker
 * branch (with an inherited marker below it), a delegate by source and one by marker, an edge of
 * unknown kind, profiles from profile_name / origin / the fallback, routes and generations.
 */
export function buildHermesScenario(path: string, version: HermesVersion): HermesFixture {
  const t = SCENARIO_T0;
  const f = new HermesFixture(path, version);
  const alpha = { profile_name: 'alpha', origin_json: JSON.stringify({ profile: 'alpha', platform: 'cli' }) };
  f.transaction(() => {
    f.session({
      id: 'cmp-root',
      source: 'cli',
      created_source: 'cli',
      model: 'claude-x',
      model_config: JSON.stringify({ temperature: 0.3 }),
      system_prompt: 'You are Hermes.',
      started_at: t,
      ended_at: t + 100,
      end_reason: 'compression',
      title: 'Deploy plan',
      title_source: 'user',
      input_tokens: 500,
      output_tokens: 100,
      ...alpha,
    });
    f.message('cmp-root', { role: 'user', content: 'How do we deploy the billing service?', timestamp: t + 1 });
    f.message('cmp-root', {
      role: 'assistant',
      content: null,
      tool_calls: JSON.stringify([
        { id: 'call_1', type: 'function', function: { name: 'shell', arguments: '{"cmd":"ls"}' } },
      ]),
      finish_reason: 'tool_calls',
      timestamp: t + 2,
    });
    f.message('cmp-root', {
      role: 'tool',
      tool_call_id: 'call_1',
      tool_name: 'shell',
      content: 'files: deployment manifest and readme',
      timestamp: t + 3,
    });
    f.message('cmp-root', {
      role: 'assistant',
      content: 'Use the blue-green rollout.',
      finish_reason: 'stop',
      token_count: 12,
      reasoning: 'thinking about rollout',
      timestamp: t + 4,
    });
    f.session({
      id: 'cmp-mid',
      source: 'cli',
      parent_session_id: 'cmp-root',
      model: 'claude-x',
      started_at: t + 100,
      ended_at: t + 200,
      end_reason: 'compression',
      title: 'Deploy plan #2',
      ...alpha,
    });
    f.message('cmp-mid', { role: 'user', content: '[summary] deploying billing with blue-green', timestamp: t + 101 });
    f.message('cmp-mid', { role: 'assistant', content: 'Continuing the rollout plan.', timestamp: t + 102 });
    f.session({
      id: 'cmp-tip',
      source: 'cli',
      created_source: 'cli',
      parent_session_id: 'cmp-mid',
      model: 'claude-x',
      started_at: t + 200,
      title: 'Deploy plan #3',
      title_source: 'llm',
      last_activity_at: t + 260,
      transport_profile: 'tui-main',
      cwd: '/srv/billing',
      git_branch: 'main',
      git_repo_root: '/srv/billing',
      pinned: 1,
      input_tokens: 1300,
      output_tokens: 250,
      cache_read_tokens: 40,
      cache_write_tokens: 10,
      reasoning_tokens: 5,
      estimated_cost_usd: 0.42,
      actual_cost_usd: 0.4,
      api_call_count: 7,
      billing_provider: 'anthropic',
      ...alpha,
    });
    f.message('cmp-tip', {
      role: 'user',
      content: hermesJson([
        { type: 'text', text: 'Check the 東京 rollout status' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
      ]),
      platform_message_id: 'pm-1',
      timestamp: t + 201,
    });
    f.message('cmp-tip', {
      role: 'assistant',
      content: 'Rollout is green in 東京リージョン.',
      platform_message_id: 'pm-2',
      token_count: 9,
      finish_reason: 'stop',
      timestamp: t + 202,
    });
    f.message('cmp-tip', {
      role: 'user',
      content: 'compacted but searchable giraffe',
      active: 0,
      compacted: 1,
      timestamp: t + 203,
    });
    f.message('cmp-tip', {
      role: 'user',
      content: 'please ignore this rewound zebra',
      active: 0,
      compacted: 0,
      timestamp: t + 204,
    });
    f.message('cmp-tip', { role: 'system', content: 'model scaffolding', display_kind: 'hidden', timestamp: t + 205 });
    f.row('session_model_usage', {
      session_id: 'cmp-tip',
      model: 'claude-x',
      billing_provider: 'anthropic',
      task: '',
      api_call_count: 5,
      input_tokens: 1000,
      output_tokens: 200,
      cache_read_tokens: 40,
      cache_write_tokens: 10,
      reasoning_tokens: 5,
      estimated_cost_usd: 0.4,
      actual_cost_usd: 0.38,
      first_seen: t + 200,
      last_seen: t + 250,
    });
    f.row('session_model_usage', {
      session_id: 'cmp-tip',
      model: 'claude-haiku',
      billing_provider: 'anthropic',
      task: 'compression',
      api_call_count: 2,
      input_tokens: 300,
      output_tokens: 50,
      estimated_cost_usd: 0.02,
      actual_cost_usd: 0.02,
      first_seen: t + 210,
      last_seen: t + 215,
    });

    const telegram = {
      source: 'telegram',
      session_key: SCENARIO_KEY,
      chat_id: '42',
      chat_type: 'dm',
      user_id: 'u42',
      display_name: 'Ada',
      profile_name: 'alpha',
      origin_json: JSON.stringify({ profile: 'alpha', platform: 'telegram', chat_id: '42' }),
    };
    f.session({ id: 'rst-a', ...telegram, started_at: t + 250, ended_at: t + 300, end_reason: 'session_reset' });
    f.message('rst-a', { role: 'user', content: 'hello from telegram', timestamp: t + 251 });
    f.session({
      id: 'rst-b',
      ...telegram,
      parent_session_id: 'rst-a',
      started_at: t + 300,
      ended_at: t + 400,
      end_reason: 'idle',
    });
    f.message('rst-b', { role: 'user', content: 'second conversation on the same chat', timestamp: t + 301 });
    f.session({
      id: 'rst-c',
      ...telegram,
      started_at: t + 500,
      handoff_state: 'completed',
      handoff_platform: 'discord',
    });
    f.message('rst-c', { role: 'user', content: 'third one, after an idle reset', timestamp: t + 501 });

    f.session({
      id: 'br-parent',
      source: 'cli',
      started_at: t + 550,
      ended_at: t + 600,
      end_reason: 'branched',
      ...alpha,
    });
    f.message('br-parent', { role: 'user', content: 'branch source text', timestamp: t + 551 });
    f.session({ id: 'br-child', source: 'cli', parent_session_id: 'br-parent', started_at: t + 610, ...alpha });
    f.message('br-child', { role: 'user', content: 'branch source text', timestamp: t + 611 });
    f.session({
      id: 'mk-parent',
      source: 'cli',
      started_at: t + 650,
      ended_at: t + 700,
      end_reason: 'cli_close',
      ...alpha,
    });
    f.session({
      id: 'mk-child',
      source: 'cli',
      parent_session_id: 'mk-parent',
      model_config: JSON.stringify({ temperature: 0.2, _branched_from: 'mk-parent' }),
      started_at: t + 660,
      ended_at: t + 720,
      end_reason: 'compression',
      ...alpha,
    });
    f.session({
      id: 'mk-grandchild',
      source: 'cli',
      parent_session_id: 'mk-child',
      // Inherited from mk-child: it names mk-parent, not this row's parent.
      model_config: JSON.stringify({ temperature: 0.2, _branched_from: 'mk-parent' }),
      started_at: t + 720,
      ...alpha,
    });
    f.session({ id: 'dl-parent', source: 'cli', started_at: t + 800, ...alpha });
    f.message('dl-parent', { role: 'user', content: 'spawn a helper', timestamp: t + 801 });
    f.session({ id: 'dl-child', source: 'subagent', parent_session_id: 'dl-parent', started_at: t + 802, ...alpha });
    f.message('dl-child', { role: 'user', content: 'helper task text', timestamp: t + 803 });
    f.session({
      id: 'dl-marker',
      source: 'cli',
      parent_session_id: 'dl-parent',
      model_config: JSON.stringify({ _delegate_from: 'dl-parent' }),
      started_at: t + 804,
      ...alpha,
    });
    f.session({
      id: 'unk-parent',
      source: 'cli',
      started_at: t + 900,
      ended_at: t + 950,
      end_reason: 'cli_close',
      ...alpha,
    });
    f.session({ id: 'unk-child', source: 'cli', parent_session_id: 'unk-parent', started_at: t + 960, ...alpha });
    f.session({
      id: 'beta-origin',
      source: 'cron',
      origin_json: JSON.stringify({ profile: 'beta' }),
      started_at: t + 1000,
      ended_at: t + 1010,
      end_reason: 'cron_complete',
    });
    f.message('beta-origin', { role: 'assistant', content: 'nightly report done', timestamp: t + 1001 });
    f.session({ id: 'no-profile', source: 'api_server', started_at: t + 1100 });
    f.message('no-profile', { role: 'user', content: 'profile-less conversation', timestamp: t + 1101 });

    const route = (key: string, sessionId: string, updatedAt: number) => {
      const entry = JSON.stringify({
        session_id: sessionId,
        session_key: key,
        origin: { profile: 'alpha', platform: key.split(':')[2] },
      });
      f.row('gateway_routing', { scope: 'alpha', session_key: key, entry_json: entry, updated_at: updatedAt });
    };
    route(SCENARIO_KEY, 'rst-c', t + 501);
    route(SCENARIO_CLI_KEY, 'cmp-root', t + 50);
    f.row('conversation_generations', {
      source: 'telegram',
      session_key: SCENARIO_KEY,
      generation: 3,
      updated_at: t + 400,
    });
  });
  return f;
}

/** A SQLite file of any shape (for "a SQLite file that is not a Hermes store"). */
export function writeSqliteFile(path: string, ddl: string): void {
  const db = new Database(path);
  try {
    db.exec(ddl);
  } finally {
    db.close();
  }
}

const WORDS = [
  'deploy',
  'billing',
  'rollout',
  'migration',
  'latency',
  'cache',
  'schema',
  'pipeline',
  'review',
  'incident',
  'budget',
  'release',
  '東京',
  'リージョン',
  '会议',
  'scheduler',
];

/**
 * A large Hermes store for crash tests and benchmarks: `conversations` × (a root that ended by
 * compression, its open continuation, a branch and a sub-agent child), `messagesPerSession` each,
 * with tool calls, compacted and rewound rows, usage rows and a route per conversation.
 * Deterministic (a seeded generator), so two builds are byte-for-byte the same content.
 */
export function buildHermesBulk(
  path: string,
  options: { conversations: number; messagesPerSession: number; seed?: number },
): { sessions: number; messages: number } {
  let state = options.seed ?? 42;
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const sentence = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');
  const f = new HermesFixture(path, 30);
  const insertMessage = f.db.prepare(
    `insert into messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, token_count, finish_reason, active, compacted)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  let sessions = 0;
  let messages = 0;
  const t = SCENARIO_T0;
  f.transaction(() => {
    for (let c = 0; c < options.conversations; c++) {
      const start = t + c * 3600;
      const key = `agent:bulk:telegram:dm:${c}`;
      const base = { profile_name: 'bulk', model: 'claude-x', session_key: key, chat_id: String(c), chat_type: 'dm' };
      const segments: [string, Row][] = [
        [
          `c${c}-root`,
          {
            ...base,
            source: 'telegram',
            started_at: start,
            ended_at: start + 600,
            end_reason: 'compression',
            title: `Conversation ${c}`,
          },
        ],
        [
          `c${c}-tip`,
          {
            ...base,
            source: 'telegram',
            parent_session_id: `c${c}-root`,
            started_at: start + 600,
            input_tokens: 900,
            output_tokens: 300,
          },
        ],
        [
          `c${c}-branch`,
          {
            profile_name: 'bulk',
            source: 'cli',
            parent_session_id: `c${c}-root`,
            model_config: JSON.stringify({ _branched_from: `c${c}-root` }),
            started_at: start + 700,
          },
        ],
        [
          `c${c}-helper`,
          { profile_name: 'bulk', source: 'subagent', parent_session_id: `c${c}-tip`, started_at: start + 800 },
        ],
      ];
      for (const [id, row] of segments) {
        f.session({ id, ...row });
        sessions++;
        const at = Number(row.started_at);
        for (let m = 0; m < options.messagesPerSession; m++) {
          const role = m % 2 === 0 ? 'user' : 'assistant';
          const tool = m % 10 === 7;
          insertMessage.run(
            id,
            tool ? 'tool' : role,
            sentence(8 + Math.floor(random() * 12)),
            tool ? `call_${m}` : null,
            m % 10 === 6
              ? JSON.stringify([
                  { id: `call_${m + 1}`, type: 'function', function: { name: 'shell', arguments: '{}' } },
                ])
              : null,
            tool ? 'shell' : null,
            at + m,
            role === 'assistant' ? 10 + m : null,
            role === 'assistant' ? 'stop' : null,
            m === 3 ? 0 : 1,
            m === 3 && id.endsWith('-root') ? 1 : 0,
          );
          messages++;
        }
      }
      f.row('session_model_usage', {
        session_id: `c${c}-tip`,
        model: 'claude-x',
        input_tokens: 900,
        output_tokens: 300,
        api_call_count: 3,
      });
      f.row('gateway_routing', {
        scope: 'bulk',
        session_key: key,
        entry_json: JSON.stringify({ session_id: `c${c}-root`, session_key: key, origin: { profile: 'bulk' } }),
        updated_at: start + 601,
      });
    }
  });
  f.close();
  return { sessions, messages };
}
