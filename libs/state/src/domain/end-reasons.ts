/** The end-reason predicates live in the contracts (the dashboard asks the same questions); state code imports them from here. */
export {
  isAutomaticReason,
  isPermanentEnd,
  isRecoverableReason,
  isResetReason,
  reopenVerdict,
} from '@statehouse/contracts';
