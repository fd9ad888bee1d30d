import type { MessageInput } from '@statehouse/contracts';
import type Database from 'better-sqlite3';

/**
 * The ceiling of an append: what `store.messages.append` must do, written by hand with prepared
 * better-sqlite3 statements — BEGIN IMMEDIATE; insert the message rows (search triggers fire);
 * move the session's counters, activity, preview and revision in one UPDATE; COMMIT.
 */
export class RawAppender {
  readonly #db: Database.Database;
  readonly #begin: Database.Statement;
  readonly #commit: Database.Statement;
  readonly #rollback: Database.Statement;
  readonly #insert: Database.Statement;
  readonly #update: Database.Statement;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#begin = db.prepare('begin immediate');
    this.#commit = db.prepare('commit');
    this.#rollback = db.prepare('rollback');
    this.#insert = db.prepare(
      `insert into messages (session_id, role, content, content_json, tool_call_id, tool_calls, tool_name, timestamp,
         token_count, finish_reason, reasoning, display_kind, platform_message_id, substring_indexed)
       values (?, ?, ?, null, ?, ?, ?, ?, ?, null, null, 'visible', ?, ?)`,
    );
    this.#update = db.prepare(
      `update sessions set message_count = message_count + ?, tool_call_count = tool_call_count + ?,
         input_tokens = input_tokens + 0, output_tokens = output_tokens + 0, cache_read_tokens = cache_read_tokens + 0,
         cache_write_tokens = cache_write_tokens + 0, reasoning_tokens = reasoning_tokens + 0,
         estimated_cost_usd = estimated_cost_usd + 0, last_activity_at = max(last_activity_at, ?),
         revision = revision + 1, preview = coalesce(preview, ?)
       where id = ?`,
    );
  }

  /** Plain-text inputs only (what the benchmarks generate); returns the new ids. */
  append(sessionId: string, inputs: readonly MessageInput[]): number[] {
    const now = Date.now();
    const ids: number[] = [];
    let toolCalls = 0;
    let preview: string | null = null;
    this.#begin.run();
    try {
      for (const input of inputs) {
        const content = typeof input.content === 'string' ? input.content : null;
        if (preview === null && input.role === 'user') preview = content;
        toolCalls += input.toolCalls?.length ?? 0;
        const { lastInsertRowid } = this.#insert.run(
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
        );
        ids.push(Number(lastInsertRowid));
      }
      this.#update.run(inputs.length, toolCalls, now, preview, sessionId);
      this.#commit.run();
    } catch (error) {
      if (this.#db.inTransaction) this.#rollback.run();
      throw error;
    }
    return ids;
  }
}
