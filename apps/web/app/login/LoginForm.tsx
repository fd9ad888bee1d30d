'use client';

import { useActionState } from 'react';
import { Alert, Field, Input, LiveRegion, SubmitButton } from '@/app/ui/common';
import { type LoginState, loginAction } from './actions';

export function LoginForm({ next }: { next: string }) {
  const [state, formAction] = useActionState<LoginState, FormData>(loginAction, {});
  return (
    <form action={formAction} className="login-form" aria-describedby={state.error ? 'login-error' : undefined}>
      <input type="hidden" name="next" value={next} />
      <LiveRegion>
        {state.error ? (
          <div id="login-error">
            <Alert tone="danger">{state.error}</Alert>
          </div>
        ) : null}
      </LiveRegion>
      <Field label="Username" htmlFor="username">
        <Input
          id="username"
          name="username"
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          required
          maxLength={128}
          defaultValue={state.username}
          autoFocus
        />
      </Field>
      <Field label="Password" htmlFor="password">
        <Input
          id="password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          maxLength={1024}
        />
      </Field>
      <SubmitButton pendingLabel="Signing in…">Sign in</SubmitButton>
    </form>
  );
}
