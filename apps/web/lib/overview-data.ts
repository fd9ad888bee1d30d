import 'server-only';
import type { DeletionGroupBy, StatsBucket, UsageGroupBy } from '@statehouse/contracts';
import { cache } from 'react';
import { getDeletionStats, getStatsSummary, getUsage } from '@/lib/api';
import { attempt } from '@/lib/attempt';
import type { OverviewRange } from './overview';

/**
 * The overview's API calls, once per request each: several cards and charts read the same answer
 * (messages and conversations both come from usage by source). Arguments are primitives so
 * React's `cache` can key them.
 */
const usage = cache(
  (
    from: string,
    to: string,
    bucket: StatsBucket,
    timeZone: string,
    profile: string | undefined,
    groupBy: UsageGroupBy,
  ) => attempt(() => getUsage({ from, to, bucket, timeZone, profile, groupBy })),
);
const deletions = cache(
  (
    from: string,
    to: string,
    bucket: StatsBucket,
    timeZone: string,
    profile: string | undefined,
    groupBy: DeletionGroupBy,
  ) => attempt(() => getDeletionStats({ from, to, bucket, timeZone, profile, groupBy })),
);
const summary = cache((from: string, to: string, profile: string | undefined) =>
  attempt(() => getStatsSummary({ from, to, profile })),
);

export const loadUsage = (range: OverviewRange, groupBy: UsageGroupBy) =>
  usage(range.from, range.to, range.bucket, range.timeZone, range.profile, groupBy);
export const loadDeletions = (range: OverviewRange, groupBy: DeletionGroupBy) =>
  deletions(range.from, range.to, range.bucket, range.timeZone, range.profile, groupBy);
export const loadSummary = (range: OverviewRange) => summary(range.from, range.to, range.profile);
