import { randomUUID } from 'node:crypto';
import { type DeletePreview, DeletePreviewRequestSchema, IDENTITY_ROLES, type Session } from '@statehouse/contracts';
import type { Metadata } from 'next';
import Link from 'next/link';
import { Alert, Badge, ButtonLink, Card, EmptyState } from '@/app/ui/common';
import { ApiErrorAlert } from '@/app/ui/common/ApiErrorAlert';
import { type ConfirmItem, DeleteConfirmForm } from '@/app/ui/deletion/DeleteConfirmForm';
import { RoleBadge } from '@/app/ui/deletion/RoleBadge';
import { EdgeChip } from '@/app/ui/lineage/EdgeChip';
import { getSession, previewDeletion } from '@/lib/api';
import { attempt } from '@/lib/attempt';
import { mapLimit } from '@/lib/concurrency';
import { backFrom, idsFrom, previewHref, ROLE_LABELS } from '@/lib/deletion';
import { formatNumber, plural } from '@/lib/format';
import { type RawSearchParams, sessionHref } from '@/lib/paths';

export const metadata: Metadata = { title: 'Delete sessions' };

type PreviewSession = DeletePreview['sessions'][number];

/**
 * The deletion preview: exactly what a confirmed delete removes — the selected conversations, every
 * compression segment of them, their sub-agent sessions — and what stays behind as new roots. The
 * dashboard always deletes a listed conversation as a whole chain (SPEC §3, "No resurrection").
 */
export default async function DeletePreviewPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const params = await searchParams;
  const ids = idsFrom(params);
  const back = backFrom(params);
  const request = DeletePreviewRequestSchema.safeParse({ ids, includeCompressionChain: true });

  if (ids.length === 0 || !request.success) {
    return (
      <>
        <Header count={0} />
        <Card>
          <EmptyState
            title={ids.length === 0 ? 'Nothing selected' : 'This selection cannot be previewed'}
            description={
              ids.length === 0
                ? 'Choose conversations in the sessions list (the checkboxes), then “Delete selected…”.'
                : (request.error?.issues.map((issue) => issue.message).join('; ') ?? '')
            }
            action={<ButtonLink href={back}>Back</ButtonLink>}
          />
        </Card>
      </>
    );
  }

  const [preview, sessions] = await Promise.all([
    attempt(() => previewDeletion(request.data)),
    // The revision and generation each confirmation is checked against: the state shown here.
    mapLimit(ids, 8, (id) => attempt(() => getSession(id))),
  ]);
  if (!preview.ok) {
    return (
      <>
        <Header count={ids.length} />
        <ApiErrorAlert
          error={preview.error}
          title="The deletion preview could not be loaded"
          actions={<ButtonLink href={back}>Back</ButtonLink>}
        />
      </>
    );
  }

  const value = preview.value;
  const current = new Map<string, Session>();
  for (const result of sessions) if (result.ok) current.set(result.value.id, result.value);
  const items: ConfirmItem[] = value.sessions
    .filter((entry) => entry.role === 'selected' && current.has(entry.id))
    .map((entry) => {
      const session = current.get(entry.id) as Session;
      return { id: session.id, revision: session.revision, generation: session.generation };
    });
  const busy = value.sessions.filter((entry) => entry.busy);
  const selfHref = previewHref(ids, back);
  const groups = IDENTITY_ROLES.map((role) => ({
    role,
    entries: value.sessions.filter((entry) => entry.role === role),
  })).filter((group) => group.entries.length > 0);

  return (
    <>
      <Header count={items.length} />

      <div className="stat-strip">
        <Stat label="sessions deleted" value={value.counts.sessions} tone="danger" />
        <Stat label="messages deleted" value={value.counts.messages} tone="danger" />
        <Stat label="children kept as new roots" value={value.orphaned.length} />
        {value.missingIds.length > 0 ? <Stat label="not found" value={value.missingIds.length} /> : null}
      </div>

      {busy.length > 0 ? (
        <Alert tone="warning" role="alert" title="Busy sessions will be refused">
          <p>
            {busy.map((entry) => entry.id).join(', ')} {busy.length === 1 ? 'has' : 'have'} an agent turn running. A
            busy session is never deleted: a single delete is refused (409 session_busy), a bulk delete skips it.
          </p>
        </Alert>
      ) : null}

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

      {value.orphaned.length > 0 || value.missingIds.length > 0 ? (
        <Card title="Stays" description="Nothing here is deleted.">
          {value.orphaned.length > 0 ? (
            <>
              <p className="preview-note">
                These children are detached and become conversations of their own (branches and resets are never
                cascaded):
              </p>
              <ul className="preview-list" aria-label="Orphaned sessions">
                {value.orphaned.map((entry) => (
                  <li key={entry.id} className="preview-row preview-row--kept" data-session-id={entry.id}>
                    <div className="preview-row__main">
                      <Link href={sessionHref(entry.id)} className="preview-row__title">
                        <code>{entry.id}</code>
                      </Link>
                    </div>
                    <div className="preview-row__side">
                      {entry.lineageKind ? <EdgeChip kind={entry.lineageKind} /> : null}
                      <Badge tone="success">orphaned, kept</Badge>
                    </div>
                  </li>
                ))}
              </ul>
            </>
          ) : null}
          {value.missingIds.length > 0 ? (
            <p className="preview-note">
              Not found (already deleted, or outside your profiles):{' '}
              {value.missingIds.map((id) => (
                <code key={id}>{id} </code>
              ))}
            </p>
          ) : null}
        </Card>
      ) : null}

      <Card title="Confirm" className="confirm-card">
        <p className="preview-note">
          This cannot be undone. A content-free deletion receipt records which sessions were removed (ids, routing
          identity, roles) — no message text. The deletion is checked against the revisions shown here: anything that
          changed since is refused, never deleted unseen.
        </p>
        {items.length === 0 ? (
          <Alert tone="info" title="Nothing to delete">
            <p>None of the selected sessions exists any more.</p>
          </Alert>
        ) : null}
        <DeleteConfirmForm
          items={items}
          label={`Delete ${plural(value.counts.sessions, 'session')} permanently`}
          back={back}
          previewHref={selfHref}
          idempotencyKey={randomUUID()}
          disabled={items.length === 0}
        />
      </Card>
    </>
  );
}

function Header({ count }: { count: number }) {
  return (
    <div>
      <nav aria-label="Breadcrumb">
        <ol className="breadcrumbs">
          <li>
            <Link href="/sessions">Sessions</Link>
          </li>
          <li aria-current="page">Delete</li>
        </ol>
      </nav>
      <div className="page-header">
        <div>
          <h1 className="page-header__title">
            {count <= 1 ? 'Delete this conversation?' : `Delete ${count} conversations?`}
          </h1>
          <p className="page-header__description">Review exactly what goes before you confirm.</p>
        </div>
      </div>
    </div>
  );
}

function Stat({ label, value, tone }: { label: string; value: number; tone?: 'danger' }) {
  return (
    <div className={tone === 'danger' ? 'stat stat--danger' : 'stat'}>
      <span className="stat__value">{formatNumber(value)}</span>
      <span className="stat__label">{label}</span>
    </div>
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
        <span className="preview-row__meta">
          {title ? <code>{entry.id}</code> : null}
          <Badge>{entry.profile}</Badge>
          {entry.lineageKind && entry.parentSessionId ? (
            <span className="preview-row__edge">
              <EdgeChip kind={entry.lineageKind} /> of <code>{entry.parentSessionId}</code>
            </span>
          ) : null}
        </span>
      </div>
      <div className="preview-row__side">
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
