const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A date picked as the end of a range includes that day: the API's bound is exclusive, so ask for
 * the next midnight (UTC). Anything else is passed on as given, for the API's schema to judge.
 */
export function inclusiveEnd(value: unknown): unknown {
  if (typeof value !== 'string' || !DATE_ONLY.test(value)) return value;
  const next = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(next.getTime())) return value;
  next.setUTCDate(next.getUTCDate() + 1);
  return next.toISOString().slice(0, 10);
}
