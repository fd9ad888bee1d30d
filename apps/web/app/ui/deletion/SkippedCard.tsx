import { Badge, Card } from '@/app/ui/common';
import { SKIP_REASON_LABELS } from '@/lib/deletion';
import { humanize } from '@/lib/format';
import './deletion.css';

/** Sessions a bulk delete left alone, each with the reason (busy, changed after the preview, …). */
export function SkippedCard({ skipped }: { skipped: { id: string; reason: string }[] }) {
  if (skipped.length === 0) return null;
  return (
    <Card title="Skipped" description="These were not deleted.">
      <ul className="preview-list" aria-label="Skipped sessions">
        {skipped.map((skip) => (
          <li key={skip.id} className="preview-row" data-session-id={skip.id} data-skip-reason={skip.reason}>
            <div className="preview-row__main">
              <code className="preview-row__title">{skip.id}</code>
            </div>
            <div className="preview-row__side meta-row">
              <Badge tone="warning">{SKIP_REASON_LABELS[skip.reason] ?? humanize(skip.reason)}</Badge>
            </div>
          </li>
        ))}
      </ul>
    </Card>
  );
}
