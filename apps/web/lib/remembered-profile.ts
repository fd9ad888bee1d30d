import { PRIMARY_NAV } from './navigation';

/**
 * The profile a person last chose in the switcher, remembered in a cookie so every profile-scoped
 * page (overview, sessions, search, routes, …) opens on it. The URL stays the state: a page
 * opened without `profile` is redirected to the same address with the remembered one, so a link
 * copied from the address bar shows what its author saw. Choosing "All profiles" forgets it.
 */
export const PROFILE_COOKIE = 'statehouse_profile';
const ONE_YEAR_S = 365 * 24 * 60 * 60;

const SCOPED_PATHS = new Set(PRIMARY_NAV.filter((item) => item.profileScoped).map((item) => item.href));

/** Where a page load should go instead, or null to serve it as asked. */
export function withRememberedProfile(url: URL, remembered: string | undefined): URL | null {
  if (!remembered || !SCOPED_PATHS.has(url.pathname) || url.searchParams.has('profile')) return null;
  const target = new URL(url);
  target.searchParams.set('profile', remembered);
  return target;
}

/** Client side: what the switcher writes when a profile is chosen ('' = all profiles). */
export function rememberProfile(profile: string): void {
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is missing from browsers the dashboard supports; the value is a fixed name or a validated profile name.
  document.cookie = profile
    ? `${PROFILE_COOKIE}=${encodeURIComponent(profile)}; Path=/; Max-Age=${ONE_YEAR_S}; SameSite=Lax`
    : `${PROFILE_COOKIE}=; Path=/; Max-Age=0; SameSite=Lax`;
}
