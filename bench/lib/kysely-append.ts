import type { MessageInput } from '@statehouse/contracts';
import type { StateStore } from '@statehouse/state';
import { CompiledQuery } from 'kysely';

/**
 * The raw ceiling's statements (see raw-append.ts), precompiled, but driven the way the store
 * drives SQLite: inside Kysely's transaction on a store's own connection (async driver, connection
 * mutex, BEGIN IMMEDIATE/COMMIT as promises). The floor of any append that goes through Kysely —
 * what is left of the store's overhead once its SQL and query building are taken out.
 */
const COLUMNS =
  '(session_id, role, content, content_json, tool_call_id, tool_calls, tool_name, timestamp, token_count, ' +
  'finish_reason, reasoning, display_kind, platform_message_id, substring_indexed)';
const ROW = "(?, ?, ?, null, ?, ?, ?, ?, ?, null, null, 'visible', null, ?)";
const UPDATE_SESSION =
  'update sessions set message_count = message_count + ?, tool_call_count = tool_call_count + ?, ' +
  'input_tokens = input_tokens + 0, output_tokens = output_tokens + 0, cache_read_tokens = cache_read_tokens + 0, ' +
  'cache_write_tokens = cache_write_tokens + 0, reasoning_tokens = reasoning_tokens + 0, ' +
  'estimated_cost_usd = estimated_cost_usd + 0, last_activity_at = max(last_activity_at, ?), ' +
  'revision = revision + 1, preview = coalesce(preview, ?) where id = ?';

const insertSql = new Map<number, string>();
const insertFor = (count: number) => {
  let text = insertSql.get(count);
  if (!text) {
    text = `insert into messages ${COLUMNS} values ${Array.from({ length: count }, () => ROW).join(', ')}`;
    insertSql.set(count, text);
  }
  return text;
};

export async function kyselyCeilingAppend(
  store: StateStore,
  sessionId: string,
  inputs: readonly MessageInput[],
): Promise<void> {
  const now = Date.now();
  let toolCalls = 0;
  let preview: string | null = null;
  const params = inputs.flatMap((input) => {
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
      input.role === 'tool' ? 0 : 1,
    ];
  });
  await store.db.transaction().execute(async (trx) => {
    await trx.executeQuery(CompiledQuery.raw(insertFor(inputs.length), params));
    await trx.executeQuery(CompiledQuery.raw(UPDATE_SESSION, [inputs.length, toolCalls, now, preview, sessionId]));
  });
}
