import {
  AUTOMATIC_ONLY_REASONS,
  EXPLICIT_CLOSE_REASONS,
  isPermanentEnd,
  isResetReason,
  RECOVERABLE_REASONS,
  RESET_REASONS,
} from '@statehouse/contracts';
import { endReasonLabel } from './wording';

/** The end reasons a person may choose (docs/domain.md §4), grouped by what they mean for the chat afterwards. */
export const END_REASON_GROUPS = [
  {
    label: 'Recoverable — the chat may resume this session',
    reasons: RECOVERABLE_REASONS.map((value) => ({ value, label: endReasonLabel(value) })),
  },
  {
    label: 'Explicit close — reopened only from the routing host',
    reasons: EXPLICIT_CLOSE_REASONS.map((value) => ({ value, label: endReasonLabel(value) })),
  },
  {
    label: 'Reset — the chat starts a new conversation',
    reasons: RESET_REASONS.map((value) => ({ value, label: endReasonLabel(value) })),
  },
  {
    label: 'Automatic — normally stamped by a runtime',
    reasons: AUTOMATIC_ONLY_REASONS.map((value) => ({ value, label: endReasonLabel(value) })),
  },
];

export const DEFAULT_END_REASON = 'agent_close';

/** Whether the dashboard offers "Reopen": compression, branched and reset ends are never cleared. */
export function reopenable(endReason: string | null): boolean {
  return !isPermanentEnd(endReason);
}

export function finalEndNote(endReason: string | null): string {
  if (endReason === 'compression') return 'Ended by compression: the conversation continues in the next segment.';
  if (endReason === 'branched') return 'Ended when it was branched; it cannot be reopened.';
  if (endReason && isResetReason(endReason)) {
    return `Ended by a reset (${endReasonLabel(endReason).toLowerCase()}): a deliberate boundary that cannot be reopened.`;
  }
  return 'This end cannot be reopened.';
}
