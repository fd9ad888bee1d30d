import { sql } from 'kysely';
import type { Executor } from '../db/database.js';
import { bucketOf, HOUR_MS } from './usage-rollup.repository.js';

export interface DeletionCounters {
  operations: number;
  sessions: number;
  messages: number;
}

export const ZERO_DELETIONS: DeletionCounters = { operations: 0, sessions: 0, messages: 0 };

export interface DeletionRow extends DeletionCounters {
  bucket: number;
  key: string;
}

/**
 * Receipts counted per UTC hour, profile and origin, written with each receipt in the deleting
 * transaction; reclaiming receipts leaves these counts (the chart keeps its history).
 */
export class DeletionRollupRepository {
  async record(
    db: Executor,
    receipt: { createdAt: number; profile: string; origin: string; sessions: number; messages: number },
  ): Promise<void> {
    await db
      .insertInto('deletion_rollups')
      .values({
        hour_start: receipt.createdAt - (receipt.createdAt % HOUR_MS),
        profile: receipt.profile,
        origin: receipt.origin,
        operations: 1,
        sessions: receipt.sessions,
        messages: receipt.messages,
      })
      .onConflict((oc) =>
        oc.columns(['hour_start', 'profile', 'origin']).doUpdateSet((eb) => ({
          operations: eb('deletion_rollups.operations', '+', 1),
          sessions: eb('deletion_rollups.sessions', '+', eb.ref('excluded.sessions')),
          messages: eb('deletion_rollups.messages', '+', eb.ref('excluded.messages')),
        })),
      )
      .execute();
  }

  /** The first and last hour with a deletion counted. */
  async extent(db: Executor, profiles: string[] | null): Promise<{ first: number; last: number } | undefined> {
    if (profiles !== null && profiles.length === 0) return undefined;
    let query = db
      .selectFrom('deletion_rollups')
      .select((eb) => [eb.fn.min<number>('hour_start').as('first'), eb.fn.max<number>('hour_start').as('last')]);
    if (profiles !== null) query = query.where('profile', 'in', profiles);
    const row = await query.executeTakeFirst();
    if (row?.first === null || row?.first === undefined) return undefined;
    return { first: Number(row.first), last: Number(row.last) };
  }

  /**
   * Counts per bucket and group: `starts` are the buckets' starts, ascending (an hour at or after a
   * start and before the next one is in the start's bucket); without them, per hour.
   */
  async buckets(
    db: Executor,
    range: { from: number; to: number; profiles: string[] | null },
    dimension: 'origin' | 'profile',
    starts?: readonly number[],
  ): Promise<DeletionRow[]> {
    if (range.profiles !== null && range.profiles.length === 0) return [];
    const bucket = starts ? bucketOf('hour_start', starts) : sql<number>`hour_start`;
    let query = db
      .selectFrom('deletion_rollups')
      .select((eb) => [
        bucket.as('bucket'),
        eb.ref(dimension).as('key'),
        eb.fn.sum<number>('operations').as('operations'),
        eb.fn.sum<number>('sessions').as('sessions'),
        eb.fn.sum<number>('messages').as('messages'),
      ])
      .where('hour_start', '>=', range.from)
      .where('hour_start', '<', range.to);
    if (range.profiles !== null) query = query.where('profile', 'in', range.profiles);
    const rows = await query.groupBy([bucket, dimension]).execute();
    return rows.map((row) => ({
      bucket: Number(row.bucket),
      key: String(row.key),
      operations: Number(row.operations),
      sessions: Number(row.sessions),
      messages: Number(row.messages),
    }));
  }
}
