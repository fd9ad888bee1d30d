import { randomUUID } from 'node:crypto';
import type { ReceiptConsumer, ReclaimRequest } from '@statehouse/contracts';
import { Alert, Card, type DescriptionItem, DescriptionList } from '@/app/ui/common';
import { formatNumber } from '@/lib/format';
import { ReclaimConfirmForm } from './ReclaimConfirmForm';

interface ReclaimReviewProps {
  request: ReclaimRequest;
  marks: { floor: number; highWater: number };
  /** `null` when the consumers could not be loaded (the review then cannot name who is overtaken). */
  consumers: ReceiptConsumer[] | null;
}

/** What a reclamation would do with the current cursors, the consumers it would overtake, and the confirmation. */
export function ReclaimReview({ request, marks, consumers }: ReclaimReviewProps) {
  const { throughSequence, mode } = request;
  const { floor, highWater } = marks;
  const upTo = Math.min(throughSequence, highWater);
  const lowest = consumers ? [...consumers].sort((a, b) => a.cursor - b.cursor)[0] : undefined;
  const overtaken = consumers ? consumers.filter((consumer) => consumer.cursor < upTo) : [];
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
