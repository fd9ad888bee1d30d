import { ApiErrorAlert, Card, EmptyState, Table, Timestamp } from '@/app/ui/common';
import { getReceiptLag } from '@/lib/api';
import { attempt } from '@/lib/attempt';
import { formatDuration, formatNumber } from '@/lib/format';
import type { ChartData } from '@/lib/overview';
import { StackedBarChart } from './StackedBarChart';
import './overview.css';

const TITLE = 'Receipt consumer lag';

/** How far each registered receipt consumer trails the deletion feed (administrators). */
export async function ReceiptLagCard() {
  const result = await attempt(getReceiptLag);
  if (!result.ok) {
    return (
      <Card title={TITLE}>
        <ApiErrorAlert error={result.error} title="Receipt lag could not be loaded" />
      </Card>
    );
  }
  const { consumers, highWater } = result.value;
  const chart: ChartData = {
    series: [{ key: 'behind', label: 'receipts behind' }],
    buckets: consumers.map((consumer) => ({
      label: consumer.name,
      start: consumer.updatedAt,
      values: { behind: consumer.behind },
      total: consumer.behind,
    })),
    total: consumers.reduce((sum, consumer) => sum + consumer.behind, 0),
    format: 'count',
    bucket: 'day',
  };
  return (
    <Card
      title={TITLE}
      description={`Receipts each registered consumer has not acknowledged yet; the feed is at #${formatNumber(highWater)}.`}
      className="chart-card"
    >
      {consumers.length === 0 ? (
        <EmptyState title="No registered consumers" description="Consumers register by acknowledging a cursor." />
      ) : (
        <div className="chart-card__body" data-chart="receipt-lag">
          {chart.total > 0 ? <StackedBarChart data={chart} height={Math.max(120, 48 * consumers.length)} /> : null}
          <Table
            caption="Receipt consumers and their lag"
            captionHidden
            head={['Consumer', 'Acknowledged through', 'Behind', 'Oldest unacknowledged', 'Lag']}
            numericColumns={[1, 2]}
            rows={consumers.map((consumer) => [
              consumer.name,
              `#${formatNumber(consumer.cursor)}`,
              formatNumber(consumer.behind),
              consumer.oldestPendingAt ? <Timestamp key="oldest" iso={consumer.oldestPendingAt} /> : 'caught up',
              consumer.lagSeconds === null ? '—' : formatDuration(consumer.lagSeconds * 1000),
            ])}
          />
        </div>
      )}
    </Card>
  );
}
