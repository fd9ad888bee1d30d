import { z } from 'zod';

export const LINEAGE_KINDS = ['compression', 'branch', 'reset', 'delegate'] as const;
export const LineageKindSchema = z.enum(LINEAGE_KINDS);
export type LineageKind = z.infer<typeof LineageKindSchema>;

/** docs/domain.md §4: the end-reason taxonomy. Predicates over these sets live in end-reasons.ts. */
export const RESET_REASONS = [
  'session_reset',
  'session_switch',
  'idle',
  'daily',
  'suspended',
  'resume_pending_expired',
] as const;
export const RECOVERABLE_REASONS = [
  'agent_close',
  'ws_orphan_reap',
  'superseded_by_resume',
  'startup_orphan_reap',
] as const;
export const AUTOMATIC_ONLY_REASONS = ['tui_shutdown', 'ws_disconnect', 'idle_timeout', 'lru_evict'] as const;
/** `other`: a deliberate end in the caller's own words, kept verbatim as `endReasonDetail` (docs/domain.md §4.9). */
export const EXPLICIT_CLOSE_REASONS = ['cli_close', 'tui_close', 'cli_exit', 'webhook_complete', 'other'] as const;
export const STRUCTURAL_REASONS = ['compression', 'branched'] as const;

export const END_REASONS = [
  ...RESET_REASONS,
  ...RECOVERABLE_REASONS,
  ...AUTOMATIC_ONLY_REASONS,
  ...EXPLICIT_CLOSE_REASONS,
  ...STRUCTURAL_REASONS,
] as const;
export const EndReasonSchema = z.enum(END_REASONS);
export type EndReason = z.infer<typeof EndReasonSchema>;

/**
 * What a client may send as an end reason: one of the taxonomy, or any other label of its own (kept
 * verbatim as `endReasonDetail`, the end recorded as `other`).
 */
export const END_REASON_LABEL_MAX = 64;
export const EndReasonInputSchema = z
  .string()
  .min(1)
  .max(END_REASON_LABEL_MAX)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]*$/, 'a label: letters, digits and _ . : -')
  .describe(
    `one of ${END_REASONS.join(', ')}; any other label is recorded as \`other\` and kept verbatim as \`endReasonDetail\``,
  );

export const ResetReasonSchema = z.enum(RESET_REASONS);
export type ResetReason = z.infer<typeof ResetReasonSchema>;
