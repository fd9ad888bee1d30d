'use client';

import { useActionState } from 'react';
import { Alert, CopyButton, Field, Input, LiveRegion, ResultAlert, SubmitButton } from '@/app/ui/common';
import { createTokenAction, type TokenActionState } from '@/lib/actions/admin';
import { ProfileChoices } from './ProfileChoices';
import { RoleSelect } from './RoleSelect';
import './admin.css';

const IDLE: TokenActionState = { status: 'idle' };

/** A new API token for an agent runtime or gateway; its secret is shown once, here, with a copy button. */
export function CreateTokenForm({ profiles }: { profiles: string[] }) {
  const [state, formAction] = useActionState(createTokenAction, IDLE);
  return (
    <form action={formAction} className="admin-form" aria-label="Create an API token">
      <div className="admin-form__row">
        <Field label="Token name" htmlFor="new-token-name">
          <Input id="new-token-name" name="name" required maxLength={128} placeholder="e.g. telegram-gateway" />
        </Field>
        <RoleSelect id="new-token-role" value="member" />
      </div>
      <ProfileChoices idPrefix="new-token-profile" profiles={profiles} value="*" />
      <div className="admin-form__buttons">
        <SubmitButton pendingLabel="Creating…">Create token</SubmitButton>
      </div>
      <LiveRegion>
        {state.status === 'created' ? (
          <Alert tone="success" className="action-result" title={state.message}>
            <div className="token-secret">
              <label className="visually-hidden" htmlFor="new-token-secret">
                Secret of {state.name}
              </label>
              <Input
                id="new-token-secret"
                className="token-secret__value"
                value={state.secret}
                readOnly
                spellCheck={false}
                data-testid="new-token-secret"
                onFocus={(event) => event.currentTarget.select()}
              />
              <CopyButton value={state.secret} label="Copy token" />
            </div>
            <p>
              Agents send it as <code>Authorization: Bearer …</code>. Only its hash is stored.
            </p>
          </Alert>
        ) : (
          <ResultAlert state={state} />
        )}
      </LiveRegion>
    </form>
  );
}
