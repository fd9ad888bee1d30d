import {
  AUTOMATIC_ONLY_REASONS,
  END_REASONS,
  EXPLICIT_CLOSE_REASONS,
  RECOVERABLE_REASONS,
  RESET_REASONS,
  STRUCTURAL_REASONS,
} from './lineage.schema.js';

/**
 * The end-reason taxonomy of docs/domain.md §4 and its predicates, shared by the state layer (which enforces
 * them) and the dashboard (which explains them). Every module asks these questions here, never by
 * comparing strings of its own.
 */
const RESET = new Set<string>(RESET_REASONS);
const RECOVERABLE = new Set<string>(RECOVERABLE_REASONS);
const AUTOMATIC = new Set<string>([...RECOVERABLE_REASONS, ...AUTOMATIC_ONLY_REASONS]);
const EXPLICIT_CLOSE = new Set<string>(EXPLICIT_CLOSE_REASONS);
const STRUCTURAL = new Set<string>(STRUCTURAL_REASONS);

/** Deliberate boundaries: bump the conversation generation and fence peer recovery. */
export const isResetReason = (reason: string | null): boolean => reason !== null && RESET.has(reason);

/** Accidental ends: resolving a chat to its session may resume such a row. */
export const isRecoverableReason = (reason: string | null): boolean => reason !== null && RECOVERABLE.has(reason);

/** Stamps a writer that proves liveness (a compression, a turn from the routing host) may clear. */
export const isAutomaticReason = (reason: string | null): boolean => reason !== null && AUTOMATIC.has(reason);

/** Cleared only by an explicit reopen from the routing host, and never once a continuation exists. */
export const isExplicitClose = (reason: string | null): boolean => reason !== null && EXPLICIT_CLOSE.has(reason);

/** `compression`, `branched` and reset reasons are never cleared. */
export const isPermanentEnd = (reason: string | null): boolean =>
  reason !== null && (STRUCTURAL.has(reason) || RESET.has(reason));

export type ReopenVerdict = 'allowed' | 'explicit_only' | 'never';

/** Who may clear an end stamp: anyone proving liveness, only an explicit reopen, or no one. */
export function reopenVerdict(reason: string | null): ReopenVerdict {
  if (reason === null || isAutomaticReason(reason)) return 'allowed';
  if (isExplicitClose(reason)) return 'explicit_only';
  return 'never';
}

const TAXONOMY = new Set<string>(END_REASONS);

/**
 * An end reason as a caller gave it, placed in the taxonomy (docs/domain.md §4.9): a reason of the
 * taxonomy is itself; any other label is recorded as `other` — a deliberate close — and kept verbatim.
 */
export function classifyEndReason(given: string): { reason: string; detail: string | null } {
  return TAXONOMY.has(given) ? { reason: given, detail: null } : { reason: 'other', detail: given };
}
