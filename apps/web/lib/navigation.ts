import { SESSION_FILTER_KEYS, SESSION_VIEW_KEYS } from './session-list-keys';

/**
 * Primary navigation. A new section is one entry here plus a route folder under app/(dashboard)/;
 * the header, active state and profile switcher follow.
 */
export interface NavItem {
  href: string;
  label: string;
  /**
   * The page lists things by profile: switching profile stays on it (with `?profile=`). Other pages
   * (a single session) switch to the sessions list of the chosen profile.
   */
  profileScoped: boolean;
  /** Shown to administrators only (the API refuses members anyway). */
  adminOnly?: boolean;
  /** Other paths that belong to this section (the deletion flow belongs to Sessions). */
  alsoActiveOn?: readonly string[];
}

export const PRIMARY_NAV: readonly NavItem[] = [
  { href: '/', label: 'Overview', profileScoped: true },
  { href: '/sessions', label: 'Sessions', profileScoped: true, alsoActiveOn: ['/delete'] },
  { href: '/search', label: 'Search', profileScoped: true },
  { href: '/routes', label: 'Routes', profileScoped: true },
  { href: '/gateways', label: 'Gateways', profileScoped: true },
  { href: '/profiles', label: 'Profiles', profileScoped: false },
  { href: '/receipts', label: 'Receipts', profileScoped: true, adminOnly: true },
  { href: '/admin/users', label: 'Users', profileScoped: false, adminOnly: true },
  { href: '/admin/tokens', label: 'Tokens', profileScoped: false, adminOnly: true },
  { href: '/admin/import', label: 'Import', profileScoped: false, adminOnly: true },
];

export function navFor(role: 'admin' | 'member'): readonly NavItem[] {
  return PRIMARY_NAV.filter((item) => !item.adminOnly || role === 'admin');
}

// The overview (`/`) is active on itself only, not on every path below it.
const within = (pathname: string, href: string) =>
  pathname === href || (href !== '/' && pathname.startsWith(`${href}/`));

export function isActive(item: NavItem, pathname: string): boolean {
  return within(pathname, item.href) || (item.alsoActiveOn ?? []).some((href) => within(pathname, href));
}

/** Query keys a page keeps when the profile changes (filters survive; cursors do not). */
export const PROFILE_SWITCH_KEEPS: Record<string, readonly string[]> = {
  '/': ['period', 'from', 'to', 'tz'],
  '/sessions': [...SESSION_FILTER_KEYS, ...SESSION_VIEW_KEYS],
  '/search': ['q', 'role', 'mode', 'source', 'period', 'from', 'to', 'tz'],
  '/routes': ['limit'],
  '/gateways': ['limit'],
  '/receipts': ['order', 'intent', 'origin', 'limit'],
};
