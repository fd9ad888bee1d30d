'use client';

import { useActionState } from 'react';
import { LiveRegion, ResultAlert, SubmitButton } from '@/app/ui/common';
import { endDashboardSessionAction } from '@/lib/actions/account';
import type { ActionOutcome } from '@/lib/actions/outcome';

const IDLE: ActionOutcome = { status: 'idle' };

/** "Sign out" for one signed-in browser (not this one: that is the header's "Log out"). */
export function SignOutSessionForm({ sessionId, label }: { sessionId: string; label: string }) {
  const [state, formAction] = useActionState(endDashboardSessionAction, IDLE);
  return (
    <form action={formAction} className="inline-form">
      <input type="hidden" name="sessionId" value={sessionId} />
      <SubmitButton variant="secondary" size="sm" pendingLabel="Signing out…" aria-label={`Sign out ${label}`}>
        Sign out
      </SubmitButton>
      <LiveRegion>{state.status === 'error' ? <ResultAlert state={state} /> : null}</LiveRegion>
    </form>
  );
}
