import type { DeletionIntent, DeletionOrigin, DeletionReason, EndReason } from '@statehouse/contracts';
import { humanize } from './format';

/**
 * The words people read for the store's internal values (end reasons, deletion origins, intents,
 * observer reasons). The raw value stays available on hover (`title`) wherever a label is shown,
 * so a person can still match it to logs and the API. The records are typed by the contracts' own
 * enums: a new value fails the build until it has words.
 */
const END_REASON_WORDS: Record<EndReason, string> = {
  session_reset: 'Reset: a new conversation was started',
  session_switch: 'Switched to another conversation',
  idle: 'Reset after being idle',
  daily: 'Daily reset',
  suspended: 'Suspended',
  resume_pending_expired: 'A pending resume expired',
  agent_close: 'Closed by the agent',
  ws_orphan_reap: 'Connection lost; ended by the gateway',
  superseded_by_resume: 'Continued somewhere else',
  startup_orphan_reap: 'Its gateway stopped',
  tui_shutdown: 'The terminal app shut down',
  ws_disconnect: 'Connection dropped',
  idle_timeout: 'Timed out while idle',
  lru_evict: 'Unloaded to free memory',
  cli_close: 'Closed in the terminal',
  tui_close: 'Closed in the terminal app',
  cli_exit: 'The terminal session exited',
  webhook_complete: 'The webhook run finished',
  other: 'Closed for a reason of its own',
  compression: 'Continued in a compressed segment',
  branched: 'Branched into a copy',
};

const ORIGIN_WORDS: Record<DeletionOrigin, string> = {
  user_api: 'Deleted through the API',
  user_dashboard: 'Deleted in the dashboard',
  empty_discard: 'Empty session discarded',
  empty_sweep: 'Empty-session clean-up',
  retention: 'Retention policy',
  ghost_prune: 'Clean-up of untitled empty sessions',
  never_active_prune: 'Clean-up of chats that never started',
  profile_delete: 'Profile deleted',
  profile_repair: 'Moved by a profile repair',
  import_replace: 'Replaced by an import',
};

const INTENT_WORDS: Record<DeletionIntent, string> = {
  explicit_user: 'Asked for by a person',
  maintenance: 'Maintenance',
};

const DELETION_REASON_WORDS: Record<DeletionReason, string> = {
  user: 'A person deleted it',
  empty: 'It was empty',
  empty_sweep: 'Empty-session clean-up',
  prune: 'Pruned by a policy',
  ghost_prune: 'Untitled and empty',
  profile_delete: 'Its profile was deleted',
  profile_repair: 'It moved to another profile',
  import_replace: 'An import replaced it',
};

function wordsFor<T extends string>(words: Record<T, string>, value: string | null | undefined): string {
  if (!value) return '';
  return (words as Record<string, string>)[value] ?? sentenceCase(humanize(value));
}

function sentenceCase(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * Why a session ended, in words (unknown reasons from other stores read as their own words; an
 * `other` end with the caller's own reason reads as that reason).
 */
export const endReasonLabel = (reason: string | null | undefined, detail?: string | null) =>
  reason === 'other' && detail ? `Closed: ${humanize(detail)}` : wordsFor(END_REASON_WORDS, reason);
export const originLabel = (origin: string | null | undefined) => wordsFor(ORIGIN_WORDS, origin);
export const intentLabel = (intent: string | null | undefined) => wordsFor(INTENT_WORDS, intent);
export const deletionReasonLabel = (reason: string | null | undefined) => wordsFor(DELETION_REASON_WORDS, reason);
