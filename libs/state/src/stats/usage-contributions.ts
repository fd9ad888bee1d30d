import type { UsageDelta } from '@statehouse/contracts';
import { HOUR_MS, type UsageContribution } from './usage-rollup.repository.js';

/** The session a write belongs to, as the rollups key it. */
export interface UsageSession {
  id: string;
  profile: string;
  source: string;
  model: string | null;
}

/**
 * What a write of messages (an append, or a session's opening messages) adds to the usage
 * rollups (docs/stats.md): each visible message in the hour of its timestamp, and the reported
 * usage in the hour of the write's last message (or `now` when every message was a duplicate).
 * Hidden scaffolding and compaction summaries are not counted; copies made by branch or
 * compression never come through here.
 */
export function usageContributions(
  session: UsageSession,
  rows: readonly { timestamp: number; display_kind?: string }[],
  usage: UsageDelta | undefined,
  now: number,
): UsageContribution[] {
  const base = { sessionId: session.id, profile: session.profile, source: session.source, model: session.model ?? '' };
  const byHour = new Map<number, UsageContribution>();
  const at = (hourStart: number) => {
    let contribution = byHour.get(hourStart);
    if (!contribution) {
      contribution = { ...base, hourStart };
      byHour.set(hourStart, contribution);
    }
    return contribution;
  };
  let last = Number.NEGATIVE_INFINITY;
  for (const row of rows) {
    const timestamp = Number(row.timestamp);
    if (timestamp > last) last = timestamp;
    if ((row.display_kind ?? 'visible') !== 'visible') continue;
    const contribution = at(timestamp - (timestamp % HOUR_MS));
    contribution.messages = (contribution.messages ?? 0) + 1;
  }
  if (usage && Object.values(usage).some((value) => value !== undefined && value !== 0)) {
    const when = rows.length > 0 ? last : now;
    const contribution = at(when - (when % HOUR_MS));
    contribution.inputTokens = usage.inputTokens ?? 0;
    contribution.outputTokens = usage.outputTokens ?? 0;
    contribution.cacheReadTokens = usage.cacheReadTokens ?? 0;
    contribution.cacheWriteTokens = usage.cacheWriteTokens ?? 0;
    contribution.reasoningTokens = usage.reasoningTokens ?? 0;
    contribution.costUsd = usage.estimatedCostUsd ?? 0;
  }
  return [...byHour.values()];
}
