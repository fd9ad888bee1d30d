'use server';

import {
  CreateLabelRequestSchema,
  LabelNameSchema,
  LabelSessionsRequestSchema,
  ProfileNameSchema,
  UpdateLabelRequestSchema,
} from '@statehouse/contracts';
import { refresh } from 'next/cache';
import { createLabel, deleteLabel, labelSessions, updateLabel } from '@/lib/api';
import { plural } from '@/lib/format';
import type { ActionOutcome } from './outcome';
import { refusalOf } from './refusal';

/** Every label form names its profile; the change forms name the label and the revision they saw. */
function target(formData: FormData): { profile: string; label: string; revision: number } | null {
  const profile = ProfileNameSchema.safeParse(formData.get('profile'));
  const label = LabelNameSchema.safeParse(formData.get('label'));
  const revision = Number(formData.get('revision'));
  return profile.success && label.success && Number.isInteger(revision) && revision >= 0
    ? { profile: profile.data, label: label.data, revision }
    : null;
}

function failure(error: unknown, nothing: string): ActionOutcome {
  const { problem, message } = refusalOf(error);
  if (problem?.code === 'revision_conflict') {
    return {
      status: 'error',
      title: `${nothing}: changed meanwhile`,
      message: 'Someone changed this label after the page loaded. Reload and try again.',
      conflict: true,
    };
  }
  return {
    status: 'error',
    title: problem ? `${nothing}: ${problem.title}` : nothing,
    message: problem?.detail ?? message,
  };
}

const issues = (error: { issues: { message: string }[] }) => error.issues.map((issue) => issue.message).join('; ');

export async function createLabelAction(_previous: ActionOutcome, formData: FormData): Promise<ActionOutcome> {
  const profile = ProfileNameSchema.safeParse(formData.get('profile'));
  const body = CreateLabelRequestSchema.safeParse({
    name: String(formData.get('name') ?? '').trim(),
    colour: formData.get('colour') || undefined,
  });
  if (!profile.success) return { status: 'error', title: 'Not created', message: 'Reload the page.' };
  if (!body.success)
    return { status: 'error', title: 'Not created', message: `Check the name (${issues(body.error)}).` };
  try {
    const created = await createLabel(profile.data, body.data);
    refresh();
    return { status: 'success', message: `Created label “${created.name}”.` };
  } catch (error) {
    return failure(error, 'Not created');
  }
}

export async function updateLabelAction(_previous: ActionOutcome, formData: FormData): Promise<ActionOutcome> {
  const form = target(formData);
  const body = UpdateLabelRequestSchema.safeParse({
    name: String(formData.get('newName') ?? '').trim() || undefined,
    colour: formData.get('colour') || undefined,
  });
  if (!form) return { status: 'error', title: 'Not changed', message: 'The form was incomplete. Reload the page.' };
  if (!body.success)
    return { status: 'error', title: 'Not changed', message: `Check the name (${issues(body.error)}).` };
  try {
    const updated = await updateLabel(form.profile, form.label, form.revision, body.data);
    refresh();
    return { status: 'success', message: `Saved label “${updated.name}”.` };
  } catch (error) {
    return failure(error, 'Not changed');
  }
}

export async function deleteLabelAction(_previous: ActionOutcome, formData: FormData): Promise<ActionOutcome> {
  const form = target(formData);
  if (!form) return { status: 'error', title: 'Not deleted', message: 'The form was incomplete. Reload the page.' };
  try {
    await deleteLabel(form.profile, form.label, form.revision);
    refresh();
    return { status: 'success', message: `Deleted label “${form.label}”.` };
  } catch (error) {
    return failure(error, 'Not deleted');
  }
}

/** Adds a label to (or takes it off) the sessions selected on the list: all of them or none. */
export async function labelSelectionAction(_previous: ActionOutcome, formData: FormData): Promise<ActionOutcome> {
  const profile = ProfileNameSchema.safeParse(formData.get('profile'));
  const label = LabelNameSchema.safeParse(formData.get('label'));
  const change = formData.get('change') === 'remove' ? 'remove' : 'apply';
  const body = LabelSessionsRequestSchema.safeParse({ sessionIds: formData.getAll('ids').map(String) });
  if (!profile.success || !label.success) {
    return { status: 'error', title: 'Nothing was changed', message: 'Choose a label.' };
  }
  if (!body.success) return { status: 'error', title: 'Nothing was changed', message: 'Select sessions first.' };
  try {
    const result = await labelSessions(profile.data, label.data, change, body.data.sessionIds);
    refresh();
    const sessions = plural(result.changed, 'session');
    return {
      status: 'success',
      message:
        change === 'apply'
          ? `Labelled ${sessions} “${result.label.name}”.`
          : `Took “${result.label.name}” off ${sessions}.`,
    };
  } catch (error) {
    return failure(error, 'Nothing was changed');
  }
}
