'use server';

import {
  CreateTokenRequestSchema,
  CreateUserRequestSchema,
  IdSchema,
  UpdateUserRequestSchema,
} from '@statehouse/contracts';
import { refresh } from 'next/cache';
import { createToken, createUser, revokeToken, updateUser } from '@/lib/api';
import { sentence } from '@/lib/format';
import { profileSetFrom } from '@/lib/profile-set';
import type { ActionOutcome } from './outcome';
import { refusalOf } from './refusal';

/** Administration of dashboard users and API tokens; the API refuses members (403) anyway. */

function refused(error: unknown, title: string): ActionOutcome {
  const { problem, message } = refusalOf(error);
  if (problem?.code === 'forbidden') return { status: 'error', title, message: 'Only administrators can do this.' };
  if (problem?.status === 409) return { status: 'error', title, message: sentence(problem.detail) };
  return { status: 'error', title, message };
}

export async function createUserAction(_previous: ActionOutcome, formData: FormData): Promise<ActionOutcome> {
  const body = CreateUserRequestSchema.safeParse({
    username: String(formData.get('username') ?? '').trim(),
    password: String(formData.get('password') ?? ''),
    role: formData.get('role'),
    profiles: profileSetFrom(formData),
  });
  if (!body.success) {
    return {
      status: 'error',
      title: 'User not created',
      message:
        'Use letters, digits, “.”, “_”, “@” or “-” for the username (up to 64), a password of at least 8 characters, and pick a role.',
    };
  }
  try {
    const user = await createUser(body.data);
    refresh();
    return { status: 'success', message: `Created ${user.role} “${user.username}”.` };
  } catch (error) {
    return refused(error, 'User not created');
  }
}

/** Role and profiles (one form per user), or `disabled` alone (the enable/disable button). */
export async function updateUserAction(_previous: ActionOutcome, formData: FormData): Promise<ActionOutcome> {
  const id = IdSchema.safeParse(formData.get('userId'));
  const username = String(formData.get('username') ?? 'the user');
  const intent = formData.get('intent');
  const body = UpdateUserRequestSchema.safeParse(
    intent === 'disable' || intent === 'enable'
      ? { disabled: intent === 'disable' }
      : { role: formData.get('role'), profiles: profileSetFrom(formData) },
  );
  if (!id.success || !body.success) {
    return { status: 'error', title: 'Nothing was changed', message: 'Pick a role and at least one profile.' };
  }
  try {
    const user = await updateUser(id.data, body.data);
    refresh();
    const what = body.data.disabled === undefined ? 'Saved' : user.disabled ? 'Disabled' : 'Enabled';
    return { status: 'success', message: `${what}: ${user.username}.` };
  } catch (error) {
    return refused(error, `${username} was not changed`);
  }
}

export type TokenActionState =
  | ActionOutcome
  /** The one time the secret is shown; it is not kept anywhere but this answer. */
  | { status: 'created'; message: string; name: string; secret: string };

export async function createTokenAction(_previous: TokenActionState, formData: FormData): Promise<TokenActionState> {
  const body = CreateTokenRequestSchema.safeParse({
    name: String(formData.get('name') ?? '').trim(),
    role: formData.get('role'),
    profiles: profileSetFrom(formData),
  });
  if (!body.success) {
    return { status: 'error', title: 'Token not created', message: 'Name the token, pick a role and its profiles.' };
  }
  try {
    const created = await createToken(body.data);
    refresh();
    return {
      status: 'created',
      message: `Created token “${body.data.name}”. Copy it now: it is not shown again.`,
      name: body.data.name,
      secret: created.token,
    };
  } catch (error) {
    return refused(error, 'Token not created');
  }
}

export async function revokeTokenAction(_previous: ActionOutcome, formData: FormData): Promise<ActionOutcome> {
  const id = IdSchema.safeParse(formData.get('tokenId'));
  const name = String(formData.get('name') ?? 'the token');
  if (!id.success) return { status: 'error', title: 'Not revoked', message: 'The form was incomplete.' };
  try {
    await revokeToken(id.data);
    refresh();
    return { status: 'success', message: `Revoked “${name}”: it no longer authenticates.` };
  } catch (error) {
    return refused(error, `“${name}” was not revoked`);
  }
}
