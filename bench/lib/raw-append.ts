import type { MessageInput } from '@statehouse/contracts';
import { flushSearchPending } from '@statehouse/state';
import type Database from 'better-sqlite3';

/**
 * The ceiling of an append: what `store.messages.append` must do, written by hand with prepared
 * better-sqlite3 statements — BEGIN IMMEDIATE; insert the message rows (search triggers fire);
 * move the session's counters, activity, preview and revision in one UPDATE; COMMIT.
 * Since migration 2026-12-01T06.00 the insert trigger leaves the rows pending and the indexes are
 * written just before COMMIT, as the store's writer does (`flushSearchPending`).
 * Rows go in one prepared single-row INSERT each (the ceiling of docs/performance-targets.md), or with `multiRow`
 * in one multi-row INSERT per batch — the stronger ceiling for batches, because FTS5 flushes its
 * pending terms to disk at every statement boundary inside a transaction (its xSavepoint), so one
 * statement per row writes one index segment per row.
 */
export class RawAppender {
  readonly #db: Database.Database;
  readonly #begin: Database.Statement;
  readonly #commit: Database.Statement;
  readonly #rollback: Database.Statement;
  readonly #insert: Database.Statement;
  readonly #update: Database.Statement;
  readonly #multi = new Map<number, Database.Statement>();
  readonly #statements = new Map<string, Database.Statement>();
  readonly #prepare = (sql: string): Database.Statement => {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  };

  constructor(
    db: Database.Database,
    private readonly options: { multiRow?: boolean } = {},
  ) {
    this.#db = db;
    this.#begin = db.prepare('begin immediate');
    this.#commit = db.prepare('commit');
    this.#rollback = db.prepare('rollback');
    this.#insert = db.prepare(insertSql(1));
    this.#update = db.prepare(
      `update sessions set message_count = message_count + ?, tool_call_count = tool_call_count + ?,
         input_tokens = input_tokens + 0, output_tokens = output_tokens + 0, cache_read_tokens = cache_read_tokens + 0,
         cache_write_tokens = cache_write_tokens + 0, reasoning_tokens = reasoning_tokens + 0,
         estimated_cost_usd = estimated_cost_usd + 0, last_activity_at = max(last_activity_at, ?),
         revision = revision + 1, preview = coalesce(preview, ?)
       where id = ?`,
    );
  }

  #multiInsert(count: number): Database.Statement {
    let statement = this.#multi.get(count);
    if (!statement) {
      statement = this.#db.prepare(insertSql(count));
      this.#multi.set(count, statement);
    }
    return statement;
  }

  /** Plain-text inputs only (what the benchmarks generate); returns the new ids. */
  append(sessionId: string, inputs: readonly MessageInput[]): number[] {
    const now = Date.now();
    const ids: number[] = [];
    let toolCalls = 0;
    let preview: string | null = null;
    const values = (input: MessageInput) => {
      const content = typeof input.content === 'string' ? input.content : null;
      if (preview === null && input.role === 'user') preview = content;
      toolCalls += input.toolCalls?.length ?? 0;
      return [
        sessionId,
        input.role,
        content,
        input.toolCallId ?? null,
        input.toolCalls ? JSON.stringify(input.toolCalls) : null,
        input.toolName ?? null,
        now,
        input.tokenCount ?? null,
        input.platformMessageId ?? null,
        input.role === 'tool' ? 0 : 1,
      ];
    };
    this.#begin.run();
    try {
      if (this.options.multiRow && inputs.length > 1) {
        const { lastInsertRowid } = this.#multiInsert(inputs.length).run(inputs.flatMap(values));
        // One INSERT statement takes consecutive rowids (single writer, inside BEGIN IMMEDIATE).
        const last = Number(lastInsertRowid);
        for (let i = inputs.length - 1; i >= 0; i--) ids.push(last - i);
      } else {
        for (const input of inputs) ids.push(Number(this.#insert.run(values(input)).lastInsertRowid));
      }
      this.#update.run(inputs.length, toolCalls, now, preview, sessionId);
      // The store's schema indexes new messages at COMMIT (migration 2026-12-01T06.00): what its
      // writer runs before every COMMIT, so the ceiling does the same indexing work.
      flushSearchPending(this.#prepare);
      this.#commit.run();
    } catch (error) {
      if (this.#db.inTransaction) this.#rollback.run();
      throw error;
    }
    return ids;
  }
}

const insertSql = (count: number) =>
  `insert into messages (session_id, role, content, content_json, tool_call_id, tool_calls, tool_name, timestamp,
     token_count, finish_reason, reasoning, display_kind, platform_message_id, substring_indexed)
   values ${Array.from({ length: count }, () => "(?, ?, ?, null, ?, ?, ?, ?, ?, null, null, 'visible', ?, ?)").join(', ')}`;
