/**
 * Primary navigation. New sections (Lineage, Receipts, Profiles, Routes) are one entry here plus a
 * route folder under app/(dashboard)/; the header, active state and profile switcher follow.
 */
export interface NavItem {
  href: string;
  label: string;
  /**
   * The page lists things by profile: switching profile stays on it (with `?profile=`). Other pages
   * (a single session) switch to the sessions list of the chosen profile.
   */
  profileScoped: boolean;
}

export const PRIMARY_NAV: readonly NavItem[] = [
  { href: '/sessions', label: 'Sessions', profileScoped: true },
  { href: '/search', label: 'Search', profileScoped: true },
  // Planned: { href: '/receipts', label: 'Receipts', profileScoped: true },
  //          { href: '/profiles', label: 'Profiles', profileScoped: false },
  //          { href: '/routes', label: 'Routes', profileScoped: true },
];

export function isActive(item: NavItem, pathname: string): boolean {
  return pathname === item.href || pathname.startsWith(`${item.href}/`);
}

/** Query keys a page keeps when the profile changes (filters survive; cursors do not). */
export const PROFILE_SWITCH_KEEPS: Record<string, readonly string[]> = {
  '/sessions': ['source', 'status', 'archived', 'q', 'order', 'includeChildren', 'limit'],
  '/search': ['q', 'role', 'mode', 'source'],
};
