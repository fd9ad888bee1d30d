'use client';

import { useActionState } from 'react';
import { Field, LiveRegion, ResultAlert, Select, SubmitButton } from '@/app/ui/common';
import { type LifecycleActionState, lifecycleAction } from '@/lib/actions/sessions';
import './sessions.css';

export interface ReasonGroup {
  label: string;
  reasons: { value: string; label: string }[];
}

interface LifecycleFormProps {
  sessionId: string;
  revision: number;
  ended: boolean;
  /** Reopen is offered only when the end stamp is one the API may clear. */
  reopenable: boolean;
  /** Why it cannot be reopened, when ended and not reopenable. */
  finalNote: string | null;
  reasonGroups: ReasonGroup[];
  defaultReason: string;
  reloadHref: string;
}

/** End with a reason, or reopen. Its own form and status region, next to rename/pin/archive. */
export function LifecycleForm({
  sessionId,
  revision,
  ended,
  reopenable,
  finalNote,
  reasonGroups,
  defaultReason,
  reloadHref,
}: LifecycleFormProps) {
  const [state, formAction] = useActionState<LifecycleActionState, FormData>(lifecycleAction, { status: 'idle' });
  return (
    <form action={formAction} className="lifecycle-form" aria-label="Session lifecycle">
      <input type="hidden" name="sessionId" value={sessionId} />
      <input type="hidden" name="revision" value={revision} />
      {ended ? (
        reopenable ? (
          <div className="lifecycle-form__row">
            <p className="lifecycle-form__text">Ended sessions can be reopened when the end was not deliberate.</p>
            <SubmitButton name="intent" value="reopen" variant="secondary" size="sm" pendingLabel="Reopening…">
              Reopen
            </SubmitButton>
          </div>
        ) : (
          <p className="lifecycle-form__text">{finalNote}</p>
        )
      ) : (
        <div className="lifecycle-form__row">
          <Field label="End reason" htmlFor="end-reason" className="lifecycle-form__field">
            <Select id="end-reason" name="reason" defaultValue={defaultReason}>
              {reasonGroups.map((group) => (
                <optgroup key={group.label} label={group.label}>
                  {group.reasons.map((reason) => (
                    <option key={reason.value} value={reason.value}>
                      {reason.label}
                    </option>
                  ))}
                </optgroup>
              ))}
            </Select>
          </Field>
          <SubmitButton name="intent" value="end" variant="secondary" pendingLabel="Ending…">
            End session
          </SubmitButton>
        </div>
      )}
      <LiveRegion className="manage-form__result">
        <ResultAlert state={state} recover={{ href: reloadHref, label: 'Reload' }} />
      </LiveRegion>
    </form>
  );
}
