import { randomUUID } from 'node:crypto';
import { DeletePreviewRequestSchema, type Session } from '@statehouse/contracts';
import type { Metadata } from 'next';
import { Alert, ApiErrorAlert, ButtonLink, Card, EmptyState, Stat, StatStrip } from '@/app/ui/common';
import { ConfirmCard } from '@/app/ui/deletion/ConfirmCard';
import type { ConfirmItem } from '@/app/ui/deletion/DeleteConfirmForm';
import { DeletionHeader } from '@/app/ui/deletion/DeletionHeader';
import { PreviewCard } from '@/app/ui/deletion/PreviewCard';
import { StaysCard } from '@/app/ui/deletion/StaysCard';
import { getSession, previewDeletion } from '@/lib/api';
import { attempt } from '@/lib/attempt';
import { mapLimit } from '@/lib/concurrency';
import { backFrom, idsFrom, previewHref } from '@/lib/deletion';
import type { RawSearchParams } from '@/lib/paths';

export const metadata: Metadata = { title: 'Delete sessions' };

/**
 * The deletion preview: exactly what a confirmed delete removes — the selected conversations, every
 * compression segment of them, their sub-agent sessions — and what stays behind as new roots. The
 * dashboard always deletes a listed conversation as a whole chain (docs/domain.md §3, "No resurrection").
 */
export default async function DeletePreviewPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const params = await searchParams;
  const ids = idsFrom(params);
  const back = backFrom(params);
  const request = DeletePreviewRequestSchema.safeParse({ ids, includeCompressionChain: true });

  if (ids.length === 0 || !request.success) {
    return (
      <>
        <DeletionHeader count={0} />
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
        <DeletionHeader count={ids.length} />
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

  return (
    <>
      <DeletionHeader count={items.length} />

      <StatStrip>
        <Stat label="sessions deleted" value={value.counts.sessions} tone="danger" />
        <Stat label="messages deleted" value={value.counts.messages} tone="danger" />
        <Stat label="routes removed" value={value.counts.routes} />
        {value.counts.deliveries ? (
          <Stat label="undelivered replies abandoned" value={value.counts.deliveries} />
        ) : null}
        {value.counts.delegations ? (
          <Stat label="sub-agent results settled undelivered" value={value.counts.delegations} />
        ) : null}
        <Stat label="children kept as new roots" value={value.orphaned.length} />
        {value.missingIds.length > 0 ? <Stat label="not found" value={value.missingIds.length} /> : null}
      </StatStrip>

      {busy.length > 0 ? (
        <Alert tone="warning" role="alert" title="Busy sessions will be refused">
          <p>
            {busy.map((entry) => entry.id).join(', ')} {busy.length === 1 ? 'has' : 'have'} an agent turn running. A
            busy session is never deleted: a single delete is refused (409 session_busy), a bulk delete skips it.
          </p>
        </Alert>
      ) : null}

      <PreviewCard preview={value} />
      <StaysCard preview={value} />
      <ConfirmCard
        items={items}
        sessionCount={value.counts.sessions}
        back={back}
        previewHref={previewHref(ids, back)}
        idempotencyKey={randomUUID()}
      />
    </>
  );
}
