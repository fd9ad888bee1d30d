import type { LineageKind } from '@statehouse/contracts';
import { cx } from '@/app/ui/common';
import { EDGE_LABELS } from '@/lib/lineage';
import './lineage.css';

/** An edge kind as text in its colour; the colour is never the only signal. */
export function EdgeChip({ kind, className }: { kind: LineageKind; className?: string }) {
  return (
    <span
      className={cx('edge-chip', `edge--${kind}`, className)}
      data-edge-kind={kind}
      title={EDGE_LABELS[kind].description}
    >
      {EDGE_LABELS[kind].label}
    </span>
  );
}
