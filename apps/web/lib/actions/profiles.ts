'use server';

import {
  CreateProfileRequestSchema,
  ProfileNameSchema,
  PutRetentionPolicyRequestSchema,
  RenameProfileRequestSchema,
} from '@statehouse/contracts';
import { refresh } from 'next/cache';
import { redirect } from 'next/navigation';
import { createProfile, deleteProfile, putRetentionPolicy, renameProfile } from '@/lib/api';
import { sentence } from '@/lib/format';
import { deletedHref, renamedHref } from '@/lib/profile-results';
import { idempotencyKeyFrom } from './outcome';
import { refusalOf } from './refusal';

export type ProfileActionState =
  | { status: 'idle' }
  | { status: 'success'; message: string }
  | { status: 'error'; title: string; message: string; field?: string; submitted?: string };

function failure(error: unknown, nothing: string, extra: Partial<ProfileActionState> = {}): ProfileActionState {
  const { problem, message } = refusalOf(error);
  if (!problem) return { status: 'error', title: nothing, message };
  if (problem.code === 'forbidden') {
    return { status: 'error', title: nothing, message: 'Only administrators can change profiles.' };
  }
  return {
    status: 'error',
    title: `${nothing}: ${problem.title}`,
    message: problem.detail,
    ...extra,
  } as ProfileActionState;
}

const issues = (error: { issues: { message: string }[] }) => error.issues.map((issue) => issue.message).join('; ');

export async function createProfileAction(
  _previous: ProfileActionState,
  formData: FormData,
): Promise<ProfileActionState> {
  const submitted = String(formData.get('name') ?? '').trim();
  const body = CreateProfileRequestSchema.safeParse({ name: submitted });
  if (!body.success) {
    return {
      status: 'error',
      title: 'Not created',
      message: `Use lowercase letters, digits, “-” and “_”, starting with a letter or digit (${issues(body.error)}).`,
      field: 'name',
      submitted,
    };
  }
  try {
    const created = await createProfile(body.data);
    refresh();
    return { status: 'success', message: `Created profile “${created.name}”.` };
  } catch (error) {
    return failure(error, 'Not created', { field: 'name', submitted });
  }
}

/** Renames in one transaction (docs/domain.md §6); a colliding routing key refuses everything (409 profile_collision). */
export async function renameProfileAction(
  _previous: ProfileActionState,
  formData: FormData,
): Promise<ProfileActionState> {
  const name = ProfileNameSchema.safeParse(formData.get('name'));
  const body = RenameProfileRequestSchema.safeParse({ newName: String(formData.get('newName') ?? '').trim() });
  if (!name.success || !body.success) {
    return { status: 'error', title: 'Not renamed', message: 'Enter a valid new name.' };
  }
  let target: string;
  try {
    const result = await renameProfile(name.data, body.data, idempotencyKeyFrom(formData));
    target = renamedHref(result.name || body.data.newName, name.data, result.counts);
  } catch (error) {
    const { problem } = refusalOf(error);
    if (problem?.code === 'profile_collision') {
      return {
        status: 'error',
        title: 'Refused: the new name collides (409 profile_collision)',
        message: `${sentence(problem.detail)} Nothing was changed: choose another name.`,
      };
    }
    return failure(error, 'Not renamed');
  }
  redirect(target);
}

export async function deleteProfileAction(
  _previous: ProfileActionState,
  formData: FormData,
): Promise<ProfileActionState> {
  const name = ProfileNameSchema.safeParse(formData.get('name'));
  if (!name.success) return { status: 'error', title: 'Not deleted', message: 'The form was incomplete.' };
  const confirmation = String(formData.get('confirmName') ?? '').trim();
  if (confirmation !== name.data) {
    return {
      status: 'error',
      title: 'Not deleted',
      message: `Type the profile name “${name.data}” to confirm.`,
      field: 'confirmName',
    };
  }
  const deleteSessions = formData.get('deleteSessions') === 'true';
  let target: string;
  try {
    const result = await deleteProfile(name.data, { deleteSessions, dryRun: false }, idempotencyKeyFrom(formData));
    target = deletedHref(name.data, result);
  } catch (error) {
    return failure(error, 'Not deleted');
  }
  redirect(target);
}

export async function retentionAction(_previous: ProfileActionState, formData: FormData): Promise<ProfileActionState> {
  const profile = ProfileNameSchema.safeParse(formData.get('profile'));
  const rawDays = String(formData.get('retentionDays') ?? '').trim();
  const body = PutRetentionPolicyRequestSchema.safeParse({ retentionDays: rawDays === '' ? null : Number(rawDays) });
  if (!profile.success || !body.success) {
    return {
      status: 'error',
      title: 'Not saved',
      message: body.success
        ? 'The form was incomplete.'
        : `Days must be a whole number, 0 or more (${issues(body.error)}).`,
      field: 'retentionDays',
      submitted: rawDays,
    };
  }
  try {
    const saved = await putRetentionPolicy(profile.data, body.data);
    refresh();
    return {
      status: 'success',
      message:
        saved.retentionDays === null
          ? 'Saved: sessions are kept until deleted.'
          : `Saved: ended sessions older than ${saved.retentionDays} days are pruned (pinned ones are kept).`,
    };
  } catch (error) {
    return failure(error, 'Not saved', { field: 'retentionDays', submitted: rawDays });
  }
}
