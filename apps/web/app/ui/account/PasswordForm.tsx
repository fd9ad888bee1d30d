'use client';

import { useActionState } from 'react';
import { Field, hintId, Input, LiveRegion, ResultAlert, SubmitButton } from '@/app/ui/common';
import { changePasswordAction } from '@/lib/actions/account';
import type { ActionOutcome } from '@/lib/actions/outcome';
import './account.css';

const IDLE: ActionOutcome = { status: 'idle' };

/** Current password, new password twice; the fields are cleared after a change. */
export function PasswordForm({ username }: { username: string }) {
  const [state, formAction] = useActionState(changePasswordAction, IDLE);
  // A new key after each success empties the fields (the browser may offer to save the new one).
  const formKey = state.status === 'success' ? state.message + Date.now() : 'password';
  return (
    <form action={formAction} className="account-form" aria-label="Change password" key={formKey}>
      {/* Lets password managers pair the new password with the right account. */}
      <input type="text" name="username" autoComplete="username" value={username} readOnly hidden />
      <Field label="Current password" htmlFor="current-password">
        <Input id="current-password" name="currentPassword" type="password" autoComplete="current-password" required />
      </Field>
      <Field label="New password" htmlFor="new-password" hint="At least 8 characters">
        <Input
          id="new-password"
          name="newPassword"
          type="password"
          autoComplete="new-password"
          minLength={8}
          required
          aria-describedby={hintId('new-password')}
        />
      </Field>
      <Field label="Repeat the new password" htmlFor="confirm-password">
        <Input id="confirm-password" name="confirmPassword" type="password" autoComplete="new-password" required />
      </Field>
      <div className="account-form__buttons">
        <SubmitButton pendingLabel="Changing…">Change password</SubmitButton>
      </div>
      <LiveRegion>
        <ResultAlert state={state} />
      </LiveRegion>
    </form>
  );
}
