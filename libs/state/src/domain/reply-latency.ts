import type { ReplyLatencyFigures } from '@statehouse/contracts';
import type { HistogramBucket, LatencyContribution } from '../repositories/reply-latency.repository.js';

export type { HistogramBucket, LatencyContribution };

/**
 * Reply latency (docs/stats.md, "Reply latency"): an assistant reply's time minus the time of the
 * user message it answers — the nearest earlier active user message of its session that people see
 * (not hidden scaffolding) and that was addressed to the agent (not merely `observed`).
 */

/** Histogram buckets per doubling: each bucket spans a factor of 2^(1/4) (about 19 %). */
const BUCKETS_PER_DOUBLING = 4;
/** The last bucket holds everything from about 2^63 ms on (never reached: latencies are clamped timestamps). */
const LAST_BUCKET = 255;

/** The histogram bucket of a latency: 0 for under 1 ms, then one per factor of 2^(1/4). */
export function latencyBucket(ms: number): number {
  if (ms < 1) return 0;
  return Math.min(LAST_BUCKET, Math.floor(Math.log2(ms) * BUCKETS_PER_DOUBLING) + 1);
}

/** A message row as the latency rule reads it. */
export interface LatencyRow {
  role: string;
  timestamp: number;
  display_kind: string;
  /** True when a user message was seen in a group chat, not addressed to the agent. */
  observed?: boolean;
}

/** Whether a row is a user message a reply answers. */
export const isAnswerable = (row: LatencyRow) =>
  row.role === 'user' && row.display_kind !== 'hidden' && row.display_kind !== 'compaction_summary' && !row.observed;

/** Whether a row is an assistant reply that gets a latency. */
export const isReply = (row: LatencyRow) => row.role === 'assistant' && row.display_kind === 'visible';

/**
 * Each row's reply latency, in order: for a reply, its time minus the time of the latest answerable
 * user message before it (in `rows`, or `earlier()` — the session's, read only when needed); null
 * for other rows, for a reply with nothing to answer, and for one stamped before its question.
 */
export async function replyLatencies(
  rows: readonly LatencyRow[],
  earlier: () => Promise<number | null>,
): Promise<(number | null)[]> {
  let answered: number | null | undefined;
  const latencies: (number | null)[] = [];
  for (const row of rows) {
    if (isAnswerable(row)) {
      answered = Number(row.timestamp);
      latencies.push(null);
    } else if (isReply(row)) {
      if (answered === undefined) answered = await earlier();
      const latency = answered === null ? null : Number(row.timestamp) - answered;
      latencies.push(latency !== null && latency >= 0 ? latency : null);
    } else {
      latencies.push(null);
    }
  }
  return latencies;
}

/** The latency contributions of a write's replies, merged per (hour, bucket). */
export function latencyContributions(
  session: { profile: string; source: string; model: string | null },
  replies: readonly { timestamp: number; latencyMs: number }[],
): LatencyContribution[] {
  const merged = new Map<string, LatencyContribution>();
  for (const { timestamp, latencyMs } of replies) {
    const hourStart = timestamp - (timestamp % 3_600_000);
    const bucket = latencyBucket(latencyMs);
    const key = `${hourStart}:${bucket}`;
    const current = merged.get(key);
    if (current) {
      current.replies++;
      current.minMs = Math.min(current.minMs, latencyMs);
      current.maxMs = Math.max(current.maxMs, latencyMs);
    } else {
      merged.set(key, {
        hourStart,
        profile: session.profile,
        source: session.source,
        model: session.model ?? '',
        bucket,
        replies: 1,
        minMs: latencyMs,
        maxMs: latencyMs,
      });
    }
  }
  return [...merged.values()];
}

/** Buckets of the same index summed (several hours, days or groups into one histogram). */
export function mergeHistograms(histograms: readonly (readonly HistogramBucket[])[]): HistogramBucket[] {
  const merged = new Map<number, HistogramBucket>();
  for (const histogram of histograms) {
    for (const entry of histogram) {
      const current = merged.get(entry.bucket);
      if (current) {
        current.replies += entry.replies;
        current.minMs = Math.min(current.minMs, entry.minMs);
        current.maxMs = Math.max(current.maxMs, entry.maxMs);
      } else {
        merged.set(entry.bucket, { ...entry });
      }
    }
  }
  return [...merged.values()].sort((a, b) => a.bucket - b.bucket);
}

/**
 * The nearest-rank percentile `p` (0–1] of a histogram: the latency of the reply at rank
 * ⌈p·n⌉. Within its bucket the rank is placed linearly between the bucket's smallest and largest
 * latency — exact when the bucket holds at most two replies or replies of one value (its first and
 * last rank are its minimum and maximum), otherwise within the bucket's width.
 */
export function percentile(histogram: readonly HistogramBucket[], p: number): number | null {
  const total = histogram.reduce((sum, entry) => sum + entry.replies, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(p * total));
  let seen = 0;
  for (const entry of histogram) {
    if (seen + entry.replies >= rank) {
      const within = rank - seen;
      if (entry.replies === 1) return entry.minMs;
      return Math.round(entry.minMs + ((entry.maxMs - entry.minMs) * (within - 1)) / (entry.replies - 1));
    }
    seen += entry.replies;
  }
  return histogram[histogram.length - 1].maxMs;
}

/** A histogram's figures: how many replies, their median and 95th percentile. */
export function latencyFigures(histogram: readonly HistogramBucket[]): ReplyLatencyFigures {
  return {
    replies: histogram.reduce((sum, entry) => sum + entry.replies, 0),
    p50Ms: percentile(histogram, 0.5),
    p95Ms: percentile(histogram, 0.95),
  };
}
