import 'server-only';

/** Where the dashboard's server side reaches the API (README, Configuration). Read per request, never inlined. */
export function apiBaseUrl(): string {
  return (process.env.STATEHOUSE_API_URL || 'http://127.0.0.1:3000').replace(/\/+$/, '');
}

/** Mark the session cookie Secure only when the dashboard is served over HTTPS. */
export function secureCookies(): boolean {
  return process.env.STATEHOUSE_SECURE_COOKIES === 'true';
}
