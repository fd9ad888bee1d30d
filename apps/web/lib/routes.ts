import 'server-only';
import type { Route } from '@statehouse/contracts';
import { listRoutes } from '@/lib/api';

/**
 * How many routes a profile has, by paging the keyset listing (there is no count endpoint). Bounded:
 * past `cap` the answer says "at least".
 */
export interface RouteCount {
  count: number;
  /** More routes exist than were counted (`count` is a lower bound). */
  capped: boolean;
  /** The first few, e.g. to show how a rename rewrites keys. */
  sample: Route[];
}

export async function countRoutes(profile: string, cap = 1000): Promise<RouteCount> {
  let cursor: string | undefined;
  let count = 0;
  const sample: Route[] = [];
  do {
    const page = await listRoutes({ profile, limit: 200, cursor });
    count += page.items.length;
    if (sample.length < 3) sample.push(...page.items.slice(0, 3 - sample.length));
    cursor = page.nextCursor ?? undefined;
  } while (cursor && count < cap);
  return { count, capped: Boolean(cursor), sample };
}
