import type { Executor } from '../db/database.js';
import { LabelRepository } from '../repositories/label.repository.js';

const labels = new LabelRepository();

/** The name as labels compare it: one label per profile for `Urgent` and `urgent` (labels.name-unique). */
export const labelKey = (name: string) => name.normalize('NFKC').toLowerCase();

/**
 * A `label` filter of the session list or of search, resolved: for each name, its label in every
 * profile in reach (names are per profile, so across profiles a name means each profile's label
 * of that name). A name no profile has resolves to an empty set, which matches nothing.
 */
export async function labelIdSets(
  db: Executor,
  profiles: readonly string[] | null,
  names: readonly string[],
): Promise<string[][]> {
  const keys = [...new Set(names.map(labelKey))];
  const rows = await labels.idsByKeys(db, profiles, keys);
  return keys.map((key) => rows.filter((row) => row.name_key === key).map((row) => row.id));
}
