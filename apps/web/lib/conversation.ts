import 'server-only';
import type { LineageNode, LineageResponse, Message } from '@statehouse/contracts';
import { listMessages } from '@/lib/api';
import { type Attempt, attempt } from './attempt';

/** The API's largest message page: a segment longer than this links to its own paged view. */
export const SEGMENT_MESSAGE_LIMIT = 1000;

export interface ConversationSegment {
  id: string;
  /** 1-based position in the chain, root = 1. */
  position: number;
  node: LineageNode | null;
  messages: Attempt<{ items: Message[]; more: boolean }>;
  /**
   * Messages copied verbatim from the previous segment when it was compressed (its retained tail):
   * shown once more here, marked, so the reader knows they are not new.
   */
  retainedIds: Set<number>;
}

/**
 * The whole compression chain (root → tip, from the lineage answer) read as one conversation: each
 * segment's messages, fetched in parallel, in chain order. A segment that fails to load says so in
 * its place; the others still show.
 */
export async function loadConversation(
  lineage: LineageResponse,
  { includeHidden }: { includeHidden: boolean },
): Promise<ConversationSegment[]> {
  const nodes = new Map(lineage.nodes.map((node) => [node.id, node]));
  const pages = await Promise.all(
    lineage.chain.map((id) =>
      attempt(async () => {
        const page = await listMessages(id, { order: 'oldest', limit: SEGMENT_MESSAGE_LIMIT, includeHidden });
        return { items: page.items, more: page.nextCursor !== null };
      }),
    ),
  );
  return lineage.chain.map((id, index) => {
    const page = pages[index];
    const previous = index > 0 ? pages[index - 1] : null;
    return {
      id,
      position: index + 1,
      node: nodes.get(id) ?? null,
      messages: page,
      retainedIds: page.ok && previous?.ok ? retainedTail(previous.value.items, page.value.items) : new Set<number>(),
    };
  });
}

const sameMessage = (a: Message, b: Message) =>
  a.role === b.role && JSON.stringify(a.content) === JSON.stringify(b.content) && a.toolCallId === b.toolCallId;

/**
 * A compressed segment starts with its summary, then the tail kept from the previous segment
 * (`keepLastMessages`). Those are the longest run after the summary that equals the end of the
 * previous segment, message for message.
 */
export function retainedTail(previous: Message[], segment: Message[]): Set<number> {
  const summaryIndex = segment.findIndex((message) => message.displayKind === 'compaction_summary');
  if (summaryIndex < 0) return new Set();
  const after = segment.slice(summaryIndex + 1);
  const before = previous;
  for (let length = Math.min(after.length, before.length); length > 0; length--) {
    const tail = before.slice(before.length - length);
    if (tail.every((message, index) => sameMessage(message, after[index]))) {
      return new Set(after.slice(0, length).map((message) => message.id));
    }
  }
  return new Set();
}
