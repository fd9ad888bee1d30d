import { Stat } from '@/app/ui/common';
import { formatCost, formatNumber } from '@/lib/format';
import type { OverviewRange } from '@/lib/overview';
import { loadSummary } from '@/lib/overview-data';
import { hrefWith } from '@/lib/paths';

export const SUMMARY_FIGURES = ['conversations', 'messages', 'tokens', 'cost', 'activeNow', 'deletions'] as const;
export type SummaryFigureName = (typeof SUMMARY_FIGURES)[number];

export const SUMMARY_LABELS: Record<SummaryFigureName, string> = {
  conversations: 'conversations started',
  messages: 'messages',
  tokens: 'tokens (input + output)',
  cost: 'estimated cost',
  activeNow: 'active now',
  deletions: 'sessions deleted',
};

/** One overview card's figure; every card reads the same summary answer (fetched once per request). */
export async function SummaryFigure({ range, name }: { range: OverviewRange; name: SummaryFigureName }) {
  const result = await loadSummary(range);
  if (!result.ok) return <Stat label={SUMMARY_LABELS[name]} value="—" />;
  const { usage, deletions, activeNow } = result.value;
  const sessions = (params: Record<string, string | undefined>) =>
    hrefWith('/sessions', { profile: range.profile, ...params });
  switch (name) {
    case 'conversations':
      return (
        <Stat
          label={SUMMARY_LABELS[name]}
          value={usage.conversations}
          href={sessions({ startedFrom: range.from, order: 'started' })}
        />
      );
    case 'messages':
      return <Stat label={SUMMARY_LABELS[name]} value={usage.messages} />;
    case 'tokens':
      return <Stat label={SUMMARY_LABELS[name]} value={formatNumber(usage.totalTokens)} />;
    case 'cost':
      return <Stat label={SUMMARY_LABELS[name]} value={formatCost(usage.costUsd)} />;
    case 'activeNow':
      return (
        <Stat
          label={`${SUMMARY_LABELS[name]} (last ${activeNow.windowMinutes} min; ${formatNumber(activeNow.busy)} busy)`}
          value={activeNow.sessions}
          href={sessions({ status: 'open' })}
        />
      );
    case 'deletions':
      return <Stat label={SUMMARY_LABELS[name]} value={deletions.sessions} />;
  }
}
