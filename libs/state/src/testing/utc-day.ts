const DAY_MS = 86_400_000;

/**
 * Waits, when the next UTC midnight is less than `spanMs` away, until just after it; otherwise
 * returns at once. For a test file that reads "today" (usage buckets, the overview's default period)
 * at one moment and compares it with what the server computed at another: a day boundary between
 * the two would fail the comparison, not the code. Call it first in the file's `beforeAll`, with a
 * span longer than the file runs, and give that hook a timeout above the span.
 */
export async function clearOfUtcMidnight(spanMs: number, now: () => number = Date.now): Promise<void> {
  const untilMidnight = DAY_MS - (now() % DAY_MS);
  if (untilMidnight >= spanMs) return;
  // A second past midnight: timers may fire early by a millisecond, never by a second.
  await new Promise((resolve) => setTimeout(resolve, untilMidnight + 1000));
}
