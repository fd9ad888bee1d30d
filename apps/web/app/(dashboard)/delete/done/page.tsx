import type { Metadata } from 'next';
import { Alert, ApiErrorAlert, ButtonLink, PageHeader } from '@/app/ui/common';
import { ReceiptSummary } from '@/app/ui/deletion/ReceiptSummary';
import { SkippedCard } from '@/app/ui/deletion/SkippedCard';
import { getReceipt } from '@/lib/api';
import { attempt } from '@/lib/attempt';
import { backFrom, idsFrom, parseSkipped } from '@/lib/deletion';
import { plural } from '@/lib/format';
import type { RawSearchParams } from '@/lib/paths';

export const metadata: Metadata = { title: 'Deleted' };

/**
 * After a confirmed deletion: the receipt(s) it wrote (sequence, operation id, counts) and what was
 * skipped and why. The receipts' operation ids come from the URL; how many sessions were deleted
 * is what the receipts the API returns say (a number in the URL would be anyone's claim), so a
 * reload is safe and an edited link proves nothing.
 */
export default async function DeletionDonePage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const params = await searchParams;
  const operationIds = idsFrom(params, 'receipt').slice(0, 20);
  const back = backFrom(params);
  const receipts = await Promise.all(operationIds.map((id) => attempt(() => getReceipt(id))));
  const deleted = receipts.reduce((sum, result) => sum + (result.ok ? result.value.counts.sessions : 0), 0);
  const unconfirmed = receipts.filter((result) => !result.ok).length;
  // Where the list was: a deleted session's own page would now be a 404.
  const backToList = back.startsWith('/sessions/') ? '/sessions' : back;

  return (
    <>
      <PageHeader
        breadcrumbs={[{ href: '/sessions', label: 'Sessions' }, { label: 'Deleted' }]}
        title={
          deleted > 0
            ? `Deleted ${plural(deleted, 'session')}`
            : unconfirmed > 0
              ? 'Deletion not confirmed'
              : 'Nothing was deleted'
        }
        description={
          operationIds.length > 0
            ? 'Each deletion is recorded in a content-free, hash-chained receipt.'
            : 'No receipt was written: no session was removed.'
        }
        actions={
          <ButtonLink href={backToList} variant="primary">
            Back to sessions
          </ButtonLink>
        }
      />

      {deleted > 0 ? (
        <Alert tone="success" role="status" title="Deletion committed">
          <p>
            {plural(deleted, 'session')} and their messages, search entries and routes are gone.{' '}
            {operationIds.length === 1 ? 'The receipt below proves what was removed.' : null}
          </p>
        </Alert>
      ) : null}

      {receipts.map((result, index) =>
        result.ok ? (
          <ReceiptSummary key={result.value.operationId} receipt={result.value} />
        ) : (
          <ApiErrorAlert
            key={operationIds[index]}
            error={result.error}
            title={`Receipt ${operationIds[index]} could not be loaded`}
          />
        ),
      )}

      <SkippedCard skipped={parseSkipped(params)} />
    </>
  );
}
