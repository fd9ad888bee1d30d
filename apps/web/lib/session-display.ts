import type { Session, SessionListItem } from '@statehouse/contracts';
import type { BadgeTone } from '@/app/ui/common';
import { humanize } from './format';
import { endReasonLabel } from './wording';

export function sessionHeading(session: Pick<Session, 'title' | 'id'> & { preview?: string | null }): {
  text: string;
  untitled: boolean;
} {
  if (session.title) return { text: session.title, untitled: false };
  if (session.preview) return { text: session.preview, untitled: true };
  return { text: 'Untitled session', untitled: true };
}

export interface StatusDisplay {
  label: string;
  tone: BadgeTone;
  reason: string | null;
}

export function sessionStatus(
  session: Pick<Session, 'endedAt' | 'endReason'> & Partial<Pick<Session, 'awaitingClaim'>>,
): StatusDisplay {
  // An imported conversation no gateway here has taken yet: open as the old store left it.
  if (!session.endedAt && session.awaitingClaim) {
    return { label: 'Imported, open', tone: 'neutral', reason: 'not yet claimed by a gateway here' };
  }
  if (!session.endedAt) return { label: 'Open', tone: 'success', reason: null };
  return { label: 'Ended', tone: 'neutral', reason: session.endReason ? endReasonLabel(session.endReason) : null };
}

/**
 * Why a row is more than a standalone conversation: a compression chain shown at its tip, or a
 * typed edge to a parent (branch, reset, delegate).
 */
export function lineageHint(
  item: Pick<SessionListItem, 'id' | 'rootId' | 'lineageKind' | 'parentSessionId'> & {
    conversationUsage?: Pick<SessionListItem['conversationUsage'], 'segments'>;
  },
) {
  if (item.rootId !== item.id) {
    const segments = item.conversationUsage?.segments ?? 0;
    // The row's figures (messages, tokens, cost, duration) cover every segment: say so.
    return `Compressed conversation${segments > 1 ? ` of ${segments} segments` : ''}, started as ${item.rootId}; figures cover all of it`;
  }
  if (item.lineageKind && item.parentSessionId) return `${humanize(item.lineageKind)} of ${item.parentSessionId}`;
  if (item.lineageKind) return humanize(item.lineageKind);
  return null;
}

/**
 * Messages of the whole conversation, the scope of every other figure on a list row (tokens, cost,
 * duration); the row's own `messageCount` is its tip segment's only. An API without the field
 * (upgraded after the dashboard) falls back to the tip's.
 */
export function conversationMessages(item: Pick<SessionListItem, 'messageCount' | 'conversationUsage'>): number {
  return item.conversationUsage?.messageCount ?? item.messageCount;
}
