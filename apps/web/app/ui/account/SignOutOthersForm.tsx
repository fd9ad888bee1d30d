'use client';

import { useActionState } from 'react';
import { LiveRegion, ResultAlert, SubmitButton } from '@/app/ui/common';
import { endOtherDashboardSessionsAction } from '@/lib/actions/account';
import type { ActionOutcome } from '@/lib/actions/outcome';

const IDLE: ActionOutcome = { status: 'idle' };

/** "Sign out everywhere else": every browser signed in as this user but this one. */
export function SignOutOthersForm({ others }: { others: number }) {
  const [state, formAction] = useActionState(endOtherDashboardSessionsAction, IDLE);
  return (
    <form action={formAction} className="inline-form">
      <SubmitButton variant="secondary" size="sm" pendingLabel="Signing out…" disabled={others === 0}>
        Sign out everywhere else
      </SubmitButton>
      <LiveRegion>{state.status !== 'idle' ? <ResultAlert state={state} /> : null}</LiveRegion>
    </form>
  );
}
