/**
 * The sessions list's URL keys, apart from their validation (lib/session-list-state.ts) so the
 * header's profile switcher can keep the filters without loading the contracts in the browser.
 */

/** Keys that narrow the list (the empty state then offers to clear them; a profile switch keeps them). */
export const SESSION_FILTER_KEYS = [
  'q',
  'source',
  'model',
  'userId',
  'startedFrom',
  'startedTo',
  'status',
  'archived',
  'includeChildren',
  'minMessages',
  'maxMessages',
  'minTokens',
  'minCostUsd',
  'maxCostUsd',
  // The shared period control (lib/period.ts): last activity within the period.
  'period',
  'from',
  'to',
  'label',
] as const;

/**
 * Kept with the filters when the profile changes: the order, page size, layout and the time zone
 * the date filters are days of (not the cursor).
 */
export const SESSION_VIEW_KEYS = ['order', 'limit', 'view', 'tz'] as const;

/** Everything the sessions list shows is in its URL. */
export const SESSION_LIST_KEYS = ['profile', ...SESSION_FILTER_KEYS, ...SESSION_VIEW_KEYS, 'cursor'] as const;
