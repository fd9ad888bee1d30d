import Database from 'better-sqlite3';
import { chunk } from '../../db/sql-dialect.js';
import { ImportInputError } from '../../domain/import-errors.js';
import { startWorker } from '../../shared/worker-program.js';
import { describeDamage } from './hermes-damage.js';
import type { PrepareWorkerData } from './hermes-reader-prepare.worker.js';
import {
  type HermesSchema,
  MESSAGE_CORE,
  MESSAGE_OPTIONAL,
  type MessageColumn,
  probeHermesSchema,
  SESSION_CORE,
  SESSION_OPTIONAL,
  type SessionColumn,
} from './hermes-schema.js';

export type HermesSessionRow = Partial<Record<SessionColumn, unknown>> & { id: unknown };
export type HermesMessageRow = Partial<Record<MessageColumn, unknown>> & { id: unknown; session_id: unknown };
export type HermesRow = Record<string, unknown>;

/** The columns lineage, profiles and planning need: read for every session up front. */
const PLANNING_COLUMNS: SessionColumn[] = [
  'id',
  'source',
  'created_source',
  'parent_session_id',
  'started_at',
  'ended_at',
  'end_reason',
  'session_key',
  'model_config',
  'profile_name',
  'origin_json',
];

const USAGE_COLUMNS = [
  'session_id',
  'model',
  'billing_provider',
  'billing_base_url',
  'billing_mode',
  'task',
  'api_call_count',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'estimated_cost_usd',
  'actual_cost_usd',
  'cost_status',
  'cost_source',
  'first_seen',
  'last_seen',
];

/** async_delegations columns read (the table grew by ADD COLUMN too: missing ones read as NULL). */
const DELEGATION_COLUMNS = [
  'delegation_id',
  'origin_session',
  'origin_session_id',
  'parent_session_id',
  'state',
  'dispatched_at',
  'completed_at',
  'updated_at',
  'result_json',
  'task_json',
  'delivery_state',
  'delivery_attempts',
  'delivered_at',
];

/** delivery_obligations columns read. */
const OBLIGATION_COLUMNS = [
  'obligation_id',
  'session_key',
  'platform',
  'chat_id',
  'thread_id',
  'reply_to',
  'content',
  'state',
  'attempts',
  'created_at',
  'updated_at',
  'last_error',
  'transport_profile',
  'adapter_profile',
];

const q = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** `select a, b, null as c …`: missing optional columns read as NULL. */
function selectList(wanted: readonly string[], present: ReadonlySet<string>, alias = ''): string {
  return wanted
    .map((column) => (present.has(column) ? `${alias}${q(column)} as ${q(column)}` : `null as ${q(column)}`))
    .join(', ');
}

/**
 * Reads a private copy of a Hermes `state.db` (see hermes-snapshot.ts). The copy is opened
 * read-write — SQLite may need to replay its `-wal` — and then switched to query-only.
 */
export class HermesReader {
  readonly schema: HermesSchema;
  private readonly db: Database.Database;
  /** Messages per session id, counted by the preparation worker (absent: counted here when asked). */
  private readonly counts: ReadonlyMap<string, number> | undefined;
  /**
   * Where the file was prepared: on a worker thread at this nice value (null where the thread
   * could not read it), or on the event loop because no worker could do it (`reason`).
   */
  readonly preparedOn: { thread: 'worker'; nice: number | null } | { thread: 'event loop'; reason: string };

  private constructor(
    db: Database.Database,
    schema: HermesSchema,
    preparedOn: HermesReader['preparedOn'],
    counts?: ReadonlyMap<string, number>,
  ) {
    this.db = db;
    this.schema = schema;
    this.preparedOn = preparedOn;
    this.counts = counts;
  }

  static async open(path: string): Promise<HermesReader> {
    let db: Database.Database;
    try {
      db = new Database(path, { fileMustExist: true });
    } catch (error) {
      throw ImportInputError.fromSqlite(error);
    }
    try {
      // The copy may be WAL: reading it replays committed transactions from its -wal.
      db.prepare('select count(*) from sqlite_master').get();
      const schema = probeHermesSchema(db);
      const { damage, counts, preparedOn } = await HermesReader.prepareFile(path, db);
      if (damage) schema.notes.unshift(damage);
      db.pragma('query_only = 1');
      return new HermesReader(db, schema, preparedOn, counts);
    } catch (error) {
      db.close();
      if (error instanceof ImportInputError) throw error;
      throw ImportInputError.fromSqlite(error);
    }
  }

  /**
   * The two passes over the whole file, before anything is read: SQLite's structural check (a
   * damaged file is still imported as far as it can be read, each session whole or not at all, and
   * the report says the file is damaged), then the index messages are read by (`messageIndexNeeded`).
   * Each reads every page of its table in one call — the check ≈ 1.3 s for 10⁵ messages (30 MiB),
   * the index ≈ 130 ms (docs/decisions/0021-import-preparation-off-the-event-loop.md) — so they
   * run on a connection of their own in a worker thread, the event loop free meanwhile. Where no
   * worker can be started they run here.
   * The worker also counts each session's messages (`messageCounts`: one statement over the whole
   * index, 12 ms for 10⁵ messages on an idle machine and 27–30 ms in the health bench, where it was
   * the largest slice of an import over HTTP) and checkpoints the copy's WAL (the index is written
   * there): the reader's `close`, the last connection, would otherwise copy it back and fsync on the
   * event loop (17–24 ms idle, 93 ms in the health bench).
   */
  private static async prepareFile(
    path: string,
    db: Database.Database,
  ): Promise<{ damage: string | null; counts?: ReadonlyMap<string, number>; preparedOn: HermesReader['preparedOn'] }> {
    const createIndex = HermesReader.messageIndexNeeded(db);
    let answer: PrepareAnswer;
    let preparedOn: HermesReader['preparedOn'];
    try {
      answer = await prepareInWorker(path, createIndex);
      preparedOn = { thread: 'worker', nice: answer.threadNice ?? null };
    } catch (error) {
      answer = prepareHere(db, createIndex);
      preparedOn = { thread: 'event loop', reason: String((error as Error | null)?.message ?? error) };
    }
    if (answer.indexFailed) throw ImportInputError.fromSqlite(answer.indexFailed);
    // Counts the worker could not take (a damaged file) are asked again here, failing as they did.
    const counts = answer.counts ? new Map(answer.counts) : undefined;
    if (answer.checkFailed !== undefined) {
      return { damage: describeDamage([answer.checkFailed]), counts, preparedOn };
    }
    const problems = (answer.lines ?? []).filter((line) => line !== 'ok');
    return { damage: describeDamage(problems), counts, preparedOn };
  }

  /**
   * Messages are read session by session in id order (`messagePages`). Without an index on
   * (session_id, id) each batch would scan the whole table — or, with Hermes' own index on
   * (session_id, timestamp), sort a session's every message before its first page (≈ 90–190 ms
   * for 10⁵). The index is created on the private copy only.
   */
  private static messageIndexNeeded(db: Database.Database): boolean {
    const indexes = db.prepare(`pragma index_list('messages')`).all() as { name: string; partial: number }[];
    for (const index of indexes) {
      if (Number(index.partial) !== 0) continue;
      const columns = db.prepare(`pragma index_info(${q(index.name)})`).all() as { seqno: number; name: string }[];
      const at = (seqno: number) => columns.find((column) => column.seqno === seqno)?.name;
      if (at(0) === 'session_id' && at(1) === 'id') return false;
    }
    return true;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  has(table: 'session_model_usage' | 'gateway_routing' | 'conversation_generations'): boolean {
    const columns =
      table === 'session_model_usage'
        ? this.schema.usageColumns
        : table === 'gateway_routing'
          ? this.schema.routingColumns
          : this.schema.generationColumns;
    return columns.size > 0;
  }

  /** Every session's planning columns (small: no transcript, no prompt). */
  planningRows(): HermesSessionRow[] {
    return this.db
      .prepare(`select ${selectList(PLANNING_COLUMNS, this.schema.sessionColumns)} from sessions`)
      .all() as HermesSessionRow[];
  }

  /**
   * Messages per session id (rewound rows included: they are imported as inactive): as the
   * preparation worker counted them (nothing but that worker writes the private copy), else here.
   */
  messageCounts(): ReadonlyMap<string, number> {
    if (this.counts) return this.counts;
    const rows = this.db.prepare(MESSAGE_COUNTS).all() as { session_id: unknown; n: number }[];
    return new Map(rows.map((row) => [String(row.session_id), Number(row.n)]));
  }

  sessions(ids: readonly unknown[]): HermesSessionRow[] {
    const columns = selectList([...SESSION_CORE, ...SESSION_OPTIONAL], this.schema.sessionColumns);
    const rows: HermesSessionRow[] = [];
    for (const part of chunk(ids, 500)) {
      rows.push(
        ...(this.db
          .prepare(`select ${columns} from sessions where id in (${part.map(() => '?').join(',')})`)
          .all(...(part as never[])) as HermesSessionRow[]),
      );
    }
    return rows;
  }

  /**
   * Messages of these sessions, session after session, each in Hermes id order (the only order),
   * in pages of at most `pageSize` rows. One statement per 500 sessions, stepped a page at a time:
   * SQLite keeps the statement's read snapshot until it is done (and the copy is private: nothing
   * writes it meanwhile), so pages taken with the event loop running between them read one state
   * of the file. While a page is out, the connection serves no other statement: take every page
   * (or end the generator) before reading anything else.
   */
  *messagePages(ids: readonly unknown[], pageSize: number): Generator<HermesMessageRow[], void, undefined> {
    const columns = selectList([...MESSAGE_CORE, ...MESSAGE_OPTIONAL], this.schema.messageColumns);
    for (const part of chunk(ids, 500)) {
      const rows = this.db
        .prepare(
          `select ${columns} from messages where session_id in (${part.map(() => '?').join(',')}) order by session_id, id`,
        )
        .iterate(...(part as never[])) as IterableIterator<HermesMessageRow>;
      let page: HermesMessageRow[] = [];
      for (const row of rows) {
        page.push(row);
        if (page.length >= pageSize) {
          yield page;
          page = [];
        }
      }
      if (page.length > 0) yield page;
    }
  }

  usage(ids: readonly unknown[]): Map<string, HermesRow[]> {
    const bySession = new Map<string, HermesRow[]>();
    if (!this.has('session_model_usage')) return bySession;
    const columns = selectList(USAGE_COLUMNS, this.schema.usageColumns);
    for (const part of chunk(ids, 500)) {
      const rows = this.db
        .prepare(`select ${columns} from session_model_usage where session_id in (${part.map(() => '?').join(',')})`)
        .all(...(part as never[])) as HermesRow[];
      for (const row of rows) {
        const key = String(row.session_id);
        const list = bySession.get(key) ?? [];
        list.push(row);
        bySession.set(key, list);
      }
    }
    return bySession;
  }

  routingEntries(): HermesRow[] {
    if (!this.has('gateway_routing')) return [];
    const columns = selectList(['scope', 'session_key', 'entry_json', 'updated_at'], this.schema.routingColumns);
    return this.db.prepare(`select ${columns} from gateway_routing`).all() as HermesRow[];
  }

  /** Hermes' async delegations (its runtime ledger of sub-agent work), every column the importer reads. */
  delegations(): HermesRow[] {
    if (this.schema.delegationColumns.size === 0) return [];
    const columns = selectList(DELEGATION_COLUMNS, this.schema.delegationColumns);
    return this.db.prepare(`select ${columns} from async_delegations order by rowid`).all() as HermesRow[];
  }

  /** Hermes' delivery obligations (replies owed to a chat), every column the importer reads. */
  obligations(): HermesRow[] {
    if (this.schema.obligationColumns.size === 0) return [];
    const columns = selectList(OBLIGATION_COLUMNS, this.schema.obligationColumns);
    return this.db.prepare(`select ${columns} from delivery_obligations order by rowid`).all() as HermesRow[];
  }

  /** Rows of a table of the file (0 when it has none, or no such table). */
  rowCount(table: string): number {
    if (!this.schema.tables.has(table)) return 0;
    const row = this.db.prepare(`select count(*) as n from ${q(table)}`).get() as { n: number };
    return Number(row.n);
  }

  generations(): HermesRow[] {
    if (!this.has('conversation_generations')) return [];
    const columns = selectList(['source', 'session_key', 'generation'], this.schema.generationColumns);
    return this.db.prepare(`select ${columns} from conversation_generations`).all() as HermesRow[];
  }
}

/**
 * What the file's preparation found: the check's lines, or how the check or the index failed; from
 * the worker, also the messages per session id (`String(session_id)`, as `messageCounts` keys them).
 */
export interface PrepareAnswer {
  lines?: string[];
  checkFailed?: string;
  indexFailed?: { code?: string; message: string };
  counts?: [string, number][];
  /** The nice value of the worker thread that prepared the file (absent: prepared on the event loop). */
  threadNice?: number | null;
}

const MESSAGE_INDEX = 'create index statehouse_import_messages_session on messages (session_id, id)';
const MESSAGE_COUNTS = 'select session_id, count(*) as n from messages group by session_id';

function prepareHere(db: Database.Database, createIndex: boolean): PrepareAnswer {
  const answer: PrepareAnswer = {};
  try {
    answer.lines = (db.prepare('pragma quick_check(5)').all() as { quick_check: string }[]).map(
      (row) => row.quick_check,
    );
  } catch (error) {
    answer.checkFailed = (error as Error).message;
  }
  try {
    if (createIndex) db.exec(MESSAGE_INDEX);
  } catch (error) {
    const e = error as { code?: string; message: string };
    answer.indexFailed = { code: e.code, message: e.message };
  }
  return answer;
}

/** Rejects only when the worker could not do the work (the caller does it in-process then). */
function prepareInWorker(path: string, createIndex: boolean): Promise<PrepareAnswer> {
  return new Promise<PrepareAnswer>((resolve, reject) => {
    // `prepareHere` on a connection of that thread, at a lower priority (importers/hermes/hermes-reader-prepare.worker.ts).
    const workerData: PrepareWorkerData = { path, createIndex, index: MESSAGE_INDEX, counts: MESSAGE_COUNTS };
    const worker = startWorker(import.meta.url, 'hermes-reader-prepare.worker', { workerData });
    let settled = false;
    worker.once('message', (answer: PrepareAnswer) => {
      settled = true;
      resolve(answer);
      void worker.terminate();
    });
    worker.once('error', (error) => {
      if (!settled) reject(error);
      settled = true;
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`the file's preparation worker exited (${code})`));
      settled = true;
    });
  });
}
