import type { UpdateResult } from 'kysely';

/**
 * Runs a compare-and-set UPDATE: true when it changed the one row its WHERE clause names (the
 * claim was taken, the report settled it), false when the row was not in the state it asked for.
 */
export async function updatedOne(update: { executeTakeFirst(): Promise<UpdateResult> }): Promise<boolean> {
  const result = await update.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
