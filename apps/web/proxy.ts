import { SESSION_COOKIE_NAME } from '@statehouse/contracts';
import { type NextRequest, NextResponse } from 'next/server';
import { CURRENT_PATH_HEADER, loginHref } from '@/lib/paths';

/**
 * Runs before every page: without a session cookie there is nothing to ask the API, so go straight
 * to /login (keeping where the user wanted to go). With one, pass the current path along so a 401
 * from the API deep in a page can still send the user back here after logging in.
 */
export function proxy(request: NextRequest) {
  const { pathname, search } = request.nextUrl;
  const current = `${pathname}${search}`;
  const hasSession = Boolean(request.cookies.get(SESSION_COOKIE_NAME)?.value);
  // Only page loads are redirected; a POST (server action) handles its own 401 via redirect().
  if (!hasSession && pathname !== '/login' && request.method === 'GET') {
    return NextResponse.redirect(new URL(loginHref(current), request.url));
  }
  const forwarded = new Headers(request.headers);
  forwarded.set(CURRENT_PATH_HEADER, current);
  return NextResponse.next({ request: { headers: forwarded } });
}

export const config = {
  // The import upload is left alone: a proxy buffers request bodies (10 MB at most) and would cut a
  // state.db short; its route handler passes the stream on, and the API checks the session itself.
  matcher: ['/((?!_next/static|_next/image|favicon.ico|icon.svg|admin/import/upload).*)'],
};
