import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { MessageRow } from '../db/database.js';
import { messageCopy } from './message-copy.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A parent's row as the store reads it back (SQLite hands numbers and 0/1 flags). */
function parentRow(i: number): MessageRow {
  return {
    id: i,
    session_id: 'parent',
    role: i % 2 ? 'assistant' : 'user',
    content: `line ${i}`,
    content_json: null,
    tool_call_id: null,
    tool_calls: i % 7 === 0 ? '[{"id":"c"}]' : null,
    tool_name: null,
    timestamp: 1_700_000_000_000 + i,
    token_count: i % 3 === 0 ? 12 : null,
    finish_reason: null,
    reasoning: null,
    display_kind: 'visible',
    active: 1,
    compacted: 1,
    platform_message_id: i % 5 === 0 ? `p${i}` : null,
    substring_indexed: 1,
    replay_fields: i % 5 === 0 ? '{"reasoningContent":""}' : null,
    reply_latency_ms: i % 2 ? 1500 : null,
    cost_usd: i % 2 ? 0.0125 : null,
  };
}

describe('a parent’s message copied into its child', () => {
  it('[message.replay-fields] keeps the message, replay fields included, belongs to the child and is live there (not compacted)', () => {
    const { id: _id, active: _active, ...message } = parentRow(15);
    expect(messageCopy(parentRow(15), 'child')).toEqual({ ...message, session_id: 'child', compacted: 0 });
    // PostgreSQL hands bigints back as strings: the copy stores numbers.
    const fromPg = { ...parentRow(3), timestamp: '1700000000003', token_count: '12' } as unknown as MessageRow;
    expect(messageCopy(fromPg, 'child')).toMatchObject({ timestamp: 1_700_000_000_003, token_count: 12 });
  });

  it('is compact: under 400 bytes of heap a row (a branch’s chunk lives across its INSERT)', () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => parentRow(i));
    gc();
    const before = process.memoryUsage().heapUsed;
    const copies = rows.map((row) => messageCopy(row, 'child'));
    gc();
    const perRow = (process.memoryUsage().heapUsed - before) / copies.length;
    expect(copies).toHaveLength(20_000);
    expect(perRow).toBeLessThan(400);
  });
});
