import type { Metadata } from 'next';
import {
  ApiErrorAlert,
  Breadcrumbs,
  ButtonLink,
  Card,
  EmptyState,
  PageHeader,
  Stat,
  StatStrip,
  Timestamp,
} from '@/app/ui/common';
import { ReceiptDetail } from '@/app/ui/receipts/ReceiptDetail';
import { ApiProblemError, getReceipt } from '@/lib/api';
import { attempt } from '@/lib/attempt';
import { humanize } from '@/lib/format';
import { decodeParam } from '@/lib/params';
import { receiptListHref } from '@/lib/receipt-list-state';

interface ReceiptPageProps {
  params: Promise<{ operationId: string }>;
}

export async function generateMetadata({ params }: ReceiptPageProps): Promise<Metadata> {
  return { title: `Receipt ${decodeParam((await params).operationId)}` };
}

const receiptCrumbs = (label: string) => [{ href: '/receipts', label: 'Receipts' }, { label }];

/** One receipt: what was removed (identities and their roles), by whom, and its place in the chain. */
export default async function ReceiptDetailPage({ params }: ReceiptPageProps) {
  const operationId = decodeParam((await params).operationId);
  const result = /^[A-Za-z0-9._:-]{1,128}$/.test(operationId) ? await attempt(() => getReceipt(operationId)) : null;

  if (!result || (!result.ok && result.error instanceof ApiProblemError && result.error.status === 404)) {
    return (
      <>
        <Breadcrumbs items={receiptCrumbs(operationId)} />
        <Card>
          <EmptyState
            title="Receipt not found"
            description="No receipt has this operation id: it may have been reclaimed, or it belongs to a profile you cannot see."
            action={<ButtonLink href="/receipts">All receipts</ButtonLink>}
          />
        </Card>
      </>
    );
  }
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
            {humanize(receipt.origin)} in profile <strong>{receipt.profile}</strong>,{' '}
            <Timestamp iso={receipt.createdAt} />.
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
