'use client';

import { useActionState } from 'react';
import { Field, Input, LiveRegion, ResultAlert, SubmitButton } from '@/app/ui/common';
import { type SessionActionState, updateSessionAction } from '@/lib/actions/sessions';
import './sessions.css';

interface ManageSessionProps {
  sessionId: string;
  /** The revision this page was rendered with; sent as If-Match. */
  revision: number;
  title: string | null;
  archived: boolean;
  pinned: boolean;
  /** Where "Reload" goes after a revision conflict (this page, same view). */
  reloadHref: string;
}

const RESULT_ID = 'session-action-result';

/** Rename, pin and archive. One action, one status region, so every result is announced once. */
export function ManageSession({ sessionId, revision, title, archived, pinned, reloadHref }: ManageSessionProps) {
  const [state, formAction] = useActionState<SessionActionState, FormData>(updateSessionAction, { status: 'idle' });
  const titleError = state.status === 'error' && state.field === 'title';
  return (
    <form action={formAction} className="manage-form" aria-label="Manage session">
      <input type="hidden" name="sessionId" value={sessionId} />
      <input type="hidden" name="revision" value={revision} />
      <div className="manage-form__rename">
        <Field label="Title" htmlFor="session-title">
          <Input
            id="session-title"
            name="title"
            // React resets the form after every action; a refused rename keeps what was typed.
            defaultValue={
              state.status === 'error' && state.submittedTitle !== undefined ? state.submittedTitle : (title ?? '')
            }
            key={title ?? ''}
            maxLength={100}
            placeholder="Name this conversation"
            aria-invalid={titleError || undefined}
            aria-describedby={titleError ? RESULT_ID : undefined}
          />
        </Field>
        <SubmitButton name="intent" value="rename" pendingLabel="Saving…">
          Rename
        </SubmitButton>
      </div>
      <div className="manage-form__toggles">
        {[
          pinned ? ['unpin', 'Unpin', 'Unpinning…'] : ['pin', 'Pin', 'Pinning…'],
          archived ? ['unarchive', 'Unarchive', 'Unarchiving…'] : ['archive', 'Archive', 'Archiving…'],
        ].map(([intent, label, pendingLabel]) => (
          <SubmitButton
            key={intent}
            name="intent"
            value={intent}
            variant="secondary"
            size="sm"
            pendingLabel={pendingLabel}
          >
            {label}
          </SubmitButton>
        ))}
      </div>
      <p className="manage-form__note">
        Changes apply to revision {revision}. Pin and archive cover the whole compression chain.
      </p>
      <LiveRegion className="manage-form__result" id={RESULT_ID}>
        <ResultAlert state={state} recover={{ href: reloadHref, label: 'Reload' }} />
      </LiveRegion>
    </form>
  );
}
