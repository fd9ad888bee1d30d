import { Table } from '@/app/ui/common';
import { formatCost, formatNumber } from '@/lib/format';
import type { ChartData } from '@/lib/overview';
import './overview.css';

/**
 * The chart's numbers as a table: one row per bucket with activity, one column per series, and a
 * total row. It is the chart for screen readers, and for anyone who wants exact figures.
 */
export function ChartTable({ data, caption }: { data: ChartData; caption: string }) {
  const format = data.format === 'usd' ? formatCost : formatNumber;
  const active = data.buckets.filter((bucket) => bucket.total > 0);
  const unit = data.bucket === 'day' ? 'Day (UTC)' : 'Hour (UTC)';
  const columns = data.series.map((_, index) => index + 1);
  return (
    <details className="chart-table">
      <summary className="chart-table__summary">Show the numbers</summary>
      <Table
        caption={caption}
        captionHidden
        head={[unit, ...data.series.map((series) => series.label), 'Total']}
        numericColumns={[...columns, data.series.length + 1]}
        rows={[
          ...active.map((bucket) => [
            bucket.label,
            ...data.series.map((series) => format(bucket.values[series.key] ?? 0)),
            format(bucket.total),
          ]),
          [
            'All',
            ...data.series.map((series) =>
              format(active.reduce((sum, bucket) => sum + (bucket.values[series.key] ?? 0), 0)),
            ),
            <strong key="total" data-chart-total>
              {format(data.total)}
            </strong>,
          ],
        ]}
      />
    </details>
  );
}
