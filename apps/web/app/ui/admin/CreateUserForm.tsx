'use client';

import { useActionState } from 'react';
import { Field, hintId, Input, LiveRegion, ResultAlert, SubmitButton } from '@/app/ui/common';
import { createUserAction } from '@/lib/actions/admin';
import type { ActionOutcome } from '@/lib/actions/outcome';
import { ProfileChoices } from './ProfileChoices';
import { RoleSelect } from './RoleSelect';
import './admin.css';

const IDLE: ActionOutcome = { status: 'idle' };

/** A new dashboard user with a first password (they can change it under "Your account"). */
export function CreateUserForm({ profiles }: { profiles: string[] }) {
  const [state, formAction] = useActionState(createUserAction, IDLE);
  return (
    <form
      action={formAction}
      className="admin-form"
      aria-label="Create a user"
      key={state.status === 'success' ? state.message : 'create'}
    >
      <div className="admin-form__row">
        <Field label="Username" htmlFor="new-username">
          <Input
            id="new-username"
            name="username"
            required
            maxLength={64}
            autoComplete="off"
            autoCapitalize="none"
            spellCheck={false}
          />
        </Field>
        <Field label="First password" htmlFor="new-user-password" hint="At least 8 characters">
          <Input
            id="new-user-password"
            name="password"
            type="password"
            required
            minLength={8}
            autoComplete="new-password"
            aria-describedby={hintId('new-user-password')}
          />
        </Field>
        <RoleSelect id="new-user-role" value="member" />
      </div>
      <ProfileChoices idPrefix="new-user-profile" profiles={profiles} value={[]} />
      <div className="admin-form__buttons">
        <SubmitButton pendingLabel="Creating…">Create user</SubmitButton>
      </div>
      <LiveRegion>
        <ResultAlert state={state} />
      </LiveRegion>
    </form>
  );
}
