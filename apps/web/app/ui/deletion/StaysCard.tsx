import type { DeletePreview } from '@statehouse/contracts';
import Link from 'next/link';
import { Badge, Card } from '@/app/ui/common';
import { EdgeChip } from '@/app/ui/lineage/EdgeChip';
import { sessionHref } from '@/lib/paths';
import './deletion.css';

/** What the delete leaves: children that become roots of their own, and ids that were not found. */
export function StaysCard({ preview }: { preview: DeletePreview }) {
  if (preview.orphaned.length === 0 && preview.missingIds.length === 0) return null;
  return (
    <Card title="Stays" description="Nothing here is deleted.">
      {preview.orphaned.length > 0 ? (
        <>
          <p className="preview-note">
            These children are detached and become conversations of their own (branches and resets are never cascaded):
          </p>
          <ul className="preview-list" aria-label="Orphaned sessions">
            {preview.orphaned.map((entry) => (
              <li key={entry.id} className="preview-row preview-row--kept" data-session-id={entry.id}>
                <div className="preview-row__main">
                  <Link href={sessionHref(entry.id)} className="preview-row__title">
                    <code>{entry.id}</code>
                  </Link>
                </div>
                <div className="preview-row__side meta-row">
                  {entry.lineageKind ? <EdgeChip kind={entry.lineageKind} /> : null}
                  <Badge tone="success">orphaned, kept</Badge>
                </div>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {preview.missingIds.length > 0 ? (
        <p className="preview-note">
          Not found (already deleted, or outside your profiles):{' '}
          {preview.missingIds.map((id) => (
            <code key={id}>{id} </code>
          ))}
        </p>
      ) : null}
    </Card>
  );
}
