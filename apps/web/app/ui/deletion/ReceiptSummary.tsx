import { type DeletionReceipt, IDENTITY_ROLES } from '@statehouse/contracts';
import { ButtonLink, Card, type DescriptionItem, DescriptionList } from '@/app/ui/common';
import { Timestamp } from '@/app/ui/common/Timestamp';
import { formatNumber, humanize } from '@/lib/format';
import { receiptHref } from '@/lib/receipt-list-state';
import { RoleBadge } from './RoleBadge';

/** A receipt at a glance: its place in the chain, operation id, counts and who was removed by role. */
export function ReceiptSummary({ receipt }: { receipt: DeletionReceipt }) {
  const roles = IDENTITY_ROLES.map((role) => ({
    role,
    count: receipt.identities.filter((identity) => identity.role === role).length,
  })).filter((entry) => entry.count > 0);
  const items: DescriptionItem[] = [
    {
      term: 'Operation id',
      detail: <code data-testid="receipt-operation-id">{receipt.operationId}</code>,
    },
    { term: 'Recorded', detail: <Timestamp iso={receipt.createdAt} relative={false} /> },
    { term: 'Origin', detail: `${humanize(receipt.origin)} · ${humanize(receipt.intent)}` },
    { term: 'Profile', detail: receipt.profile },
    {
      term: 'Removed',
      detail: (
        <span className="role-counts">
          {roles.map((entry) => (
            <span key={entry.role}>
              {entry.count} <RoleBadge role={entry.role} />
            </span>
          ))}
        </span>
      ),
    },
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
      <div className="stat-strip stat-strip--compact">
        <div className="stat">
          <span className="stat__value">{formatNumber(receipt.counts.sessions)}</span>
          <span className="stat__label">sessions</span>
        </div>
        <div className="stat">
          <span className="stat__value">{formatNumber(receipt.counts.messages)}</span>
          <span className="stat__label">messages</span>
        </div>
        <div className="stat">
          <span className="stat__value">{formatNumber(receipt.counts.routes)}</span>
          <span className="stat__label">routes</span>
        </div>
      </div>
      <DescriptionList items={items} />
    </Card>
  );
}
