import type { DeletionReceipt, ReceiptPage } from '@statehouse/contracts';
import Link from 'next/link';
import { Badge, ButtonLink, EmptyState, Pagination, ResultsCard, Table, Timestamp } from '@/app/ui/common';
import { formatNumber, humanize, plural } from '@/lib/format';
import { RECEIPT_PAGE_SIZE, type ReceiptListRaw, receiptHref, receiptListHref } from '@/lib/receipt-list-state';
import './receipts.css';

/** One page of the replay (sequence order, keyset by `after`), with the floor and high-water mark. */
export function ReplayTable({
  page,
  raw,
  filtered,
  after,
}: {
  page: ReceiptPage;
  raw: ReceiptListRaw;
  filtered: boolean;
  after: number;
}) {
  const first = page.items[0];
  const last = page.items.at(-1);
  const limit = Number(raw.limit ?? RECEIPT_PAGE_SIZE);
  const atStart = after <= page.floor;
  const latestAfter = Math.max(page.floor, page.highWater - limit);
  // "From the start" is the floor: below it a replay answers 410.
  const fromStartHref = receiptListHref(raw, { after: page.floor > 0 ? String(page.floor) : null });
  const firstHref = atStart ? null : fromStartHref;
  const nextHref = page.nextCursor ? receiptListHref(raw, { after: page.nextCursor }) : null;
  const lastHref =
    !page.nextCursor && after >= latestAfter ? null : receiptListHref(raw, { after: String(latestAfter) });
  return (
    <ResultsCard
      toolbar={
        <>
          <span>
            {page.items.length > 0 && first && last
              ? `Receipts #${first.sequence}–#${last.sequence}`
              : `No receipts after #${after}`}
            {filtered ? ' (filtered)' : ''}
          </span>
          <span>{plural(page.items.length, 'receipt')} on this page</span>
        </>
      }
      pager={
        firstHref || nextHref || lastHref ? (
          <Pagination
            label="Receipt pages"
            firstHref={firstHref}
            nextHref={nextHref}
            lastHref={lastHref}
            firstLabel="From the start"
            nextLabel="Next page →"
            lastLabel="Latest"
            status={`after #${after} · floor #${page.floor} · high-water #${page.highWater}`}
          />
        ) : null
      }
    >
      {page.items.length === 0 ? (
        <EmptyState
          title={after > 0 ? 'Nothing after this cursor yet' : 'No deletion receipts'}
          description={
            filtered
              ? 'No receipt matches these filters here.'
              : 'Every deletion — by a user, by retention or by maintenance — writes one receipt here.'
          }
          action={after > page.floor ? <ButtonLink href={fromStartHref}>From the start</ButtonLink> : null}
        />
      ) : (
        <Table
          caption="Deletion receipts"
          captionHidden
          className="receipts-table"
          head={['Seq', 'Recorded', 'Origin', 'Profile', 'Sessions', 'Messages', 'Routes', 'Actor', 'Operation']}
          numericColumns={[4, 5, 6]}
          rows={page.items.map(receiptRow)}
        />
      )}
    </ResultsCard>
  );
}

function receiptRow(receipt: DeletionReceipt) {
  return [
    <Link key="seq" href={receiptHref(receipt.operationId)} className="receipts-table__seq">
      #{receipt.sequence}
    </Link>,
    <Timestamp key="at" iso={receipt.createdAt} />,
    <span key="origin" className="receipts-table__origin">
      {humanize(receipt.origin)}
      <Badge tone={receipt.intent === 'explicit_user' ? 'accent' : 'neutral'}>{humanize(receipt.intent)}</Badge>
    </span>,
    receipt.profile,
    formatNumber(receipt.counts.sessions),
    formatNumber(receipt.counts.messages),
    formatNumber(receipt.counts.routes),
    <span key="actor" className="receipts-table__actor" title={`${receipt.actor.kind} ${receipt.actor.id}`}>
      {receipt.actor.kind}
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
