import {
  type ChangePasswordRequest,
  type DashboardSession,
  DashboardSessionSchema,
  type EndOtherSessionsResponse,
  EndOtherSessionsResponseSchema,
  type LoginRequest,
  type Principal,
  PrincipalSchema,
  SESSION_COOKIE_NAME,
} from '@statehouse/contracts';
import { cache } from 'react';
import { arrayOf, request, send } from './client';

/** Who is signed in; deduplicated per request (the layout and a page may both ask). */
export const getMe = cache(
  (): Promise<Principal> => request('GET /v1/auth/me', PrincipalSchema, (api) => api.GET('/v1/auth/me')),
);

export interface IssuedSessionCookie {
  secret: string;
  expires: Date | undefined;
}

/** Logs in against the API and returns the session cookie it issued (to be re-set by the dashboard). */
export async function login(credentials: LoginRequest): Promise<IssuedSessionCookie> {
  const { response } = await send((api) => api.exchange('post', '/v1/auth/login', { body: credentials }), {
    onUnauthenticated: 'throw',
  });
  const issued = response.headers
    .getSetCookie()
    .map(parseSetCookie)
    .find((cookie) => cookie?.name === SESSION_COOKIE_NAME);
  if (!issued) throw new Error('The API accepted the login but issued no session cookie');
  return { secret: issued.value, expires: issued.expires };
}

/** A wrong current password answers 400/401-class problems that the caller words; never redirects. */
export async function changePassword(body: ChangePasswordRequest): Promise<void> {
  await send((api) => api.POST('/v1/auth/password', { body }), { onUnauthenticated: 'throw' });
}

/** The caller's own signed-in dashboard sessions (browsers), the current one marked. */
export function listDashboardSessions(): Promise<DashboardSession[]> {
  return request('GET /v1/auth/sessions', arrayOf(DashboardSessionSchema), (api) => api.GET('/v1/auth/sessions'));
}

export async function endDashboardSession(id: string): Promise<void> {
  await send((api) => api.DELETE('/v1/auth/sessions/{id}', { params: { path: { id } } }));
}

/** "Sign out everywhere else": every dashboard session of the user but this browser's ends. */
export function endOtherDashboardSessions(): Promise<EndOtherSessionsResponse> {
  return request('POST /v1/auth/sessions/end-others', EndOtherSessionsResponseSchema, (api) =>
    api.POST('/v1/auth/sessions/end-others'),
  );
}

/** Ends the server-side session; the caller deletes the dashboard's cookie either way. */
export async function logout(): Promise<void> {
  await send((api) => api.POST('/v1/auth/logout'), { onUnauthenticated: 'throw' });
}

function parseSetCookie(header: string): { name: string; value: string; expires: Date | undefined } | null {
  const [pair, ...attributes] = header.split(';');
  const separator = pair.indexOf('=');
  if (separator < 0) return null;
  let expires: Date | undefined;
  for (const attribute of attributes) {
    const [key, ...rest] = attribute.trim().split('=');
    const value = rest.join('=');
    if (key.toLowerCase() === 'expires') {
      const date = new Date(value);
      if (!Number.isNaN(date.getTime())) expires = date;
    } else if (key.toLowerCase() === 'max-age' && expires === undefined) {
      const seconds = Number(value);
      if (Number.isFinite(seconds)) expires = new Date(Date.now() + seconds * 1000);
    }
  }
  let value = pair.slice(separator + 1).trim();
  try {
    value = decodeURIComponent(value);
  } catch {
    // keep the raw value
  }
  return { name: pair.slice(0, separator).trim(), value, expires };
}
