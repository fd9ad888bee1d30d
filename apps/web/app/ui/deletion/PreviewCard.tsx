import { type DeletePreview, IDENTITY_ROLES } from '@statehouse/contracts';
import Link from 'next/link';
import { Badge, Card } from '@/app/ui/common';
import { EdgeChip } from '@/app/ui/lineage/EdgeChip';
import { ROLE_LABELS } from '@/lib/deletion';
import { plural } from '@/lib/format';
import { sessionHref } from '@/lib/paths';
import { RoleBadge } from './RoleBadge';
import './deletion.css';

type PreviewSession = DeletePreview['sessions'][number];

/** Everything a confirmed delete removes, grouped by why: selected, chain member, delegate cascade. */
export function PreviewCard({ preview }: { preview: DeletePreview }) {
  const groups = IDENTITY_ROLES.map((role) => ({
    role,
    entries: preview.sessions.filter((entry) => entry.role === role),
  })).filter((group) => group.entries.length > 0);
  return (
    <Card
      title="Will be deleted"
      description="Whole conversations: every compression segment and every sub-agent session goes with them."
      className="preview-card"
    >
      <div className="preview-groups">
        {groups.map((group) => (
          <section key={group.role} className="preview-group" aria-labelledby={`role-${group.role}`}>
            <h3 className="preview-group__title" id={`role-${group.role}`}>
              <RoleBadge role={group.role} /> <span>{group.entries.length}</span>
              <span className="preview-group__description">{ROLE_LABELS[group.role].description}</span>
            </h3>
            <ul className="preview-list" aria-label={`${ROLE_LABELS[group.role].label} sessions`}>
              {group.entries.map((entry) => (
                <PreviewRow key={entry.id} entry={entry} />
              ))}
            </ul>
          </section>
        ))}
      </div>
    </Card>
  );
}

function PreviewRow({ entry }: { entry: PreviewSession }) {
  const title = entry.title ?? entry.preview;
  return (
    <li className="preview-row" data-role={entry.role} data-session-id={entry.id}>
      <div className="preview-row__main">
        <Link href={sessionHref(entry.id)} className="preview-row__title">
          {title ?? <code>{entry.id}</code>}
        </Link>
        <span className="preview-row__meta meta-row">
          {title ? <code>{entry.id}</code> : null}
          <Badge>{entry.profile}</Badge>
          {entry.lineageKind && entry.parentSessionId ? (
            <span className="preview-row__edge meta-row">
              <EdgeChip kind={entry.lineageKind} /> of <code>{entry.parentSessionId}</code>
            </span>
          ) : null}
        </span>
      </div>
      <div className="preview-row__side meta-row">
        <RoleBadge role={entry.role} />
        <span>{plural(entry.messageCount, 'message')}</span>
        {entry.busy ? (
          <Badge tone="warning" dot>
            Busy
          </Badge>
        ) : null}
      </div>
    </li>
  );
}
