import type { DeletePreview } from '@statehouse/contracts';
import { firstParam, type RawSearchParams, safeNextPath } from './paths';

/** The identity roles of a deletion (receipts and previews), in the words the dashboard uses. */
export const ROLE_LABELS: Record<DeletePreview['sessions'][number]['role'], { label: string; description: string }> = {
  selected: { label: 'selected', description: 'What you chose to delete' },
  chain_member: {
    label: 'chain member',
    description: 'Other compression segments of the same conversation, deleted with it (no resurrection)',
  },
  delegate_cascade: {
    label: 'delegate cascade',
    description: 'Sub-agent sessions, always deleted with the session that spawned them',
  },
};

export const SKIP_REASON_LABELS: Record<string, string> = {
  not_found: 'not found — already deleted, or outside your profiles',
  busy: 'busy — an agent turn is running',
  revision_conflict: 'changed after the preview',
  stale_generation: 'a new agent turn began after the preview',
};

/** `ids` from the URL (repeated, or comma-free single values), trimmed and de-duplicated in order. */
export function idsFrom(searchParams: RawSearchParams, key = 'ids'): string[] {
  const raw = searchParams[key];
  const values = Array.isArray(raw) ? raw : raw ? [raw] : [];
  return [...new Set(values.map((value) => value.trim()).filter(Boolean))];
}

export function backFrom(searchParams: RawSearchParams): string {
  return safeNextPath(firstParam(searchParams.back), '/sessions');
}

/**
 * The result page of a deletion: receipts by operation id, skipped ids with reasons ("reason:id").
 * How many sessions went is read from the receipts themselves, never from the URL (anyone can edit
 * a link, and the page must not claim a deletion the receipts do not prove).
 */
export function deletionDoneHref(result: {
  receipts: string[];
  skipped: { id: string; reason: string }[];
  back: string;
}): string {
  const params = new URLSearchParams();
  for (const receipt of result.receipts) params.append('receipt', receipt);
  for (const skip of result.skipped) params.append('skipped', `${skip.reason}:${skip.id}`);
  params.set('back', result.back);
  return `/delete/done?${params.toString()}`;
}

export function parseSkipped(searchParams: RawSearchParams): { id: string; reason: string }[] {
  return idsFrom(searchParams, 'skipped').flatMap((value) => {
    const separator = value.indexOf(':');
    if (separator <= 0) return [];
    return [{ reason: value.slice(0, separator), id: value.slice(separator + 1) }];
  });
}

export const previewHref = (ids: string[], back: string) => {
  const params = new URLSearchParams();
  for (const id of ids) params.append('ids', id);
  params.set('back', back);
  return `/delete?${params.toString()}`;
};
