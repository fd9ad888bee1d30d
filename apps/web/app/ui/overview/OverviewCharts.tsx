import { Suspense } from 'react';
import type { OverviewRange } from '@/lib/overview';
import { ChartSkeleton } from './ChartCard';
import { ReceiptLagCard } from './ReceiptLagCard';
import { DeletionsChart, UsageChart } from './UsageChart';
import './overview.css';

const CHARTS = {
  messages: 'Messages per day by source',
  conversations: 'Conversations per day by source',
  tokens: 'Tokens per day by model',
  cost: 'Cost per day by model',
  deletions: 'Deletions per day by origin',
} as const;

/** Every chart of the overview, each streamed on its own; "per day" reads "per hour" for 24 hours. */
export function OverviewCharts({ range, admin }: { range: OverviewRange; admin: boolean }) {
  const title = (name: keyof typeof CHARTS) =>
    range.bucket === 'hour' ? CHARTS[name].replace('per day', 'per hour') : CHARTS[name];
  const chart = (name: keyof typeof CHARTS, node: React.ReactNode) => (
    <Suspense key={name} fallback={<ChartSkeleton title={title(name)} />}>
      {node}
    </Suspense>
  );
  return (
    <div className="overview-grid">
      {chart(
        'messages',
        <UsageChart
          range={range}
          groupBy="source"
          metric="messages"
          name="messages"
          title={title('messages')}
          description="Visible messages written, by the surface they came from."
        />,
      )}
      {chart(
        'conversations',
        <UsageChart
          range={range}
          groupBy="source"
          metric="conversations"
          name="conversations"
          title={title('conversations')}
          description="Conversations started (roots, branches, resets; not compression segments or sub-agents)."
        />,
      )}
      {chart(
        'tokens',
        <UsageChart
          range={range}
          groupBy="model"
          metric="totalTokens"
          name="tokens"
          title={title('tokens')}
          description="Input and output tokens reported with each model call."
        />,
      )}
      {chart(
        'cost',
        <UsageChart
          range={range}
          groupBy="model"
          metric="costUsd"
          name="cost"
          title={title('cost')}
          description="Estimated cost (USD) reported with each model call."
        />,
      )}
      {chart(
        'deletions',
        <DeletionsChart
          range={range}
          metric="sessions"
          name="deletions"
          title={title('deletions')}
          description="Sessions removed, by what removed them (from the deletion receipts)."
        />,
      )}
      {admin ? (
        <Suspense fallback={<ChartSkeleton title="Receipt consumer lag" />}>
          <ReceiptLagCard />
        </Suspense>
      ) : null}
    </div>
  );
}
