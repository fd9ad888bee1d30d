import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { MappedMessage } from './hermes-mapper.js';
import { messageRow } from './hermes-write-parts.js';

/**
 * The rows an import writes for its messages: every column named, not `{ ...m.row, … }`. The
 * spread built each row's properties out of its object (≈ 690 bytes a row against ≈ 180, Node 20);
 * a unit's rows live across its awaits, so scavenges promoted them, and an import of one session
 * of 10⁵ messages piled ≈ 170 MiB of them in old space between two full collections (heap
 * peak +243 MiB against +74 MiB, bench/probes/import-loop.probe.ts; docs/decisions/0021-import-preparation-off-the-event-loop.md).
 */
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** As hermes-mapper.ts builds one (the same keys, in the same order). */
function mapped(i: number): MappedMessage {
  return {
    sourceId: i,
    fingerprint: `f${i}`,
    row: {
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
      platform_message_id: i % 5 === 0 ? `p${i}` : null,
    },
    active: 1,
    compacted: 0,
    counted: true,
    toolCalls: 0,
    toolCallsTotal: 0,
    preview: null,
  };
}

describe('an imported message’s row', () => {
  it('holds the mapped columns and the session’s', () => {
    const m = { ...mapped(7), active: 0 as const, compacted: 1 as const };
    expect(messageRow('s1', m, true)).toEqual({
      ...m.row,
      session_id: 's1',
      active: 0,
      compacted: 1,
      substring_indexed: 1,
      // What an agent replays with a message (docs/domain.md §2.3.8): not in Hermes files.
      replay_fields: null,
      // Hermes keeps no reply latency and no per-message cost: imported replies carry neither.
      reply_latency_ms: null,
      cost_usd: null,
    });
    expect(messageRow('s1', mapped(8), false).substring_indexed).toBe(0);
  });

  it('is compact: under 400 bytes of heap a row', () => {
    const messages = Array.from({ length: 20_000 }, (_, i) => mapped(i));
    gc();
    const before = process.memoryUsage().heapUsed;
    const rows = messages.map((m) => messageRow('s1', m, true));
    gc();
    const perRow = (process.memoryUsage().heapUsed - before) / rows.length;
    expect(rows).toHaveLength(20_000);
    expect(perRow).toBeLessThan(400);
  });
});
