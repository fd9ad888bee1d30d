'use client';

import type { User } from '@statehouse/contracts';
import { useActionState } from 'react';
import { Badge, LiveRegion, ResultAlert, SubmitButton } from '@/app/ui/common';
import { updateUserAction } from '@/lib/actions/admin';
import type { ActionOutcome } from '@/lib/actions/outcome';
import { formatDateTime } from '@/lib/format';
import { ProfileChoices } from './ProfileChoices';
import { RoleSelect } from './RoleSelect';
import './admin.css';

const IDLE: ActionOutcome = { status: 'idle' };

/** One user: role and profiles (saved together), and enable/disable. Disabling signs them out everywhere. */
export function UserRow({ user, profiles, self }: { user: User; profiles: string[]; self: boolean }) {
  const [state, formAction] = useActionState(updateUserAction, IDLE);
  const id = `user-${user.id}`;
  return (
    <li className="user-row" aria-labelledby={`${id}-name`}>
      <form action={formAction} className="user-row__form">
        <input type="hidden" name="userId" value={user.id} />
        <input type="hidden" name="username" value={user.username} />
        <div className="user-row__who">
          <h3 className="user-row__name" id={`${id}-name`}>
            {user.username}
          </h3>
          {self ? <Badge tone="accent">You</Badge> : null}
          {user.disabled ? <Badge tone="danger">Disabled</Badge> : <Badge tone="success">Active</Badge>}
          <span className="text-muted">
            {user.activeSessions} signed in · last sign-in{' '}
            {user.lastLoginAt ? formatDateTime(user.lastLoginAt) : 'never'}
          </span>
        </div>
        <RoleSelect id={`${id}-role`} value={user.role} label={`Role of ${user.username}`} />
        <ProfileChoices
          idPrefix={`${id}-profile`}
          profiles={profiles}
          value={user.profiles}
          legend={`Profiles of ${user.username}`}
        />
        <div className="admin-form__buttons">
          <SubmitButton variant="secondary" size="sm" name="intent" value="save" pendingLabel="Saving…">
            Save {user.username}
          </SubmitButton>
          {user.disabled ? (
            <SubmitButton variant="secondary" size="sm" name="intent" value="enable" pendingLabel="Enabling…">
              Enable {user.username}
            </SubmitButton>
          ) : (
            <SubmitButton
              variant="danger"
              size="sm"
              name="intent"
              value="disable"
              pendingLabel="Disabling…"
              disabled={self}
            >
              Disable {user.username}
            </SubmitButton>
          )}
        </div>
        <LiveRegion>
          <ResultAlert state={state} />
        </LiveRegion>
      </form>
    </li>
  );
}
