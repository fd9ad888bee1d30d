import type { DeletionReceipt, ReceiptListQuery, ReceiptPage } from '@statehouse/contracts';
import Link from 'next/link';
import { Badge, EmptyState, Pagination, ResultsCard, SegmentedNav, Table, Timestamp } from '@/app/ui/common';
import { type ActorNames, actorLabel, loadActorNames } from '@/lib/actors';
import { formatNumber, plural } from '@/lib/format';
import { type ReceiptListRaw, receiptHref, receiptOrderHref, receiptPager } from '@/lib/receipt-list-state';
import './receipts.css';
import { intentLabel, originLabel } from '@/lib/wording';

interface ReplayTableProps {
  page: ReceiptPage;
  raw: ReceiptListRaw;
  query: ReceiptListQuery;
  filtered: boolean;
}

/** One page of receipts, newest first or in replay order, with the floor and high-water mark. */
export async function ReplayTable({ page, raw, query, filtered }: ReplayTableProps) {
  const actors = await loadActorNames();
  const newest = query.order === 'newest';
  const pager = receiptPager(raw, query, page);
  const [first, last] = [page.items[0], page.items.at(-1)];
  return (
    <ResultsCard
      toolbar={
        <>
          <span>
            {first && last ? `Receipts #${first.sequence}–#${last.sequence}` : 'No receipts here'}
            {filtered ? ' (filtered)' : ''} · {plural(page.items.length, 'receipt')} on this page
          </span>
          <SegmentedNav
            label="Order"
            options={[
              { href: receiptOrderHref(raw, 'newest'), label: 'Newest first', current: newest },
              { href: receiptOrderHref(raw, 'oldest'), label: 'Oldest first (replay)', current: !newest },
            ]}
          />
        </>
      }
      pager={
        pager.first || pager.next || pager.last ? (
          <Pagination
            label="Receipt pages"
            firstHref={pager.first}
            nextHref={pager.next}
            lastHref={newest ? undefined : pager.last}
            firstLabel={pager.firstLabel}
            nextLabel={pager.nextLabel}
            lastLabel={pager.lastLabel}
            status={pager.status}
          />
        ) : null
      }
    >
      {page.items.length === 0 ? (
        <EmptyState
          title={newest || query.after === 0 ? 'No deletion receipts' : 'Nothing after this cursor yet'}
          description={
            filtered
              ? 'No receipt matches these filters here.'
              : 'Every deletion — by a user, by retention or by maintenance — writes one receipt here.'
          }
        />
      ) : (
        <Table
          caption={newest ? 'Deletion receipts, newest first' : 'Deletion receipts in sequence order'}
          captionHidden
          className="receipts-table"
          head={['Seq', 'Recorded', 'Origin', 'Profile', 'Sessions', 'Messages', 'Routes', 'Actor', 'Operation']}
          numericColumns={[4, 5, 6]}
          rows={page.items.map((receipt) => receiptRow(receipt, actors))}
        />
      )}
    </ResultsCard>
  );
}

function receiptRow(receipt: DeletionReceipt, actors: ActorNames) {
  return [
    <Link key="seq" href={receiptHref(receipt.operationId)} className="receipts-table__seq">
      #{receipt.sequence}
    </Link>,
    <Timestamp key="at" iso={receipt.createdAt} />,
    <span key="origin" className="receipts-table__origin">
      <span title={receipt.origin}>{originLabel(receipt.origin)}</span>
      <Badge tone={receipt.intent === 'explicit_user' ? 'accent' : 'neutral'} title={receipt.intent}>
        {intentLabel(receipt.intent)}
      </Badge>
    </span>,
    receipt.profile,
    formatNumber(receipt.counts.sessions),
    formatNumber(receipt.counts.messages),
    formatNumber(receipt.counts.routes),
    <span key="actor" className="receipts-table__actor" title={`${receipt.actor.kind} ${receipt.actor.id}`}>
      {actorLabel(receipt.actor.kind, receipt.actor.id, actors)}
    </span>,
    <Link
      key="op"
      href={receiptHref(receipt.operationId)}
      className="receipts-table__op"
      data-operation-id={receipt.operationId}
    >
      <code>{receipt.operationId}</code>
    </Link>,
  ];
}
