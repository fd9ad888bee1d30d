import type { VerifyResponse } from '@statehouse/contracts';
import { Alert, ApiErrorAlert, Card, HiddenFields, SubmitButton } from '@/app/ui/common';
import type { Attempt } from '@/lib/attempt';
import { plural } from '@/lib/format';
import type { ReceiptListRaw } from '@/lib/receipt-list-state';
import './receipts.css';

/** Verifies the hash chain on request (`?verify=1`, a GET: the page's filters are kept). */
export function VerifyCard({
  raw,
  verification,
}: {
  raw: ReceiptListRaw;
  verification: Attempt<VerifyResponse> | null;
}) {
  return (
    <Card title="Chain verification" description="Recomputes every receipt's hash from its predecessor.">
      <form action="/receipts" method="get" className="inline-form">
        <HiddenFields values={{ ...raw, verify: '1' }} />
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
