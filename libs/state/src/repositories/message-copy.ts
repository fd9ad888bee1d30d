import type { MessageRow, NewMessageRow } from '../db/database.js';

/**
 * A parent's message as its child (compression tail, branch) stores it: live in the child whatever
 * it was in the parent. Every column is named in one literal: `{ ...copy, compacted: 0 }` built each
 * row's properties out of a second object (≈ 640 bytes of heap a row against ≈ 150, Node 20), and
 * a branch's chunk of rows lives across the await of its INSERT.
 */
export function messageCopy(row: MessageRow, sessionId: string): NewMessageRow {
  return {
    session_id: sessionId,
    role: row.role,
    content: row.content,
    content_json: row.content_json,
    tool_call_id: row.tool_call_id,
    tool_calls: row.tool_calls,
    tool_name: row.tool_name,
    timestamp: Number(row.timestamp),
    token_count: row.token_count === null ? null : Number(row.token_count),
    finish_reason: row.finish_reason,
    reasoning: row.reasoning,
    display_kind: row.display_kind,
    platform_message_id: row.platform_message_id,
    substring_indexed: Number(row.substring_indexed) as 0 | 1,
    replay_fields: row.replay_fields ?? null,
    // The copy says what the original said: its reply latency and cost (not counted again: copies
    // never reach the latency histograms).
    reply_latency_ms: row.reply_latency_ms == null ? null : Number(row.reply_latency_ms),
    cost_usd: row.cost_usd == null ? null : Number(row.cost_usd),
    compacted: 0,
  };
}
