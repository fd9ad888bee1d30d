import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { cache } from 'react';
import { ApiErrorAlert, Breadcrumbs, ButtonLink, PageHeader, Stat, StatStrip, Timestamp } from '@/app/ui/common';
import { ReceiptDetail } from '@/app/ui/receipts/ReceiptDetail';
import { getMe, getReceipt } from '@/lib/api';
import { attempt, isMissing } from '@/lib/attempt';
import { decodeParam } from '@/lib/params';
import { receiptListHref } from '@/lib/receipt-list-state';
import { originLabel } from '@/lib/wording';

interface ReceiptPageProps {
  params: Promise<{ operationId: string }>;
}

const OPERATION_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** One fetch per request for the title and the page; `null` for an id no receipt can have. */
const loadReceipt = cache((operationId: string) =>
  OPERATION_ID.test(operationId) ? attempt(() => getReceipt(operationId)) : Promise.resolve(null),
);

export async function generateMetadata({ params }: ReceiptPageProps): Promise<Metadata> {
  const me = await attempt(getMe);
  if (!me.ok || me.value.role !== 'admin') return { title: 'Not found' };
  const result = await loadReceipt(decodeParam((await params).operationId));
  if (!result || isMissing(result)) return { title: 'Receipt not found' };
  return { title: result.ok ? `Receipt #${result.value.sequence}` : 'Receipt' };
}

const receiptCrumbs = (label: string) => [{ href: '/receipts', label: 'Receipts' }, { label }];

/** One receipt: what was removed (identities and their roles), by whom, and its place in the chain. */
export default async function ReceiptDetailPage({ params }: ReceiptPageProps) {
  const operationId = decodeParam((await params).operationId);
  const result = await loadReceipt(operationId);

  if (!result || isMissing(result)) notFound();
  if (!result.ok) {
    return (
      <>
        <Breadcrumbs items={receiptCrumbs(operationId)} />
        <ApiErrorAlert error={result.error} title="This receipt could not be loaded" />
      </>
    );
  }

  const receipt = result.value;
  return (
    <>
      <PageHeader
        breadcrumbs={receiptCrumbs(`#${receipt.sequence}`)}
        title={`Receipt #${receipt.sequence}`}
        description={
          <>
            <span title={receipt.origin}>{originLabel(receipt.origin)}</span> in profile{' '}
            <strong>{receipt.profile}</strong>, <Timestamp iso={receipt.createdAt} />.
          </>
        }
        actions={
          <ButtonLink href={receiptListHref({}, { after: String(Math.max(0, receipt.sequence - 1)) })} size="sm">
            Replay from here
          </ButtonLink>
        }
      />

      <StatStrip>
        <Stat label="sessions removed" value={receipt.counts.sessions} />
        <Stat label="messages removed" value={receipt.counts.messages} />
        <Stat label="routes removed" value={receipt.counts.routes} />
      </StatStrip>

      <ReceiptDetail receipt={receipt} />
    </>
  );
}
