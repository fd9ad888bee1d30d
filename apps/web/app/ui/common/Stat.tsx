import Link from 'next/link';
import type { ReactNode } from 'react';
import { formatNumber } from '@/lib/format';
import { cx } from './cx';

interface StatProps {
  label: string;
  /** A number is formatted (1,234); text is shown as given (`#12`, `30 d`). */
  value: number | string;
  /** The figure links to where it is listed. */
  href?: string;
  tone?: 'danger';
}

/** One headline figure: the value large, what it counts underneath. */
export function Stat({ label, value, href, tone }: StatProps) {
  const text = typeof value === 'number' ? formatNumber(value) : value;
  return (
    <div className={cx('stat', tone === 'danger' && 'stat--danger')}>
      <span className="stat__value">{href ? <Link href={href}>{text}</Link> : text}</span>
      <span className="stat__label">{label}</span>
    </div>
  );
}

/** A row of figures; `compact` inside a card. */
export function StatStrip({ compact, children }: { compact?: boolean; children: ReactNode }) {
  return <div className={cx('stat-strip', compact && 'stat-strip--compact')}>{children}</div>;
}
