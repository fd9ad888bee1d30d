import type { ReactNode } from 'react';
import { ApiErrorAlert, Card } from '@/app/ui/common';
import { type DeletionMetric, deletionChart, type OverviewRange, type UsageMetric, usageChart } from '@/lib/overview';
import { loadDeletions, loadUsage } from '@/lib/overview-data';
import { ChartCard } from './ChartCard';

interface ChartProps {
  range: OverviewRange;
  title: string;
  description: ReactNode;
  name: string;
}

/** A usage chart (messages, conversations, tokens or cost per bucket), grouped by source or model. */
export async function UsageChart({
  range,
  groupBy,
  metric,
  ...card
}: ChartProps & { groupBy: 'source' | 'model' | 'profile'; metric: UsageMetric }) {
  const result = await loadUsage(range, groupBy);
  if (!result.ok) {
    return (
      <Card title={card.title}>
        <ApiErrorAlert error={result.error} title="This chart could not be loaded" />
      </Card>
    );
  }
  return <ChartCard {...card} data={usageChart(result.value, metric)} />;
}

/** Sessions deleted per bucket, by origin (from the receipts: kept when receipts are reclaimed). */
export async function DeletionsChart({ range, metric, ...card }: ChartProps & { metric: DeletionMetric }) {
  const result = await loadDeletions(range, 'origin');
  if (!result.ok) {
    return (
      <Card title={card.title}>
        <ApiErrorAlert error={result.error} title="This chart could not be loaded" />
      </Card>
    );
  }
  return <ChartCard {...card} data={deletionChart(result.value, metric)} />;
}
