import 'server-only';
import { webSetting } from './env';

/** Where the dashboard's server side reaches the API (README, Configuration). Read per request, never inlined. */
export function apiBaseUrl(): string {
  return webSetting('STATEHOUSE_API_URL');
}

/** Mark the session cookie Secure only when the dashboard is served over HTTPS. */
export function secureCookies(): boolean {
  return webSetting('STATEHOUSE_SECURE_COOKIES');
}
