import type { HermesSplitTuning } from '../importers/import.service.js';
import type { TestStore } from './index.js';
import { adminPrincipal, contextOf } from './principals.js';

/** No session split: each one imported in a single transaction, whatever its size (the reference run). */
export const UNSPLIT: HermesSplitTuning = { splitSessionsAbove: 1_000_000_000 };

export interface HermesImportRun {
  path: string;
  profile: string;
  split?: HermesSplitTuning;
  onConflict?: 'skip' | 'replace';
  dryRun?: boolean;
}

/** A Hermes import into `t` as the admin: a real run that skips conflicts unless `run` says otherwise. */
export function importHermes(t: TestStore, run: HermesImportRun) {
  return t.store.imports.runHermes(contextOf(adminPrincipal), { onConflict: 'skip', dryRun: false, ...run });
}
