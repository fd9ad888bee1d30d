import type { ReactNode } from 'react';
import { Card, EmptyState } from '@/app/ui/common';
import { formatCost, formatNumber } from '@/lib/format';
import type { ChartData } from '@/lib/overview';
import { ChartLegend } from './ChartLegend';
import { ChartTable } from './ChartTable';
import { StackedBarChart } from './StackedBarChart';
import './overview.css';

interface ChartCardProps {
  title: string;
  /** What is counted, in one sentence (and where the numbers come from). */
  description: ReactNode;
  data: ChartData;
  /** Names the testable chart (`data-chart`), e.g. "messages". */
  name: string;
}

/** A titled chart: its total, the legend, the bars, and the same numbers as a table. */
export function ChartCard({ title, description, data, name }: ChartCardProps) {
  const total = data.format === 'usd' ? formatCost(data.total) : formatNumber(data.total);
  return (
    <Card title={title} description={description} className="chart-card">
      <div className="chart-card__body" data-chart={name}>
        <p className="chart-card__total">
          <span className="chart-card__total-value" data-chart-headline>
            {total}
          </span>{' '}
          in this period
        </p>
        {data.total === 0 ? (
          <EmptyState title="Nothing in this period" description="Choose a longer period or another profile." />
        ) : (
          <>
            <ChartLegend data={data} label={`${title}: series`} />
            <StackedBarChart data={data} />
            <ChartTable data={data} caption={title} />
          </>
        )}
      </div>
    </Card>
  );
}

/** What a chart card shows while its numbers load (the same height, so nothing jumps). */
export function ChartSkeleton({ title }: { title: string }) {
  return (
    <Card title={title} className="chart-card">
      <div className="chart-card__loading" aria-busy="true">
        <span className="visually-hidden">Loading {title}…</span>
        <div className="skeleton skeleton--chart" />
      </div>
    </Card>
  );
}
