'use server';

import { SESSION_COOKIE_NAME } from '@statehouse/contracts';
import { cookies } from 'next/headers';
import { redirect } from 'next/navigation';
import { ApiProblemError, ApiUnreachableError, logout } from '@/lib/api';

/** Ends the API session, then forgets the cookie even if the API could not be told. */
export async function logoutAction(): Promise<void> {
  try {
    await logout();
  } catch (error) {
    if (!(error instanceof ApiProblemError || error instanceof ApiUnreachableError)) throw error;
  }
  (await cookies()).delete({ name: SESSION_COOKIE_NAME, path: '/' });
  redirect('/login');
}
