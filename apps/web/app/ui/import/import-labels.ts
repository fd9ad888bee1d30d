import type { ImportPhase, ImportState } from '@statehouse/contracts';
import type { BadgeTone } from '@/app/ui/common';

/** How an import's phases and states read for people. */
export const PHASE_LABELS: Record<ImportPhase, string> = {
  receiving: 'Receiving the file',
  reading: 'Reading the file',
  planning: 'Planning lineage',
  sessions: 'Importing sessions',
  routes: 'Importing routes',
  generations: 'Importing conversation generations',
  runtime: 'Importing delegations and owed deliveries',
  done: 'Done',
};

export const STATE_LABELS: Record<ImportState, string> = {
  running: 'Running',
  succeeded: 'Finished',
  failed: 'Failed',
  interrupted: 'Interrupted',
};

export const STATE_TONES: Record<ImportState, BadgeTone> = {
  running: 'info',
  succeeded: 'success',
  failed: 'danger',
  interrupted: 'warning',
};

/** Conflicts are warnings the importer starts with `conflict:`; the page lists them on their own. */
export function splitWarnings(warnings: readonly string[]): { conflicts: string[]; others: string[] } {
  const conflicts = warnings.filter((warning) => warning.startsWith('conflict: '));
  return { conflicts, others: warnings.filter((warning) => !warning.startsWith('conflict: ')) };
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
