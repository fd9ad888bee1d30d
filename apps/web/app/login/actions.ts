'use server';

import { LoginRequestSchema, SESSION_COOKIE_NAME } from '@statehouse/contracts';
import { cookies } from 'next/headers';
import { redirect } from 'next/navigation';
import { ApiProblemError, ApiUnreachableError, login } from '@/lib/api';
import { secureCookies } from '@/lib/config';
import { safeNextPath } from '@/lib/paths';

export interface LoginState {
  error?: string;
  /** Echoed back so a failed attempt does not clear the username field. */
  username?: string;
}

/**
 * Logs in through the API and re-issues its session cookie on the dashboard's own origin: the
 * browser only ever talks to the dashboard, which forwards the cookie on every API call.
 */
export async function loginAction(_previous: LoginState, formData: FormData): Promise<LoginState> {
  const username = String(formData.get('username') ?? '').trim();
  const password = String(formData.get('password') ?? '');
  const next = safeNextPath(String(formData.get('next') ?? ''));
  const credentials = LoginRequestSchema.safeParse({ username, password });
  if (!credentials.success) return { error: 'Enter your username and password.', username };

  try {
    const issued = await login(credentials.data);
    (await cookies()).set(SESSION_COOKIE_NAME, issued.secret, {
      httpOnly: true,
      sameSite: 'strict',
      secure: secureCookies(),
      path: '/',
      expires: issued.expires,
    });
  } catch (error) {
    if (error instanceof ApiProblemError) {
      if (error.status === 429) {
        return { error: `Too many attempts, retry in ${error.retryAfterSeconds ?? 60} s.`, username };
      }
      if (error.status === 401) return { error: 'Wrong username or password.', username };
      if (error.status === 400) return { error: 'Enter your username and password.', username };
      return { error: `Login failed: ${error.problem.detail}`, username };
    }
    if (error instanceof ApiUnreachableError) {
      return { error: 'The Statehouse API cannot be reached right now. Try again in a moment.', username };
    }
    throw error;
  }
  redirect(next);
}
