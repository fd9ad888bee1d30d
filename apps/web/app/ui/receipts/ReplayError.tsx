import { Alert, ApiErrorAlert, ButtonLink } from '@/app/ui/common';
import type { ApiFailure } from '@/lib/attempt';
import { type ReceiptListRaw, receiptListHref } from '@/lib/receipt-list-state';

/** A replay that failed; below the floor (410 cursor_expired) it offers to start from the floor. */
export function ReplayError({ error, raw }: { error: ApiFailure; raw: ReceiptListRaw }) {
  const problem = 'problem' in error ? error.problem : null;
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
  return <ApiErrorAlert error={error} title="Receipts could not be loaded" />;
}
