'use client';

import { useActionState } from 'react';
import { Alert, ButtonLink, LiveRegion, ResultAlert, SubmitButton } from '@/app/ui/common';
import { type ReclaimActionState, reclaimAction } from '@/lib/actions/receipts';

interface ReclaimConfirmFormProps {
  throughSequence: number;
  mode: 'safe' | 'force';
  idempotencyKey: string;
}

/** Confirms a reclamation and shows its result: how many went, the new floor, what held it back. */
export function ReclaimConfirmForm({ throughSequence, mode, idempotencyKey }: ReclaimConfirmFormProps) {
  const [state, formAction] = useActionState<ReclaimActionState, FormData>(reclaimAction, { status: 'idle' });
  return (
    <form action={formAction} className="confirm-form" aria-label="Confirm reclamation">
      <input type="hidden" name="throughSequence" value={throughSequence} />
      <input type="hidden" name="mode" value={mode} />
      <input type="hidden" name="idempotencyKey" value={idempotencyKey} />
      <LiveRegion>
        {state.status === 'success' ? (
          <Alert
            tone={state.limitedBy ? 'warning' : 'success'}
            className="action-result"
            title={`Reclaimed ${state.reclaimed} ${state.reclaimed === 1 ? 'receipt' : 'receipts'}`}
            actions={
              <ButtonLink href={`/receipts?after=${state.floor}`} size="sm">
                Replay from the new floor
              </ButtonLink>
            }
          >
            <p data-testid="reclaim-result">
              New floor: <strong>#{state.floor}</strong>.
              {state.limitedBy
                ? ` Held back at #${state.floor} (you asked for #${state.requested}) by consumer “${state.limitedBy}”, which has not acknowledged further.`
                : ''}
            </p>
          </Alert>
        ) : (
          <ResultAlert state={state} />
        )}
      </LiveRegion>
      {state.status === 'success' ? null : (
        <div className="confirm-form__buttons">
          <ButtonLink href="/receipts" variant="ghost">
            Cancel
          </ButtonLink>
          <SubmitButton variant="danger" pendingLabel="Reclaiming…">
            Reclaim through #{throughSequence}
          </SubmitButton>
        </div>
      )}
    </form>
  );
}
