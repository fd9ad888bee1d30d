/** The end-reason predicates live in the contracts (the dashboard asks the same questions); state code imports them from here. */
export {
  isAutomaticReason,
  isExplicitClose,
  isPermanentEnd,
  isRecoverableReason,
  isResetReason,
  type ReopenVerdict,
  reopenVerdict,
} from '@statehouse/contracts';
