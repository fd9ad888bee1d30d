import { Card, PageHeader, QueryIssuesAlert, Stat, StatStrip } from '@/app/ui/common';
import { ReceiptFilters } from '@/app/ui/receipts/ReceiptFilters';
import { ReceiptsAdmin } from '@/app/ui/receipts/ReceiptsAdmin';
import { ReceiptsLive } from '@/app/ui/receipts/ReceiptsLive';
import { ReplayError } from '@/app/ui/receipts/ReplayError';
import { ReplayTable } from '@/app/ui/receipts/ReplayTable';
import { adminTitle } from '@/lib/admin';
import { listReceiptConsumers, listReceipts, receiptMarks, verifyReceiptChain } from '@/lib/api';
import { attempt } from '@/lib/attempt';
import { formatNumber } from '@/lib/format';
import { firstParam, hrefWith, type RawSearchParams } from '@/lib/paths';
import { parseReceiptListState, receiptListHref } from '@/lib/receipt-list-state';

export const generateMetadata = adminTitle('Deletion receipts');

/**
 * The deletion receipt feed (docs/domain.md §5.3): replay by sequence with keyset paging (`after`), filters,
 * a live indicator fed by the watch stream, and — for administrators — consumers, verification of
 * the hash chain and reclamation.
 */
export default async function ReceiptsPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const params = await searchParams;
  const state = parseReceiptListState(params);
  const { raw } = state;
  const verify = firstParam(params.verify) === '1';
  // Administrators only (receipts/layout.tsx).
  const [page, consumers, verification] = await Promise.all([
    state.ok ? attempt(() => listReceipts(state.query)) : null,
    attempt(listReceiptConsumers),
    verify ? attempt(verifyReceiptChain) : null,
  ]);
  // The marks come with the page; when it failed (a 410 below the floor) they are asked for separately.
  const fallback = page?.ok ? null : await attempt(receiptMarks);
  const marks = page?.ok ? page.value : fallback?.ok ? fallback.value : null;
  const filtered = Boolean(raw.intent || raw.origin || raw.profile);

  return (
    <>
      <PageHeader
        title="Deletion receipts"
        description={
          <>
            A content-free, hash-chained record of every committed deletion
            {raw.profile ? (
              <>
                {' '}
                in profile <strong>{raw.profile}</strong>
              </>
            ) : null}
            , {state.ok && state.query.order === 'oldest' ? 'in sequence order (the replay)' : 'newest first'}.
          </>
        }
        actions={
          marks ? (
            <ReceiptsLive
              streamHref={hrefWith('/receipts/live', {
                after: marks.highWater,
                intent: raw.intent,
                origin: raw.origin,
                profile: raw.profile,
              })}
              newHref={receiptListHref(raw, { after: String(marks.highWater) })}
              renderedHighWater={marks.highWater}
            />
          ) : null
        }
      />

      {marks ? (
        <StatStrip>
          <Stat label="high-water (latest sequence)" value={`#${formatNumber(marks.highWater)}`} />
          <Stat label="floor (reclaimed through)" value={`#${formatNumber(marks.floor)}`} />
          {consumers.ok ? (
            <Stat
              label={consumers.value.length === 1 ? 'registered consumer' : 'registered consumers'}
              value={consumers.value.length}
            />
          ) : null}
        </StatStrip>
      ) : null}

      <Card>
        <ReceiptFilters raw={raw} />
      </Card>

      {!state.ok ? (
        <QueryIssuesAlert
          title="These filters are not valid"
          issues={state.issues}
          reset={{ href: '/receipts', label: 'Reset filters' }}
        />
      ) : page && !page.ok ? (
        <ReplayError error={page.error} raw={raw} />
      ) : page?.ok ? (
        <ReplayTable page={page.value} raw={raw} query={state.query} filtered={filtered} />
      ) : null}

      <ReceiptsAdmin raw={raw} consumers={consumers} verification={verification} marks={marks} />
    </>
  );
}
