'use client';

import { useActionState } from 'react';
import { ButtonLink, LiveRegion, ResultAlert, SubmitButton } from '@/app/ui/common';
import { type DeleteActionState, deleteConversationsAction } from '@/lib/actions/deletion';

export interface ConfirmItem {
  id: string;
  revision: number;
  generation: number;
}

interface DeleteConfirmFormProps {
  items: ConfirmItem[];
  /** What the button says, e.g. "Delete 2 sessions permanently". */
  label: string;
  back: string;
  /** This preview again (a full load), after a refusal because something changed. */
  previewHref: string;
  idempotencyKey: string;
  disabled?: boolean;
}

/** The confirmation: a plain POST form (it works without JavaScript), one danger button. */
export function DeleteConfirmForm({
  items,
  label,
  back,
  previewHref,
  idempotencyKey,
  disabled,
}: DeleteConfirmFormProps) {
  const [state, formAction] = useActionState<DeleteActionState, FormData>(deleteConversationsAction, {
    status: 'idle',
  });
  return (
    <form action={formAction} className="confirm-form" aria-label="Confirm deletion">
      {items.map((item) => (
        <span key={item.id} hidden>
          <input type="hidden" name="id" value={item.id} />
          <input type="hidden" name="revision" value={item.revision} />
          <input type="hidden" name="generation" value={item.generation} />
        </span>
      ))}
      <input type="hidden" name="back" value={back} />
      <input type="hidden" name="idempotencyKey" value={idempotencyKey} />
      <LiveRegion>
        <ResultAlert state={state} recover={{ href: previewHref, label: 'Preview again' }} />
      </LiveRegion>
      <div className="confirm-form__buttons">
        <ButtonLink href={back} variant="ghost">
          Cancel
        </ButtonLink>
        <SubmitButton variant="danger" pendingLabel="Deleting…" disabled={disabled}>
          {label}
        </SubmitButton>
      </div>
    </form>
  );
}
