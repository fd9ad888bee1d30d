import { Suspense } from 'react';
import type { DeletionMetric, OverviewRange, UsageMetric } from '@/lib/overview';
import { ChartSkeleton } from './ChartCard';
import { ReceiptLagCard } from './ReceiptLagCard';
import { ReplyLatencyCard } from './ReplyLatencyCard';
import { DeletionsChart, UsageChart } from './UsageChart';
import './overview.css';

type ChartSpec = { name: string; title: string; description: string } & (
  | { source: 'usage'; groupBy: 'source' | 'model'; metric: UsageMetric }
  | { source: 'deletions'; metric: DeletionMetric }
);

const CHARTS: ChartSpec[] = [
  {
    name: 'messages',
    title: 'Messages per day by source',
    description: 'Visible messages written, by the surface they came from.',
    source: 'usage',
    groupBy: 'source',
    metric: 'messages',
  },
  {
    name: 'conversations',
    title: 'Conversations per day by source',
    description: 'Conversations started (roots, branches, resets; not compression segments or sub-agents).',
    source: 'usage',
    groupBy: 'source',
    metric: 'conversations',
  },
  {
    name: 'tokens',
    title: 'Tokens per day by model',
    description: 'Input and output tokens reported with each model call.',
    source: 'usage',
    groupBy: 'model',
    metric: 'totalTokens',
  },
  {
    name: 'cost',
    title: 'Cost per day by model',
    description: 'Estimated cost (USD) reported with each model call.',
    source: 'usage',
    groupBy: 'model',
    metric: 'costUsd',
  },
  {
    name: 'deletions',
    title: 'Deletions per day by origin',
    description: 'Sessions removed, by what removed them (from the deletion receipts).',
    source: 'deletions',
    metric: 'sessions',
  },
];

/** Every chart of the overview, each streamed on its own; "per day" reads "per hour" for 24 hours. */
export function OverviewCharts({ range, admin }: { range: OverviewRange; admin: boolean }) {
  return (
    <div className="overview-grid">
      {CHARTS.map((spec) => {
        const title = spec.title.replace('per day', `per ${range.bucket}`);
        const card = { range, name: spec.name, title, description: spec.description };
        return (
          <Suspense key={spec.name} fallback={<ChartSkeleton title={title} />}>
            {spec.source === 'usage' ? (
              <UsageChart {...card} groupBy={spec.groupBy} metric={spec.metric} />
            ) : (
              <DeletionsChart {...card} metric={spec.metric} />
            )}
          </Suspense>
        );
      })}
      <Suspense fallback={<ChartSkeleton title="Reply latency" />}>
        <ReplyLatencyCard range={range} />
      </Suspense>
      {admin ? (
        <Suspense fallback={<ChartSkeleton title="Receipt consumer lag" />}>
          <ReceiptLagCard />
        </Suspense>
      ) : null}
    </div>
  );
}
