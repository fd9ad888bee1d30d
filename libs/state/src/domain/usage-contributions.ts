import type { UsageDelta } from '@statehouse/contracts';
import { HOUR_MS, type UsageContribution } from '../repositories/usage-rollup.repository.js';

/** The session a write belongs to, as the rollups key it. */
export interface UsageSession {
  id: string;
  profile: string;
  source: string;
  model: string | null;
}

/**
 * What a write of messages (an append, or a session's opening messages) adds to the usage
 * rollups (docs/stats.md): each message people see (not hidden scaffolding) in the hour of its
 * timestamp, and the reported usage in the hour of the write's last message (or `now` when every
 * message was a duplicate). Copies made by branch or compression never come through here.
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
    if (row.display_kind === 'hidden') continue;
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

const COUNTERS = [
  'messages',
  'inputTokens',
  'outputTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
  'reasoningTokens',
  'costUsd',
] as const;

/**
 * An append's counters are rolled up by the sessions trigger in the hour of the session's last
 * activity (the write), so the hot path needs no statement of its own (migration 2026-11-30T04.00).
 * When messages carry other hours — a client sending older timestamps — this is what moves their
 * share from the write's hour to theirs. Empty in the common case.
 */
export function writeTimeCorrection(
  actual: readonly UsageContribution[],
  session: UsageSession & { lastActivityAt: number },
): UsageContribution[] {
  const hour = session.lastActivityAt - (session.lastActivityAt % HOUR_MS);
  const elsewhere = actual.filter((contribution) => contribution.hourStart !== hour);
  if (elsewhere.length === 0) return [];
  const back: UsageContribution = {
    sessionId: session.id,
    profile: session.profile,
    source: session.source,
    model: session.model ?? '',
    hourStart: hour,
  };
  for (const contribution of elsewhere) {
    for (const key of COUNTERS) back[key] = (back[key] ?? 0) - (contribution[key] ?? 0);
  }
  return [...elsewhere, back];
}

/**
 * The common case, checked without building contributions: every message (and so the usage) is
 * in the hour the trigger used — nothing to move.
 */
export function inWriteHour(rows: readonly { timestamp: number }[], lastActivityAt: number, now: number): boolean {
  const hour = lastActivityAt - (lastActivityAt % HOUR_MS);
  if (rows.length === 0) return now - (now % HOUR_MS) === hour;
  for (const row of rows) {
    const timestamp = Number(row.timestamp);
    if (timestamp - (timestamp % HOUR_MS) !== hour) return false;
  }
  return true;
}

/** The counter changes of one update of a session's counters (an append, an import). */
export interface CounterChange {
  messages: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  estimatedCostUsd: number;
}

/**
 * What the sessions trigger rolls up for a counter update that bumps the revision: each counter's
 * increase, in the hour of the session's last activity after the update (migration 2026-11-30T04.00).
 */
export function appendTriggerContribution(
  session: UsageSession & { lastActivityAt: number },
  change: CounterChange,
): UsageContribution {
  return {
    sessionId: session.id,
    profile: session.profile,
    source: session.source,
    model: session.model ?? '',
    hourStart: session.lastActivityAt - (session.lastActivityAt % HOUR_MS),
    messages: Math.max(change.messages, 0),
    inputTokens: Math.max(change.inputTokens, 0),
    outputTokens: Math.max(change.outputTokens, 0),
    cacheReadTokens: Math.max(change.cacheReadTokens, 0),
    cacheWriteTokens: Math.max(change.cacheWriteTokens, 0),
    reasoningTokens: Math.max(change.reasoningTokens, 0),
    costUsd: Math.max(change.estimatedCostUsd, 0),
  };
}

/** What to record so that `recorded` (already in the rollup) becomes `actual`: their difference by hour. */
export function correctionFor(actual: readonly UsageContribution[], recorded: UsageContribution): UsageContribution[] {
  const byHour = new Map<number, UsageContribution>(actual.map((c) => [c.hourStart, { ...c }]));
  const slot = byHour.get(recorded.hourStart) ?? { ...recorded, ...Object.fromEntries(COUNTERS.map((k) => [k, 0])) };
  for (const key of COUNTERS) slot[key] = (slot[key] ?? 0) - (recorded[key] ?? 0);
  byHour.set(recorded.hourStart, slot);
  return [...byHour.values()].filter((c) => COUNTERS.some((key) => (c[key] ?? 0) !== 0));
}
