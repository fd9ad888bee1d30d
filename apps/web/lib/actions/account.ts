'use server';

import { ChangePasswordRequestSchema, IdSchema } from '@statehouse/contracts';
import { refresh } from 'next/cache';
import { changePassword, endDashboardSession, endOtherDashboardSessions } from '@/lib/api';
import { plural } from '@/lib/format';
import type { ActionOutcome } from './outcome';
import { refusalOf } from './refusal';

/** Changes the signed-in user's own password; the API checks the current one. */
export async function changePasswordAction(_previous: ActionOutcome, formData: FormData): Promise<ActionOutcome> {
  const newPassword = String(formData.get('newPassword') ?? '');
  if (newPassword !== String(formData.get('confirmPassword') ?? '')) {
    return { status: 'error', title: 'Password not changed', message: 'The new password and its confirmation differ.' };
  }
  const body = ChangePasswordRequestSchema.safeParse({
    currentPassword: String(formData.get('currentPassword') ?? ''),
    newPassword,
  });
  if (!body.success) {
    return {
      status: 'error',
      title: 'Password not changed',
      message: 'Enter your current password and a new one of at least 8 characters.',
    };
  }
  try {
    await changePassword(body.data);
    // The API signed out every other browser of this user; the sessions list below changes with it.
    refresh();
    return {
      status: 'success',
      message: 'Password changed. Your other signed-in browsers were signed out; this one stays signed in.',
    };
  } catch (error) {
    const { problem, message } = refusalOf(error);
    if (problem?.status === 401) {
      return { status: 'error', title: 'Password not changed', message: 'The current password is wrong.' };
    }
    if (problem?.code === 'forbidden') {
      return { status: 'error', title: 'Password not changed', message: 'API tokens have no password to change.' };
    }
    return { status: 'error', title: 'Password not changed', message };
  }
}

/** Signs out one of the user's dashboard sessions (another browser, or this one). */
export async function endDashboardSessionAction(_previous: ActionOutcome, formData: FormData): Promise<ActionOutcome> {
  const id = IdSchema.safeParse(formData.get('sessionId'));
  if (!id.success) return { status: 'error', title: 'Not signed out', message: 'The form was incomplete.' };
  try {
    await endDashboardSession(id.data);
  } catch (error) {
    const { problem, message } = refusalOf(error);
    if (problem?.status === 404) {
      refresh();
      return { status: 'success', message: 'That session had already ended.' };
    }
    return { status: 'error', title: 'Not signed out', message };
  }
  refresh();
  return { status: 'success', message: 'Signed out that session.' };
}

/** "Sign out everywhere else": ends every dashboard session of this user but this browser's. */
export async function endOtherDashboardSessionsAction(_previous: ActionOutcome): Promise<ActionOutcome> {
  try {
    const { ended } = await endOtherDashboardSessions();
    refresh();
    return {
      status: 'success',
      message: ended === 0 ? 'No other browser was signed in.' : `Signed out ${plural(ended, 'other session')}.`,
    };
  } catch (error) {
    const { message } = refusalOf(error);
    return { status: 'error', title: 'Not signed out', message };
  }
}
