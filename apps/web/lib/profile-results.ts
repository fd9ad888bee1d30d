import type { DeleteProfileResponse, RenameCounts, RetentionPolicy } from '@statehouse/contracts';
import { firstParam, type RawSearchParams } from './paths';

/**
 * Profile rename and delete redirect to a page that shows their outcome (post/redirect/get), so the
 * outcome travels in the URL: small, non-secret counts.
 */
export const RENAME_COUNT_KEYS = [
  'sessions',
  'routes',
  'sessionKeys',
  'origins',
  'conversationGenerations',
  'retentionPolicies',
  'tokens',
  'users',
  'gateways',
  'deliveries',
  'transportProfiles',
  'delegations',
  'schedules',
  'metaEntries',
] as const satisfies readonly (keyof RenameCounts)[];

export const RENAME_COUNT_LABELS: Record<keyof RenameCounts, string> = {
  sessions: 'sessions moved',
  routes: 'routes moved',
  sessionKeys: 'session keys rewritten',
  origins: 'origin objects rewritten',
  conversationGenerations: 'conversation generations moved',
  retentionPolicies: 'retention policies moved',
  tokens: 'API tokens updated',
  users: 'users updated',
  gateways: 'gateways moved',
  deliveries: 'delivery obligations moved',
  transportProfiles: 'transport profiles renamed',
  delegations: 'async delegations moved',
  schedules: 'scheduled wake-ups moved',
  metaEntries: 'key/value entries moved',
};

const count = (params: RawSearchParams, key: string) => {
  const value = Number(firstParam(params[key]));
  return Number.isInteger(value) && value >= 0 ? value : 0;
};

export function renamedHref(newName: string, oldName: string, counts: RenameCounts): string {
  const params = new URLSearchParams({ renamedFrom: oldName });
  for (const key of RENAME_COUNT_KEYS) params.set(key, String(counts[key]));
  return `/profiles/${encodeURIComponent(newName)}?${params.toString()}`;
}

export function parseRenamed(params: RawSearchParams): { from: string; counts: RenameCounts } | null {
  const from = firstParam(params.renamedFrom);
  if (!from) return null;
  const counts = Object.fromEntries(RENAME_COUNT_KEYS.map((key) => [key, count(params, key)])) as RenameCounts;
  return { from, counts };
}

const DELETE_COUNT_KEYS = ['routes', 'tokens', 'users', 'retentionPolicies', 'sessions', 'messages'] as const;

export function deletedHref(name: string, result: DeleteProfileResponse): string {
  const params = new URLSearchParams({ deleted: name, profileRemoved: String(result.profileRemoved) });
  for (const key of DELETE_COUNT_KEYS) params.set(key, String(result.counts[key]));
  if (result.receipt) params.set('receipt', result.receipt.operationId);
  return `/profiles?${params.toString()}`;
}

export function parseDeleted(params: RawSearchParams) {
  const name = firstParam(params.deleted);
  if (!name) return null;
  return {
    name,
    profileRemoved: firstParam(params.profileRemoved) === 'true',
    receipt: firstParam(params.receipt) ?? null,
    counts: Object.fromEntries(DELETE_COUNT_KEYS.map((key) => [key, count(params, key)])) as Record<
      (typeof DELETE_COUNT_KEYS)[number],
      number
    >,
  };
}

/** A profile's retention in days; `null` keeps its sessions until deleted. */
export const retentionDaysOf = (policies: RetentionPolicy[], name: string): number | null =>
  policies.find((policy) => policy.profile === name)?.retentionDays ?? null;
