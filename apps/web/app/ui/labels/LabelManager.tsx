'use client';

import { LABEL_COLOURS, LABEL_NAME_MAX, type Label } from '@statehouse/contracts';
import { useActionState } from 'react';
import { Card, Field, Input, LiveRegion, ResultAlert, Select, SubmitButton } from '@/app/ui/common';
import { createLabelAction, deleteLabelAction, updateLabelAction } from '@/lib/actions/labels';
import type { ActionOutcome } from '@/lib/actions/outcome';
import { plural } from '@/lib/format';
import './labels.css';

const IDLE: ActionOutcome = { status: 'idle' };

function ColourSelect({ id, value }: { id: string; value: string }) {
  return (
    <Select id={id} name="colour" defaultValue={value}>
      {LABEL_COLOURS.map((colour) => (
        <option key={colour} value={colour}>
          {colour}
        </option>
      ))}
    </Select>
  );
}

/** The profile's labels: create, rename, recolour and delete (changes carry the revision they saw). */
export function LabelManager({ profile, labels }: { profile: string; labels: Label[] }) {
  return (
    <Card
      title="Labels"
      description="Tags for this profile's conversations. Deleting a label takes it off its sessions."
    >
      {labels.length > 0 ? (
        <ul className="label-manager__list" aria-label="Labels of this profile">
          {labels.map((label, index) => (
            <LabelRow key={`${label.name}-${label.revision}`} profile={profile} label={label} index={index} />
          ))}
        </ul>
      ) : (
        <p>No labels yet.</p>
      )}
      <CreateLabelForm profile={profile} />
    </Card>
  );
}

function LabelRow({ profile, label, index }: { profile: string; label: Label; index: number }) {
  const [saved, save] = useActionState(updateLabelAction, IDLE);
  const [deleted, remove] = useActionState(deleteLabelAction, IDLE);
  const nameId = `label-name-${index}`;
  const colourId = `label-colour-${index}`;
  return (
    <li>
      <div className="label-manager__item">
        <form action={save} className="label-manager__item" aria-label={`Edit label ${label.name}`}>
          <input type="hidden" name="profile" value={profile} />
          <input type="hidden" name="label" value={label.name} />
          <input type="hidden" name="revision" value={label.revision} />
          <Field label="Name" htmlFor={nameId}>
            <Input id={nameId} name="newName" defaultValue={label.name} required maxLength={LABEL_NAME_MAX} />
          </Field>
          <Field label="Colour" htmlFor={colourId}>
            <ColourSelect id={colourId} value={label.colour} />
          </Field>
          <SubmitButton variant="secondary" size="sm" pendingLabel="Saving…">
            Save
          </SubmitButton>
        </form>
        <form action={remove} aria-label={`Delete label ${label.name}`}>
          <input type="hidden" name="profile" value={profile} />
          <input type="hidden" name="label" value={label.name} />
          <input type="hidden" name="revision" value={label.revision} />
          <SubmitButton variant="danger" size="sm" pendingLabel="Deleting…">
            Delete
          </SubmitButton>
        </form>
        <span className="label-manager__count">{plural(label.sessionCount, 'session')}</span>
      </div>
      <LiveRegion>
        <ResultAlert state={saved.status !== 'idle' ? saved : deleted} />
      </LiveRegion>
    </li>
  );
}

function CreateLabelForm({ profile }: { profile: string }) {
  const [state, create] = useActionState(createLabelAction, IDLE);
  return (
    <form action={create} aria-label="Create a label">
      <input type="hidden" name="profile" value={profile} />
      <div className="label-create-form__row">
        <Field label="New label" htmlFor="new-label">
          <Input
            id="new-label"
            name="name"
            required
            maxLength={LABEL_NAME_MAX}
            placeholder="e.g. needs review"
            key={state.status === 'success' ? state.message : 'create'}
          />
        </Field>
        <Field label="Colour" htmlFor="new-label-colour">
          <ColourSelect id="new-label-colour" value="grey" />
        </Field>
        <SubmitButton pendingLabel="Creating…">Create label</SubmitButton>
      </div>
      <LiveRegion>
        <ResultAlert state={state} />
      </LiveRegion>
    </form>
  );
}
