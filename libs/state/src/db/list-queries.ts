import { type Expression, type ExpressionBuilder, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';

/** Which profiles' rows a list reads: the principal's (`profiles`: null for every one), one, one session's. */
export interface ProfileScope {
  profiles: string[] | null;
  profile?: string;
  sessionId?: string;
}

/**
 * A list's rows of the profiles a principal may see (`profiles`: null for every one), of one
 * profile and one session when named. Null when the principal sees no profile: nothing to read.
 */
export function scopedToProfiles<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  filter: ProfileScope,
): SelectQueryBuilder<DB, TB, O> | null {
  if (filter.profiles !== null && filter.profiles.length === 0) return null;
  if (filter.profiles !== null) query = query.where(sql.ref('profile'), 'in', filter.profiles);
  if (filter.profile) query = query.where(sql.ref('profile'), '=', filter.profile);
  if (filter.sessionId) query = query.where(sql.ref('session_id'), '=', filter.sessionId);
  return query;
}

/**
 * Keyset pagination: the rows past `after`, the (first, second) key of the last row of the previous
 * page, in the order of `columns` — `>` ascending, `<` descending.
 */
export function keysetAfter(
  [first, second]: readonly [string, string],
  [firstKey, secondKey]: readonly [string | number, string | number],
  direction: '>' | '<',
) {
  return <DB, TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>): Expression<SqlBool> =>
    eb.or([
      eb(sql.ref(first), direction, firstKey),
      eb.and([eb(sql.ref(first), '=', firstKey), eb(sql.ref(second), direction, secondKey)]),
    ]);
}
