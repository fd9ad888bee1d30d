import { ChunkSizer, reportChunk } from '../db/chunks.js';
import type { DeletionPlan } from './deletion.engine.js';

/** A deletion of at most this many messages stays one transaction (≈ 30 ms of write lock on SQLite). */
export const INITIAL_CHUNK_MESSAGES = 2000;
/**
 * Messages the first chunk of a chunked deletion holds when nothing was measured yet (≈ 8 ms of
 * SQLite at ≈ 15 µs a message, plus the chunk's planning and receipts); later chunks are sized from
 * measured time and grow at most ×1.5 a chunk. Starting at INITIAL_CHUNK_MESSAGES made the first
 * chunk of every retention batch of 1 000 sessions hold the write lock — and, on SQLite, the event
 * loop, which runs the chunk's statements — 45–50 ms of CPU
 * (docs/decisions/0018-time-boxed-chunks-for-long-operations.md).
 */
export const FIRST_CHUNK_MESSAGES = 500;
const MIN_CHUNK_MESSAGES = 200;
const MAX_CHUNK_MESSAGES = 50_000;

/**
 * The chunk sizer of deletions: one per service, so the batches of a retention pass (and the
 * deletions after them) start from the last measured size instead of from scratch.
 */
export function deletionChunkSizer(): ChunkSizer {
  return new ChunkSizer(FIRST_CHUNK_MESSAGES, MIN_CHUNK_MESSAGES, MAX_CHUNK_MESSAGES);
}

export interface SelectionGroup {
  /** The selected session (its delegates and chain are planned with it). */
  ids: string[];
  /** Messages the group removes. */
  messages: number;
}

/**
 * The plan's members grouped by the selected session they go with, in selection order, with the
 * messages each group removes: the units a chunked deletion never splits.
 */
export function selectionGroups(plan: DeletionPlan): SelectionGroup[] {
  const groups = new Map<string, SelectionGroup>();
  for (const member of plan.members.values()) {
    const group = groups.get(member.selectedId) ?? { ids: [], messages: 0 };
    if (member.row.id === member.selectedId) group.ids.push(member.row.id);
    group.messages += Number(member.row.message_count);
    groups.set(member.selectedId, group);
  }
  return [...groups.values()].filter((group) => group.ids.length > 0);
}

/**
 * Runs `work` (one transaction) over as many groups per chunk as fit the message budget, a group
 * never split, calling `between` between chunks. A selection of at most INITIAL_CHUNK_MESSAGES is
 * one chunk; a larger one starts at the sizer's size (FIRST_CHUNK_MESSAGES when it is new).
 */
export async function runInChunks(
  groups: SelectionGroup[],
  between: (lastChunkMs: number) => Promise<void>,
  work: (ids: string[]) => Promise<unknown>,
  sizer: ChunkSizer = deletionChunkSizer(),
): Promise<void> {
  const whole = groups.reduce((sum, group) => sum + group.messages, 0) <= INITIAL_CHUNK_MESSAGES;
  let index = 0;
  while (index < groups.length) {
    const chunk: string[] = [];
    let messages = 0;
    while (index < groups.length && (whole || chunk.length === 0 || messages + groups[index].messages <= sizer.size)) {
      chunk.push(...groups[index].ids);
      messages += groups[index].messages;
      index++;
    }
    const started = performance.now();
    await work(chunk);
    const elapsed = performance.now() - started;
    // Sized by rows touched: a session row weighs like a few messages.
    sizer.record(elapsed, messages + chunk.length * 4);
    // A group (a selected session with its chain) is never split, so this chunk is sized up front.
    reportChunk({ operation: 'deletion', heldMs: elapsed, rows: messages, steps: 1, lastStepStartMs: 0 });
    if (index < groups.length) await between(elapsed);
  }
}
