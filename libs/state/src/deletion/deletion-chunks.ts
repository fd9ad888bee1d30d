import { ChunkSizer, reportChunk } from '../jobs/chunks.js';
import type { DeletionPlan } from './deletion.engine.js';

/**
 * Messages a deletion chunk starts with (SQLite removes one in ≈15 µs with both search indexes);
 * later chunks are sized from measured time. A deletion under this size stays one transaction.
 */
export const INITIAL_CHUNK_MESSAGES = 2000;
const MIN_CHUNK_MESSAGES = 200;
const MAX_CHUNK_MESSAGES = 50_000;

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
 * never split, calling `between` between chunks.
 */
export async function runInChunks(
  groups: SelectionGroup[],
  between: (lastChunkMs: number) => Promise<void>,
  work: (ids: string[]) => Promise<unknown>,
): Promise<void> {
  const sizer = new ChunkSizer(INITIAL_CHUNK_MESSAGES, MIN_CHUNK_MESSAGES, MAX_CHUNK_MESSAGES);
  let index = 0;
  while (index < groups.length) {
    const chunk: string[] = [];
    let messages = 0;
    while (index < groups.length && (chunk.length === 0 || messages + groups[index].messages <= sizer.size)) {
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
