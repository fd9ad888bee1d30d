import type { Metadata } from 'next';
import Link from 'next/link';
import { Alert, Badge, ButtonLink, Card } from '@/app/ui/common';
import { ApiErrorAlert } from '@/app/ui/common/ApiErrorAlert';
import { ReceiptSummary } from '@/app/ui/deletion/ReceiptSummary';
import { getReceipt } from '@/lib/api';
import { attempt } from '@/lib/attempt';
import { backFrom, idsFrom, parseSkipped, SKIP_REASON_LABELS } from '@/lib/deletion';
import { humanize, plural } from '@/lib/format';
import { firstParam, type RawSearchParams } from '@/lib/paths';

export const metadata: Metadata = { title: 'Deleted' };

/**
 * After a confirmed deletion: the receipt(s) it wrote (sequence, operation id, counts) and what was
 * skipped and why. Everything comes from the URL and the receipts themselves, so a reload is safe.
 */
export default async function DeletionDonePage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const params = await searchParams;
  const operationIds = idsFrom(params, 'receipt').slice(0, 20);
  const skipped = parseSkipped(params);
  const deleted = Number(firstParam(params.deleted) ?? 0) || 0;
  const back = backFrom(params);
  const receipts = await Promise.all(operationIds.map((id) => attempt(() => getReceipt(id))));
  // Where the list was: a deleted session's own page would now be a 404.
  const backToList = back.startsWith('/sessions/') ? '/sessions' : back;

  return (
    <>
      <div>
        <nav aria-label="Breadcrumb">
          <ol className="breadcrumbs">
            <li>
              <Link href="/sessions">Sessions</Link>
            </li>
            <li aria-current="page">Deleted</li>
          </ol>
        </nav>
        <div className="page-header">
          <div>
            <h1 className="page-header__title">
              {deleted > 0 ? `Deleted ${plural(deleted, 'session')}` : 'Nothing was deleted'}
            </h1>
            <p className="page-header__description">
              {operationIds.length > 0
                ? 'Each deletion is recorded in a content-free, hash-chained receipt.'
                : 'No receipt was written: no session was removed.'}
            </p>
          </div>
          <div className="page-header__actions">
            <ButtonLink href={backToList} variant="primary">
              Back to sessions
            </ButtonLink>
          </div>
        </div>
      </div>

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

      {skipped.length > 0 ? (
        <Card title="Skipped" description="These were not deleted.">
          <ul className="preview-list" aria-label="Skipped sessions">
            {skipped.map((skip) => (
              <li key={skip.id} className="preview-row" data-session-id={skip.id} data-skip-reason={skip.reason}>
                <div className="preview-row__main">
                  <code className="preview-row__title">{skip.id}</code>
                </div>
                <div className="preview-row__side">
                  <Badge tone="warning">{SKIP_REASON_LABELS[skip.reason] ?? humanize(skip.reason)}</Badge>
                </div>
              </li>
            ))}
          </ul>
        </Card>
      ) : null}
    </>
  );
}
