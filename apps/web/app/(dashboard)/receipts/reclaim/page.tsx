import { randomUUID } from 'node:crypto';
import { ReclaimRequestSchema } from '@statehouse/contracts';
import type { Metadata } from 'next';
import {
  Alert,
  ApiErrorAlert,
  ButtonLink,
  Card,
  type DescriptionItem,
  DescriptionList,
  PageHeader,
} from '@/app/ui/common';
import { ReclaimConfirmForm } from '@/app/ui/receipts/ReclaimConfirmForm';
import { listReceiptConsumers, receiptMarks } from '@/lib/api';
import { attempt } from '@/lib/attempt';
import { formatNumber } from '@/lib/format';
import { firstParam, type RawSearchParams } from '@/lib/paths';

export const metadata: Metadata = { title: 'Reclaim receipts' };

/** Reviews a reclamation before it runs: the range, the mode, and which consumers it would overtake. */
export default async function ReclaimPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const params = await searchParams;
  const request = ReclaimRequestSchema.safeParse({
    throughSequence: Number(firstParam(params.through)),
    mode: firstParam(params.mode) ?? 'safe',
  });
  const [marks, consumers] = await Promise.all([attempt(receiptMarks), attempt(listReceiptConsumers)]);

  const header = (
    <PageHeader
      breadcrumbs={[{ href: '/receipts', label: 'Receipts' }, { label: 'Reclaim' }]}
      title="Reclaim receipts"
      description="Permanently delete old receipts to bound the feed’s size."
    />
  );
  if (!request.success || !Number.isInteger(request.data.throughSequence)) {
    return (
      <>
        {header}
        <Alert
          tone="danger"
          role="alert"
          title="Choose a sequence to reclaim through"
          actions={<ButtonLink href="/receipts">Back to receipts</ButtonLink>}
        >
          <p>Give a whole sequence number (0 or more) and a mode, safe or force.</p>
        </Alert>
      </>
    );
  }
  if (!marks.ok) {
    return (
      <>
        {header}
        <ApiErrorAlert error={marks.error} />
      </>
    );
  }

  const { throughSequence, mode } = request.data;
  const { floor, highWater } = marks.value;
  const upTo = Math.min(throughSequence, highWater);
  const lowest = consumers.ok ? [...consumers.value].sort((a, b) => a.cursor - b.cursor)[0] : undefined;
  const overtaken = consumers.ok ? consumers.value.filter((consumer) => consumer.cursor < upTo) : [];
  const effective = mode === 'safe' && lowest ? Math.min(upTo, Math.max(floor, lowest.cursor)) : upTo;
  const items: DescriptionItem[] = [
    { term: 'Current floor', detail: `#${formatNumber(floor)}` },
    { term: 'High-water', detail: `#${formatNumber(highWater)}` },
    { term: 'Requested', detail: `through #${formatNumber(throughSequence)}` },
    {
      term: 'Mode',
      detail: mode === 'safe' ? 'Safe: never past the lowest acknowledged consumer cursor' : 'Force: ignores consumers',
    },
    {
      term: 'Expected new floor',
      detail: `#${formatNumber(Math.max(floor, effective))}`,
      hint: 'The API decides; this is what the current cursors imply',
    },
  ];

  return (
    <>
      {header}
      <Card title="Review">
        <DescriptionList items={items} />
      </Card>
      {throughSequence <= floor ? (
        <Alert tone="info" title="Nothing to reclaim">
          <p>Everything through #{floor} is already reclaimed.</p>
        </Alert>
      ) : null}
      {mode === 'force' && overtaken.length > 0 ? (
        <Alert tone="warning" role="alert" title="Consumers will miss receipts">
          <p>
            {overtaken.map((consumer) => `${consumer.name} (at #${consumer.cursor})`).join(', ')}{' '}
            {overtaken.length === 1 ? 'has' : 'have'} not acknowledged this far. Their next replay answers 410
            cursor_expired and they must resynchronise.
          </p>
        </Alert>
      ) : null}
      {mode === 'safe' && lowest && lowest.cursor < upTo ? (
        <Alert tone="info" title="Safe mode will stop early">
          <p>
            Consumer “{lowest.name}” has acknowledged only through #{lowest.cursor}, so reclamation stops there.
          </p>
        </Alert>
      ) : null}
      <Card title="Confirm" className="confirm-card">
        <p className="preview-note">
          Receipts with a sequence up to the new floor are deleted permanently. Sequences are never reused; a replay or
          watch from below the floor answers 410 (cursor expired) instead of skipping silently.
        </p>
        <ReclaimConfirmForm throughSequence={throughSequence} mode={mode} idempotencyKey={randomUUID()} />
      </Card>
    </>
  );
}
