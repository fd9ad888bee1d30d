import type { ReplyLatencyGroup } from '@statehouse/contracts';
import { ApiErrorAlert, Card, EmptyState, Table } from '@/app/ui/common';
import { getReplyLatency } from '@/lib/api';
import { attempt } from '@/lib/attempt';
import { formatLatency, formatNumber } from '@/lib/format';
import type { OverviewRange } from '@/lib/overview';
import './overview.css';

const TITLE = 'Reply latency';

const latency = (ms: number | null) => (ms === null ? '—' : formatLatency(ms));

function groupRows(groups: readonly ReplyLatencyGroup[], none: string) {
  return groups.map((group) => [
    group.key ?? none,
    formatNumber(group.replies),
    latency(group.p50Ms),
    latency(group.p95Ms),
  ]);
}

/**
 * How long assistant replies took to answer in the period (docs/stats.md, "Reply latency"): the
 * median and 95th percentile, per model and per source, as two tables.
 */
export async function ReplyLatencyCard({ range }: { range: OverviewRange }) {
  const result = await attempt(() => getReplyLatency({ from: range.from, to: range.to, profile: range.profile }));
  if (!result.ok) {
    return (
      <Card title={TITLE}>
        <ApiErrorAlert error={result.error} title="Reply latency could not be loaded" />
      </Card>
    );
  }
  const { overall, byModel, bySource } = result.value;
  const head = (first: string) => [first, 'Replies', 'Median (p50)', '95th percentile (p95)'];
  return (
    <Card
      title={TITLE}
      description={
        overall.replies === 0
          ? 'Time from a user message to each assistant reply answering it.'
          : `Time from a user message to each assistant reply answering it: ${formatLatency(overall.p50Ms ?? 0)} median, ${formatLatency(overall.p95Ms ?? 0)} at the 95th percentile over ${formatNumber(overall.replies)} ${overall.replies === 1 ? 'reply' : 'replies'}.`
      }
      className="chart-card"
    >
      {overall.replies === 0 ? (
        <EmptyState
          title="No replies in this period"
          description="Latency is measured for assistant replies written after a user message."
        />
      ) : (
        <div className="chart-card__body" data-chart="reply-latency">
          <Table
            caption="Reply latency by model"
            head={head('Model')}
            numericColumns={[1, 2, 3]}
            rows={groupRows(byModel, 'no model recorded')}
          />
          <Table
            caption="Reply latency by source"
            head={head('Source')}
            numericColumns={[1, 2, 3]}
            rows={groupRows(bySource, '—')}
          />
        </div>
      )}
    </Card>
  );
}
