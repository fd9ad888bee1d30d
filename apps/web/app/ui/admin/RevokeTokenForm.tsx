'use client';

import { useActionState } from 'react';
import { LiveRegion, ResultAlert, SubmitButton } from '@/app/ui/common';
import { revokeTokenAction } from '@/lib/actions/admin';
import type { ActionOutcome } from '@/lib/actions/outcome';
import './admin.css';

const IDLE: ActionOutcome = { status: 'idle' };

/** Revoking is final: a disclosure asks once more before the button that does it. */
export function RevokeTokenForm({ tokenId, name }: { tokenId: string; name: string }) {
  const [state, formAction] = useActionState(revokeTokenAction, IDLE);
  return (
    <details className="revoke">
      <summary className="revoke__summary">Revoke…</summary>
      <form action={formAction} className="revoke__form">
        <input type="hidden" name="tokenId" value={tokenId} />
        <input type="hidden" name="name" value={name} />
        <p>Agents using “{name}” will be refused from now on.</p>
        <SubmitButton variant="danger" size="sm" pendingLabel="Revoking…">
          Revoke {name}
        </SubmitButton>
        <LiveRegion>
          <ResultAlert state={state} />
        </LiveRegion>
      </form>
    </details>
  );
}
