import { SESSION_COOKIE_NAME } from '@statehouse/contracts';
import { type NextRequest, NextResponse } from 'next/server';
import { CURRENT_PATH_HEADER, loginHref } from '@/lib/paths';
import { PROFILE_COOKIE, withRememberedProfile } from '@/lib/remembered-profile';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The page's Content-Security-Policy: scripts only with this request's nonce (Next.js puts it on
 * its own scripts when it finds it in the request's CSP header) and what they load; nothing framed,
 * no plugins, forms only to this origin (docs/security.md, "Headers").
 */
function contentSecurityPolicy(nonce: string): string {
  const development = process.env.NODE_ENV === 'development';
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ''}`,
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * A state-changing request (a server action, a form post) must come from a page of this origin:
 * the browser's `Origin` is present and names the host it was sent to, and fetch metadata, when
 * sent, says same-origin. A missing Origin is refused too (docs/security.md, "CSRF").
 */
function isSameOriginMutation(request: NextRequest): boolean {
  const site = request.headers.get('sec-fetch-site');
  if (site !== null && site !== 'same-origin') return false;
  const origin = request.headers.get('origin');
  const host = request.headers.get('x-forwarded-host') ?? request.headers.get('host');
  if (!origin || origin === 'null' || !host) return false;
  try {
    return new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}

/**
 * Runs before every page and action: refuses cross-origin mutations; without a session cookie
 * there is nothing to ask the API, so a page load goes straight to /login (keeping where the user
 * wanted to go); with one, the current path is passed along so a 401 deep in a page can still send
 * the user back after logging in. Every answer carries a fresh CSP nonce.
 */
export function proxy(request: NextRequest) {
  if (!SAFE_METHODS.has(request.method) && !isSameOriginMutation(request)) {
    return new NextResponse('Cross-origin requests cannot change anything here.', {
      status: 403,
      headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
    });
  }
  const nonce = btoa(crypto.randomUUID());
  const policy = contentSecurityPolicy(nonce);
  const { pathname, search } = request.nextUrl;
  const current = `${pathname}${search}`;
  const hasSession = Boolean(request.cookies.get(SESSION_COOKIE_NAME)?.value);
  // Only page loads are redirected; a POST (server action) handles its own 401 via redirect().
  if (!hasSession && pathname !== '/login' && request.method === 'GET') {
    const response = NextResponse.redirect(new URL(loginHref(current), request.url));
    response.headers.set('content-security-policy', policy);
    return response;
  }
  const remembered = request.method === 'GET' ? request.cookies.get(PROFILE_COOKIE)?.value : undefined;
  const rememberedTarget = withRememberedProfile(request.nextUrl, remembered);
  if (rememberedTarget) {
    const response = NextResponse.redirect(rememberedTarget);
    response.headers.set('content-security-policy', policy);
    return response;
  }
  const forwarded = new Headers(request.headers);
  forwarded.set(CURRENT_PATH_HEADER, current);
  forwarded.set('content-security-policy', policy);
  const response = NextResponse.next({ request: { headers: forwarded } });
  response.headers.set('content-security-policy', policy);
  return response;
}

export const config = {
  // The import upload is left alone: a proxy buffers request bodies (10 MB at most) and would cut a
  // state.db short; its route handler passes the stream on, and the API checks the session itself.
  matcher: ['/((?!_next/static|_next/image|favicon.ico|icon.svg|admin/import/upload).*)'],
};
