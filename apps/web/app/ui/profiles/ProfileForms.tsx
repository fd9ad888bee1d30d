'use client';

import { type ReactNode, useActionState } from 'react';
import { ButtonLink, Field, hintId, Input, LiveRegion, ResultAlert, SubmitButton } from '@/app/ui/common';
import {
  createProfileAction,
  deleteProfileAction,
  type ProfileActionState,
  renameProfileAction,
  retentionAction,
} from '@/lib/actions/profiles';
import './profiles.css';

const IDLE: ProfileActionState = { status: 'idle' };

function Result({ state }: { state: ProfileActionState }) {
  return (
    <LiveRegion className="manage-form__result">
      <ResultAlert state={state} />
    </LiveRegion>
  );
}

const submittedValue = (state: ProfileActionState, fallback: string) =>
  state.status === 'error' && state.submitted !== undefined ? state.submitted : fallback;

export function CreateProfileForm() {
  const [state, formAction] = useActionState(createProfileAction, IDLE);
  const invalid = state.status === 'error' && state.field === 'name';
  return (
    <form action={formAction} className="create-profile-form" aria-label="Create a profile">
      <div className="create-profile-form__row">
        <Field label="New profile" htmlFor="new-profile" hint="Lowercase letters, digits, - and _">
          <Input
            id="new-profile"
            name="name"
            required
            maxLength={64}
            pattern="[a-z0-9][a-z0-9_\-]{0,63}"
            placeholder="e.g. billing-bot"
            autoCapitalize="none"
            spellCheck={false}
            defaultValue={submittedValue(state, '')}
            key={state.status === 'success' ? state.message : 'create'}
            aria-invalid={invalid || undefined}
            aria-describedby={hintId('new-profile')}
          />
        </Field>
        <SubmitButton pendingLabel="Creating…">Create profile</SubmitButton>
      </div>
      <Result state={state} />
    </form>
  );
}

export function RetentionForm({ profile, retentionDays }: { profile: string; retentionDays: number | null }) {
  const [state, formAction] = useActionState(retentionAction, IDLE);
  const invalid = state.status === 'error' && state.field === 'retentionDays';
  return (
    <form action={formAction} className="retention-form" aria-label={`Retention of ${profile}`}>
      <input type="hidden" name="profile" value={profile} />
      <div className="retention-form__row">
        <Field
          label="Keep ended sessions for (days)"
          htmlFor="retention-days"
          hint="Empty keeps them until deleted. Pinned sessions are never pruned."
        >
          <Input
            id="retention-days"
            name="retentionDays"
            type="number"
            min={0}
            max={36500}
            inputMode="numeric"
            placeholder="Forever"
            defaultValue={submittedValue(state, retentionDays === null ? '' : String(retentionDays))}
            key={String(retentionDays)}
            aria-invalid={invalid || undefined}
            aria-describedby={hintId('retention-days')}
          />
        </Field>
        <SubmitButton variant="secondary" pendingLabel="Saving…">
          Save
        </SubmitButton>
      </div>
      <Result state={state} />
    </form>
  );
}

interface RenameConfirmFormProps {
  name: string;
  newName: string;
  idempotencyKey: string;
  cancelHref: string;
}

export function RenameConfirmForm({ name, newName, idempotencyKey, cancelHref }: RenameConfirmFormProps) {
  const [state, formAction] = useActionState(renameProfileAction, IDLE);
  return (
    <form action={formAction} className="confirm-form" aria-label="Confirm rename">
      <input type="hidden" name="name" value={name} />
      <input type="hidden" name="newName" value={newName} />
      <input type="hidden" name="idempotencyKey" value={idempotencyKey} />
      <Result state={state} />
      <div className="confirm-form__buttons">
        <ButtonLink href={cancelHref} variant="ghost">
          Cancel
        </ButtonLink>
        <SubmitButton pendingLabel="Renaming…">
          Rename {name} to {newName}
        </SubmitButton>
      </div>
    </form>
  );
}

interface DeleteProfileFormProps {
  name: string;
  idempotencyKey: string;
  /** The two choices, each with what its dry run said. */
  keepOption: ReactNode;
  deleteOption: ReactNode;
}

export function DeleteProfileForm({ name, idempotencyKey, keepOption, deleteOption }: DeleteProfileFormProps) {
  const [state, formAction] = useActionState(deleteProfileAction, IDLE);
  const invalid = state.status === 'error' && state.field === 'confirmName';
  return (
    <form action={formAction} className="confirm-form" aria-label={`Delete profile ${name}`}>
      <input type="hidden" name="name" value={name} />
      <input type="hidden" name="idempotencyKey" value={idempotencyKey} />
      <fieldset className="choice-group">
        <legend className="field__label">Sessions of this profile</legend>
        <label className="choice">
          <input type="radio" name="deleteSessions" value="false" defaultChecked />
          <span className="choice__body">{keepOption}</span>
        </label>
        <label className="choice choice--danger">
          <input type="radio" name="deleteSessions" value="true" />
          <span className="choice__body">{deleteOption}</span>
        </label>
      </fieldset>
      <Field label={`Type “${name}” to confirm`} htmlFor="confirm-name">
        <Input
          id="confirm-name"
          name="confirmName"
          required
          autoComplete="off"
          autoCapitalize="none"
          spellCheck={false}
          aria-invalid={invalid || undefined}
        />
      </Field>
      <Result state={state} />
      <div className="confirm-form__buttons">
        <SubmitButton variant="danger" pendingLabel="Deleting…">
          Delete profile {name}
        </SubmitButton>
      </div>
    </form>
  );
}
