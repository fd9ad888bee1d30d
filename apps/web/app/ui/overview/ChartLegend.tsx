import type { ChartData } from '@/lib/overview';
import { swatchClass } from './series';
import './overview.css';

/** The series of a chart, in the bars' colours (HTML, so it reads and wraps like text). */
export function ChartLegend({ data, label }: { data: ChartData; label: string }) {
  if (data.series.length === 0) return null;
  return (
    <ul className="chart-legend" aria-label={label}>
      {data.series.map((series, index) => (
        <li key={series.key} className="chart-legend__item">
          <span className={swatchClass(index)} aria-hidden="true" />
          {series.label}
        </li>
      ))}
    </ul>
  );
}
