import type { LineageResponse, Session } from '@statehouse/contracts';
import { ButtonLink, Card } from '@/app/ui/common';
import { ExportButton } from '@/app/ui/export/ExportButton';
import { DEFAULT_END_REASON, END_REASON_GROUPS, finalEndNote, reopenable } from '@/lib/end-reasons';
import { hrefWith } from '@/lib/paths';
import { LifecycleForm } from './LifecycleForm';
import { ManageSession } from './ManageSession';
import './sessions.css';

/** Rename, pin and archive; end or reopen; delete. `reloadHref` is this page, same view. */
export function ManageCard({
  session,
  lineage,
  reloadHref,
}: {
  session: Session;
  lineage: LineageResponse | null;
  reloadHref: string;
}) {
  return (
    <Card title="Manage">
      <div className="manage-stack">
        <ManageSession
          sessionId={session.id}
          revision={session.revision}
          title={session.title}
          archived={session.archived}
          pinned={session.pinned}
          reloadHref={reloadHref}
        />
        <section className="manage-section" aria-labelledby="lifecycle-heading">
          <h3 className="metadata-section__title" id="lifecycle-heading">
            Lifecycle
          </h3>
          <LifecycleForm
            sessionId={session.id}
            revision={session.revision}
            ended={session.endedAt !== null}
            reopenable={reopenable(session.endReason)}
            finalNote={session.endedAt ? finalEndNote(session.endReason) : null}
            reasonGroups={END_REASON_GROUPS}
            defaultReason={DEFAULT_END_REASON}
            reloadHref={reloadHref}
          />
        </section>
        <section className="manage-section" aria-labelledby="export-heading">
          <h3 className="metadata-section__title" id="export-heading">
            Export
          </h3>
          <div className="export-bar">
            {(['jsonl', 'markdown'] as const).map((format) => (
              <ExportButton
                key={format}
                href={hrefWith(`/exports/sessions/${encodeURIComponent(session.id)}`, { format })}
                label={format === 'jsonl' ? 'Export JSONL' : 'Export Markdown'}
                unit="lines"
                expected={null}
              />
            ))}
          </div>
        </section>
        <DangerZone session={session} lineage={lineage} backHref={reloadHref} />
      </div>
    </Card>
  );
}

/** Deleting starts at the preview: it names every segment and sub-agent session that goes too. */
function DangerZone({
  session,
  lineage,
  backHref,
}: {
  session: Session;
  lineage: LineageResponse | null;
  backHref: string;
}) {
  const segments = lineage?.chain.length ?? 1;
  const delegates = lineage?.edges.filter((edge) => edge.kind === 'delegate').length ?? 0;
  return (
    <section className="manage-section danger-zone" aria-labelledby="danger-heading">
      <h3 className="metadata-section__title" id="danger-heading">
        Delete
      </h3>
      <p className="danger-zone__text">
        Deletes the whole conversation
        {segments > 1 ? ` (all ${segments} compression segments)` : ''}
        {delegates > 0 ? ' and its sub-agent sessions' : ''}. You will see exactly what goes before you confirm.
      </p>
      <ButtonLink
        href={hrefWith('/delete', { ids: session.id, back: backHref })}
        variant="danger"
        size="sm"
        className="danger-zone__button"
      >
        Delete conversation…
      </ButtonLink>
    </section>
  );
}
