import {
  DELETION_INTENTS,
  DELETION_ORIGINS,
  type DeletionReceipt,
  type ReceiptConsumer,
  type ReceiptPage,
} from '@statehouse/contracts';
import type { Metadata } from 'next';
import Link from 'next/link';
import {
  Alert,
  Badge,
  ButtonLink,
  Card,
  EmptyState,
  Field,
  Input,
  Pagination,
  Select,
  SubmitButton,
  Table,
} from '@/app/ui/common';
import { ApiErrorAlert } from '@/app/ui/common/ApiErrorAlert';
import { Timestamp } from '@/app/ui/common/Timestamp';
import { ReceiptsLive } from '@/app/ui/receipts/ReceiptsLive';
import {
  ApiProblemError,
  getMe,
  listReceiptConsumers,
  listReceipts,
  receiptMarks,
  verifyReceiptChain,
} from '@/lib/api';
import { type Attempt, attempt } from '@/lib/attempt';
import { formatNumber, humanize, plural } from '@/lib/format';
import { firstParam, hrefWith, type RawSearchParams } from '@/lib/paths';
import {
  parseReceiptListState,
  RECEIPT_PAGE_SIZE,
  type ReceiptListRaw,
  receiptHref,
  receiptListHref,
} from '@/lib/receipt-list-state';

export const metadata: Metadata = { title: 'Deletion receipts' };

/**
 * The deletion receipt feed (SPEC §5.3): replay by sequence with keyset paging (`after`), filters,
 * a live indicator fed by the watch stream, and — for administrators — consumers, verification of
 * the hash chain and reclamation.
 */
export default async function ReceiptsPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const params = await searchParams;
  const state = parseReceiptListState(params);
  const { raw } = state;
  const verify = firstParam(params.verify) === '1';
  const me = await attempt(getMe);
  const admin = me.ok && me.value.role === 'admin';

  const [page, consumers, verification] = await Promise.all([
    state.ok ? attempt(() => listReceipts(state.query)) : null,
    admin ? attempt(listReceiptConsumers) : null,
    admin && verify ? attempt(verifyReceiptChain) : null,
  ]);
  // The marks come with the page; when it failed (a 410 below the floor) they are asked for separately.
  const fallback = page?.ok ? null : await attempt(receiptMarks);
  const marks = page?.ok ? page.value : fallback?.ok ? fallback.value : null;
  const filtered = Boolean(raw.intent || raw.origin || raw.profile);

  return (
    <>
      <div className="page-header">
        <div>
          <h1 className="page-header__title">Deletion receipts</h1>
          <p className="page-header__description">
            A content-free, hash-chained record of every committed deletion
            {raw.profile ? (
              <>
                {' '}
                in profile <strong>{raw.profile}</strong>
              </>
            ) : null}
            , in sequence order.
          </p>
        </div>
        {marks ? (
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
        ) : null}
      </div>

      {marks ? (
        <div className="stat-strip">
          <Stat label="high-water (latest sequence)" value={`#${formatNumber(marks.highWater)}`} />
          <Stat label="floor (reclaimed through)" value={`#${formatNumber(marks.floor)}`} />
          {consumers?.ok ? (
            <Stat
              label={consumers.value.length === 1 ? 'registered consumer' : 'registered consumers'}
              value={formatNumber(consumers.value.length)}
            />
          ) : null}
        </div>
      ) : null}

      <Card>
        <ReceiptFilters raw={raw} />
      </Card>

      {!state.ok ? (
        <Alert
          tone="danger"
          role="alert"
          title="These filters are not valid"
          actions={
            <ButtonLink href="/receipts" size="sm">
              Reset filters
            </ButtonLink>
          }
        >
          <ul>
            {state.issues.map((issue) => (
              <li key={issue}>{issue}</li>
            ))}
          </ul>
        </Alert>
      ) : page && !page.ok ? (
        <ReplayError error={page} raw={raw} />
      ) : page?.ok ? (
        <ReplayTable page={page.value} raw={raw} filtered={filtered} after={state.query.after} />
      ) : null}

      {admin ? (
        <div className="admin-grid">
          <ConsumersCard consumers={consumers} highWater={marks?.highWater ?? null} />
          <div className="admin-grid__column">
            <VerifyCard raw={raw} verification={verification} />
            <ReclaimCard floor={marks?.floor ?? null} highWater={marks?.highWater ?? null} />
          </div>
        </div>
      ) : null}
    </>
  );
}

function Stat({ label, value }: { label: string; value: string }) {
  return (
    <div className="stat">
      <span className="stat__value">{value}</span>
      <span className="stat__label">{label}</span>
    </div>
  );
}

function ReceiptFilters({ raw }: { raw: ReceiptListRaw }) {
  return (
    <search aria-label="Filter receipts">
      <form className="filter-form filter-form--receipts" action="/receipts" method="get">
        {raw.profile ? <input type="hidden" name="profile" value={raw.profile} /> : null}
        {raw.limit ? <input type="hidden" name="limit" value={raw.limit} /> : null}
        <Field label="Intent" htmlFor="filter-intent">
          <Select id="filter-intent" name="intent" defaultValue={raw.intent ?? ''}>
            <option value="">Any intent</option>
            {DELETION_INTENTS.map((intent) => (
              <option key={intent} value={intent}>
                {humanize(intent)}
              </option>
            ))}
          </Select>
        </Field>
        <Field label="Origin" htmlFor="filter-origin">
          <Select id="filter-origin" name="origin" defaultValue={raw.origin ?? ''}>
            <option value="">Any origin</option>
            {DELETION_ORIGINS.map((origin) => (
              <option key={origin} value={origin}>
                {humanize(origin)}
              </option>
            ))}
          </Select>
        </Field>
        <Field label="After sequence" htmlFor="filter-after">
          <Input
            id="filter-after"
            name="after"
            type="number"
            min={0}
            inputMode="numeric"
            placeholder="0 — from the start"
            title="Replay cursor: show receipts after this sequence"
            defaultValue={raw.after}
          />
        </Field>
        <div className="filter-form__buttons filter-form__buttons--end">
          <ButtonLink href={hrefWith('/receipts', { profile: raw.profile })} variant="ghost">
            Reset
          </ButtonLink>
          <SubmitButton>Apply</SubmitButton>
        </div>
      </form>
    </search>
  );
}

function ReplayError({ error, raw }: { error: Extract<Attempt<ReceiptPage>, { ok: false }>; raw: ReceiptListRaw }) {
  const problem = error.error instanceof ApiProblemError ? error.error.problem : null;
  if (problem?.code === 'cursor_expired') {
    const floor = typeof problem.floor === 'number' ? problem.floor : null;
    return (
      <Alert
        tone="warning"
        role="alert"
        title="These receipts were reclaimed (410 cursor expired)"
        actions={
          floor !== null ? (
            <ButtonLink href={receiptListHref(raw, { after: String(floor) })} size="sm" variant="primary">
              Start from the floor (#{floor})
            </ButtonLink>
          ) : null
        }
      >
        <p>
          Receipts up to sequence {floor ?? 'the floor'} were deleted by reclamation, so a replay after #
          {raw.after ?? 0} would silently miss some. Sequences are never reused: start again from the floor.
        </p>
      </Alert>
    );
  }
  return <ApiErrorAlert error={error.error} title="Receipts could not be loaded" />;
}

function ReplayTable({
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
  const firstHref = atStart ? null : receiptListHref(raw, { after: page.floor > 0 ? String(page.floor) : null });
  const nextHref = page.nextCursor ? receiptListHref(raw, { after: page.nextCursor }) : null;
  const lastHref =
    !page.nextCursor && after >= latestAfter ? null : receiptListHref(raw, { after: String(latestAfter) });
  return (
    <Card className="results-card" padded>
      <div className="results-toolbar">
        <span>
          {page.items.length > 0 && first && last
            ? `Receipts #${first.sequence}–#${last.sequence}`
            : `No receipts after #${after}`}
          {filtered ? ' (filtered)' : ''}
        </span>
        <span>{plural(page.items.length, 'receipt')} on this page</span>
      </div>
      {page.items.length === 0 ? (
        <EmptyState
          title={after > 0 ? 'Nothing after this cursor yet' : 'No deletion receipts'}
          description={
            filtered
              ? 'No receipt matches these filters here.'
              : 'Every deletion — by a user, by retention or by maintenance — writes one receipt here.'
          }
          action={
            after > page.floor ? (
              <ButtonLink href={receiptListHref(raw, { after: page.floor > 0 ? String(page.floor) : null })}>
                From the start
              </ButtonLink>
            ) : null
          }
        />
      ) : (
        <Table
          caption="Deletion receipts"
          captionHidden
          className="receipts-table"
          head={['Seq', 'Recorded', 'Origin', 'Profile', 'Sessions', 'Messages', 'Routes', 'Actor', 'Operation']}
          numericColumns={[4, 5, 6]}
          rows={page.items.map((receipt) => receiptRow(receipt))}
        />
      )}
      {firstHref || nextHref || lastHref ? (
        <div className="results-footer">
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
        </div>
      ) : null}
    </Card>
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

function ConsumersCard({
  consumers,
  highWater,
}: {
  consumers: Attempt<ReceiptConsumer[]> | null;
  highWater: number | null;
}) {
  return (
    <Card
      title="Consumers"
      description="Plugins and services that replay the feed, with the cursor each has acknowledged. Safe reclamation never passes the lowest one."
    >
      {!consumers ? null : !consumers.ok ? (
        <ApiErrorAlert error={consumers.error} title="Consumers could not be loaded" />
      ) : consumers.value.length === 0 ? (
        <p className="card-note">
          No consumer has acknowledged a cursor yet (<code>PUT /v1/receipt-consumers/:name</code>).
        </p>
      ) : (
        <Table
          caption="Receipt consumers"
          captionHidden
          head={['Consumer', 'Cursor', 'Behind', 'Principal', 'Acknowledged']}
          numericColumns={[1, 2]}
          rows={[...consumers.value]
            .sort((a, b) => a.cursor - b.cursor)
            .map((consumer) => [
              <code key="name">{consumer.name}</code>,
              `#${formatNumber(consumer.cursor)}`,
              highWater === null ? '—' : formatNumber(Math.max(0, highWater - consumer.cursor)),
              <span key="principal" className="text-muted">
                {consumer.principal}
              </span>,
              <Timestamp key="at" iso={consumer.updatedAt} />,
            ])}
        />
      )}
    </Card>
  );
}

function VerifyCard({
  raw,
  verification,
}: {
  raw: ReceiptListRaw;
  verification: Attempt<{ ok: boolean; checked: number; firstBadSequence?: number }> | null;
}) {
  return (
    <Card title="Chain verification" description="Recomputes every receipt's hash from its predecessor.">
      <form action="/receipts" method="get" className="inline-form">
        {Object.entries(raw).map(([key, value]) => (
          <input key={key} type="hidden" name={key} value={value} />
        ))}
        <input type="hidden" name="verify" value="1" />
        <SubmitButton variant="secondary" pendingLabel="Verifying…">
          Verify chain
        </SubmitButton>
      </form>
      {verification ? (
        <div className="card-result" data-testid="verify-result">
          {!verification.ok ? (
            <ApiErrorAlert error={verification.error} title="Verification failed to run" />
          ) : verification.value.ok ? (
            <Alert tone="success" role="status" title="Chain intact">
              <p>{plural(verification.value.checked, 'receipt')} checked; every hash matches.</p>
            </Alert>
          ) : (
            <Alert tone="danger" role="alert" title="Chain broken">
              <p>
                The hash of receipt #{verification.value.firstBadSequence ?? '?'} does not match (
                {plural(verification.value.checked, 'receipt')} checked). A receipt was altered or removed outside
                reclamation.
              </p>
            </Alert>
          )}
        </div>
      ) : null}
    </Card>
  );
}

function ReclaimCard({ floor, highWater }: { floor: number | null; highWater: number | null }) {
  return (
    <Card
      title="Reclaim"
      description="Delete old receipts through a sequence. Sequences are never reused; replays below the new floor answer 410."
    >
      <form action="/receipts/reclaim" method="get" className="reclaim-form">
        <Field label="Through sequence" htmlFor="reclaim-through">
          <Input
            id="reclaim-through"
            name="through"
            type="number"
            min={floor ?? 0}
            max={highWater ?? undefined}
            required
            inputMode="numeric"
            defaultValue={floor !== null && highWater !== null && highWater > floor ? String(floor + 1) : undefined}
          />
        </Field>
        <Field label="Mode" htmlFor="reclaim-mode">
          <Select id="reclaim-mode" name="mode" defaultValue="safe">
            <option value="safe">Safe (respect consumers)</option>
            <option value="force">Force (ignore consumers)</option>
          </Select>
        </Field>
        <SubmitButton variant="secondary">Review…</SubmitButton>
      </form>
    </Card>
  );
}
