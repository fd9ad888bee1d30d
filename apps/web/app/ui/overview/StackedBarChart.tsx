'use client';

import { useEffect, useState } from 'react';
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatCost, formatNumber } from '@/lib/format';
import type { ChartData } from '@/lib/overview';
import { SERIES_COLOURS } from './series';
import './overview.css';

interface Palette {
  series: string[];
  text: string;
  grid: string;
  surface: string;
}

/**
 * The design tokens' current values (light or dark), re-read when the colour scheme changes — the
 * system's, or the theme switcher's `data-theme`. Tokens are light-dark() pairs, so each is resolved
 * through a probe element's computed colour rather than read as text.
 */
function usePalette(): Palette | null {
  const [palette, setPalette] = useState<Palette | null>(null);
  useEffect(() => {
    const read = () => {
      const probe = document.createElement('span');
      probe.hidden = true;
      document.body.append(probe);
      const token = (name: string) => {
        probe.style.color = `var(${name})`;
        return getComputedStyle(probe).color;
      };
      setPalette({
        series: SERIES_COLOURS.map(token),
        text: token('--text-muted'),
        grid: token('--border'),
        surface: token('--surface-raised'),
      });
      probe.remove();
    };
    read();
    const scheme = window.matchMedia('(prefers-color-scheme: dark)');
    scheme.addEventListener('change', read);
    const theme = new MutationObserver(read);
    theme.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => {
      scheme.removeEventListener('change', read);
      theme.disconnect();
    };
  }, []);
  return palette;
}

const formatterFor = (format: ChartData['format']) => (format === 'usd' ? formatCost : formatNumber);
// Small amounts keep two significant digits ($0.0025), larger ones whole dollars or cents.
const compactUsd = (value: number) =>
  value >= 100
    ? `$${Math.round(value)}`
    : value >= 1 || value === 0
      ? `$${value.toFixed(2)}`
      : `$${Number(value.toPrecision(2))}`;
const compactCount = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });

/**
 * Bars per bucket, stacked by series. Drawn only in the browser, after hydration: its sizes are
 * measured there, and the server sends no inline styles (the page's CSP allows none). The same
 * numbers are in the chart card's table for anyone who does not see the picture.
 */
export function StackedBarChart({ data, height = 220 }: { data: ChartData; height?: number }) {
  const palette = usePalette();
  const rows = data.buckets.map((bucket) => ({ label: bucket.label, ...bucket.values }));
  const format = formatterFor(data.format);
  return (
    <div className="chart" data-chart-ready={palette ? 'true' : 'false'} aria-hidden="true">
      {palette ? (
        <ResponsiveContainer width="100%" height={height}>
          <BarChart data={rows} accessibilityLayer={false} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid vertical={false} stroke={palette.grid} />
            <XAxis
              dataKey="label"
              tick={{ fill: palette.text, fontSize: 12 }}
              tickLine={false}
              axisLine={false}
              minTickGap={12}
            />
            <YAxis
              width={52}
              tick={{ fill: palette.text, fontSize: 12 }}
              tickLine={false}
              axisLine={false}
              allowDecimals={data.format === 'usd'}
              tickFormatter={(value: number) =>
                data.format === 'usd' ? compactUsd(value) : compactCount.format(value)
              }
            />
            <Tooltip
              cursor={{ fill: palette.grid, opacity: 0.4 }}
              formatter={(value) => format(Number(value))}
              contentStyle={{ background: palette.surface, borderColor: palette.grid, borderRadius: 8, fontSize: 13 }}
              labelStyle={{ color: palette.text }}
            />
            {data.series.map((series, index) => (
              <Bar
                key={series.key}
                dataKey={series.key}
                name={series.label}
                stackId="total"
                fill={palette.series[index % palette.series.length]}
                isAnimationActive={false}
              />
            ))}
          </BarChart>
        </ResponsiveContainer>
      ) : (
        <div className="chart__placeholder" />
      )}
    </div>
  );
}
