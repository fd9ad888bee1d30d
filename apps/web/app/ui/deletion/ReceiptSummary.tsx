import type { DeletionReceipt } from '@statehouse/contracts';
import { ButtonLink, Card, type DescriptionItem, DescriptionList, Stat, StatStrip, Timestamp } from '@/app/ui/common';
import { receiptHref } from '@/lib/receipt-list-state';
import { RoleCounts } from './RoleCounts';
import './deletion.css';
import { intentLabel, originLabel } from '@/lib/wording';

/** A receipt at a glance: its place in the chain, operation id, counts and who was removed by role. */
export function ReceiptSummary({ receipt }: { receipt: DeletionReceipt }) {
  const items: DescriptionItem[] = [
    {
      term: 'Operation id',
      detail: <code data-testid="receipt-operation-id">{receipt.operationId}</code>,
    },
    { term: 'Recorded', detail: <Timestamp iso={receipt.createdAt} relative={false} /> },
    {
      term: 'Origin',
      detail: (
        <span
          title={`${receipt.origin} · ${receipt.intent}`}
        >{`${originLabel(receipt.origin)} · ${intentLabel(receipt.intent)}`}</span>
      ),
    },
    { term: 'Profile', detail: receipt.profile },
    { term: 'Removed', detail: <RoleCounts identities={receipt.identities} /> },
  ];
  return (
    <Card
      title={
        <>
          Receipt <span data-testid="receipt-sequence">#{receipt.sequence}</span>
        </>
      }
      description="Content-free: ids, routing identity and roles only."
      actions={
        <ButtonLink href={receiptHref(receipt.operationId)} size="sm">
          Open receipt
        </ButtonLink>
      }
      className="receipt-summary"
    >
      <StatStrip compact>
        <Stat label="sessions" value={receipt.counts.sessions} />
        <Stat label="messages" value={receipt.counts.messages} />
        <Stat label="routes" value={receipt.counts.routes} />
        {receipt.counts.deliveries ? <Stat label="undelivered replies" value={receipt.counts.deliveries} /> : null}
        {receipt.counts.delegations ? (
          <Stat label="sub-agent results undelivered" value={receipt.counts.delegations} />
        ) : null}
      </StatStrip>
      <DescriptionList items={items} />
    </Card>
  );
}
