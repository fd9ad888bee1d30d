import type { Principal } from '@statehouse/contracts';
import { ForbiddenError } from './errors.js';

/**
 * The owner fence (docs/domain.md §9): a member sees and mutates only its profiles; anything else is
 * indistinguishable from a missing row.
 */
export function canAccessProfile(principal: Principal, profile: string): boolean {
  return principal.profiles === '*' || principal.profiles.includes(profile);
}

/** `null` = every profile; otherwise the list a query must be limited to. */
export function profileScope(principal: Principal): string[] | null {
  return principal.profiles === '*' ? null : principal.profiles;
}

export function assertAdmin(principal: Principal): void {
  if (principal.role !== 'admin') throw new ForbiddenError();
}

export const SYSTEM_PRINCIPAL: Principal = {
  kind: 'system',
  id: 'system',
  name: 'system',
  role: 'admin',
  profiles: '*',
};

export const principalKey = (principal: Principal) => `${principal.kind}:${principal.id}`;
