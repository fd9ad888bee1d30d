import 'server-only';
import type { Message } from '@statehouse/contracts';
import { listMessages } from '@/lib/api';
import { firstParam, type RawSearchParams, sessionHref } from './paths';

export const TRANSCRIPT_PAGE_SIZE = 50;
/** Messages shown before a linked message, so a search hit is read with the question that led to it. */
const CONTEXT_BEFORE_LINKED = 2;

/**
 * Which slice of the transcript the URL asks for. Message ids are the only ordering key (docs/domain.md §2.3),
 * so they double as keyset bounds:
 * - `after=<id>`: the page of messages after that id (forward paging);
 * - `before=<id>` / `before=latest`: the page ending just before that id, or the last page;
 * - `at=<id>`: the page that contains that message (search hits), highlighted;
 * - `includeHidden=true`: also model-facing scaffolding rows;
 * - `view=conversation`: the whole compression chain, root → tip, as one transcript (no paging).
 */
export interface TranscriptView {
  after: number | null;
  before: number | 'latest' | null;
  at: number | null;
  includeHidden: boolean;
  conversation: boolean;
}

function messageId(value: string | undefined): number | null {
  if (!value || !/^\d{1,15}$/.test(value)) return null;
  return Number(value);
}

export function parseTranscriptView(searchParams: RawSearchParams): TranscriptView {
  const before = firstParam(searchParams.before);
  return {
    after: messageId(firstParam(searchParams.after)),
    before: before === 'latest' ? 'latest' : messageId(before),
    at: messageId(firstParam(searchParams.at)),
    includeHidden: firstParam(searchParams.includeHidden) === 'true',
    conversation: firstParam(searchParams.view) === 'conversation',
  };
}

export interface TranscriptPage {
  messages: Message[];
  hasEarlier: boolean;
  hasLater: boolean;
  /** The message a link pointed at, when it is on this page. */
  highlightedId: number | null;
}

export async function loadTranscript(sessionId: string, view: TranscriptView): Promise<TranscriptPage> {
  const base = { includeHidden: view.includeHidden, limit: TRANSCRIPT_PAGE_SIZE };

  if (view.at !== null) {
    // A little context first, then the page from there: the linked message is always on it.
    const context = await listMessages(sessionId, {
      ...base,
      order: 'latest',
      after: view.at,
      limit: CONTEXT_BEFORE_LINKED,
    });
    const start = context.items.length > 0 ? Math.min(...context.items.map((message) => message.id)) : view.at;
    const page = await listMessages(sessionId, { ...base, order: 'oldest', after: start - 1 });
    return {
      messages: page.items,
      hasEarlier: context.nextCursor !== null,
      hasLater: page.nextCursor !== null,
      highlightedId: page.items.some((message) => message.id === view.at) ? view.at : null,
    };
  }

  if (view.before !== null) {
    const page = await listMessages(sessionId, {
      ...base,
      order: 'latest',
      after: view.before === 'latest' ? undefined : view.before,
    });
    const messages = [...page.items].reverse();
    const last = messages.at(-1);
    const later = last ? await listMessages(sessionId, { ...base, order: 'oldest', after: last.id, limit: 1 }) : null;
    return {
      messages,
      hasEarlier: page.nextCursor !== null,
      hasLater: (later?.items.length ?? 0) > 0,
      highlightedId: null,
    };
  }

  const page = await listMessages(sessionId, { ...base, order: 'oldest', after: view.after ?? undefined });
  const first = page.items[0];
  const earlier =
    view.after !== null && first
      ? await listMessages(sessionId, { ...base, order: 'latest', after: first.id, limit: 1 })
      : null;
  return {
    messages: page.items,
    hasEarlier: (earlier?.items.length ?? 0) > 0,
    hasLater: page.nextCursor !== null,
    highlightedId: null,
  };
}

/** Links of the transcript pager; the hidden-rows toggle survives paging. */
export function transcriptHrefs(sessionId: string, view: TranscriptView, page: TranscriptPage) {
  const keep = { includeHidden: view.includeHidden || null };
  const first = page.messages[0];
  const last = page.messages.at(-1);
  const atStart = view.after === null && view.before === null && view.at === null;
  return {
    // "From the start" only when there is something before this page to go back to.
    first: atStart || !page.hasEarlier ? null : sessionHref(sessionId, keep),
    earlier: page.hasEarlier && first ? sessionHref(sessionId, { ...keep, before: first.id }) : null,
    later: page.hasLater && last ? sessionHref(sessionId, { ...keep, after: last.id }) : null,
    latest: page.hasLater ? sessionHref(sessionId, { ...keep, before: 'latest' }) : null,
  };
}

/** The same slice of the transcript with hidden rows on or off. */
export function hiddenToggleHref(sessionId: string, view: TranscriptView, includeHidden: boolean): string {
  if (view.conversation) return sessionHref(sessionId, { view: 'conversation', includeHidden: includeHidden || null });
  return sessionHref(
    sessionId,
    {
      after: view.after,
      before: view.before,
      at: view.at,
      includeHidden: includeHidden || null,
    },
    view.at !== null ? `m-${view.at}` : undefined,
  );
}

/** This segment only, or the whole compression chain as one transcript; the hidden-rows toggle survives. */
export function conversationToggleHref(sessionId: string, view: TranscriptView, conversation: boolean): string {
  return sessionHref(sessionId, {
    view: conversation ? 'conversation' : null,
    includeHidden: view.includeHidden || null,
  });
}

/** This very view again (same slice, toggles and anchor): where "Reload" and "Back" return to. */
export function currentViewHref(sessionId: string, view: TranscriptView): string {
  return hiddenToggleHref(sessionId, view, view.includeHidden);
}
