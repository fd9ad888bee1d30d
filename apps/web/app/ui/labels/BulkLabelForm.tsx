'use client';

import type { Label } from '@statehouse/contracts';
import { useActionState } from 'react';
import { Field, LiveRegion, ResultAlert, Select, SubmitButton } from '@/app/ui/common';
import { labelSelectionAction } from '@/lib/actions/labels';
import type { ActionOutcome } from '@/lib/actions/outcome';
import './labels.css';

const IDLE: ActionOutcome = { status: 'idle' };

/**
 * Adds a label to, or takes it off, the rows selected on the list. The rows' checkboxes belong to
 * the bulk-delete form (`selectionForm`); their checked ids are added to this form's data when it
 * is sent.
 */
export function BulkLabelForm({
  profile,
  labels,
  selectionForm,
}: {
  profile: string;
  labels: Label[];
  selectionForm: string;
}) {
  const [state, action] = useActionState(labelSelectionAction, IDLE);
  if (labels.length === 0) return null;
  const withSelection = (formData: FormData) => {
    for (const box of document.querySelectorAll<HTMLInputElement>(
      `input[type="checkbox"][form="${selectionForm}"]:checked`,
    )) {
      formData.append('ids', box.value);
    }
    return action(formData);
  };
  return (
    <form action={withSelection} className="label-bulk" aria-label="Label the selected sessions">
      <input type="hidden" name="profile" value={profile} />
      <Field label="Label" htmlFor="bulk-label">
        <Select id="bulk-label" name="label" defaultValue={labels[0].name}>
          {labels.map((label) => (
            <option key={label.name} value={label.name}>
              {label.name}
            </option>
          ))}
        </Select>
      </Field>
      <SubmitButton variant="secondary" size="sm" name="change" value="apply" pendingLabel="Labelling…">
        Add to selected
      </SubmitButton>
      <SubmitButton variant="ghost" size="sm" name="change" value="remove" pendingLabel="Removing…">
        Remove from selected
      </SubmitButton>
      <LiveRegion>
        <ResultAlert state={state} />
      </LiveRegion>
    </form>
  );
}
