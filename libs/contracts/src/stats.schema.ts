import { z } from 'zod';
import { IsoDateSchema, instantMs, ProfileNameSchema, QueryInstantSchema } from './common.schema.js';
import { isTimeZone, STATS_BUCKET_SIZES } from './stats-period.js';

/**
 * Usage and deletion aggregates for the overview (docs/stats.md). Buckets are hours, or calendar
 * days, weeks (Monday first) or months in a named time zone (UTC by default); a range is widened
 * to bucket boundaries and echoed back as it was used.
 */
export const STATS_BUCKETS = STATS_BUCKET_SIZES;
export const StatsBucketSchema = z.enum(STATS_BUCKETS);
export type StatsBucket = z.infer<typeof StatsBucketSchema>;

/**
 * The longest range one request may cover, per bucket size (bounded work, bounded responses:
 * at most ~750 hours, ~730 days, ~520 weeks or ~1,200 months).
 */
export const STATS_MAX_RANGE_DAYS: Record<StatsBucket, number> = { hour: 31, day: 731, week: 3653, month: 36525 };
/** Without `from`, a range reaches this far back from `to` (default `to`: now). */
export const STATS_DEFAULT_RANGE_DAYS: Record<StatsBucket, number> = { hour: 1, day: 30, week: 182, month: 731 };

export const TimeZoneSchema = z
  .string()
  .min(1)
  .max(64)
  .refine(isTimeZone, { message: 'must be an IANA time zone name (UTC, Europe/Paris)' })
  .describe('IANA time zone name the calendar buckets follow (UTC, Europe/Paris)');
/** Groups beyond this many (largest first) are folded into one group with the key `STATS_OTHER_GROUP`. */
export const STATS_GROUP_LIMIT = 12;
export const STATS_OTHER_GROUP = '(other)';
/** "Active now": open sessions with activity within this window. */
export const ACTIVE_NOW_WINDOW_MINUTES = 15;

export const USAGE_GROUP_BY = ['source', 'profile', 'model'] as const;
export const UsageGroupBySchema = z.enum(USAGE_GROUP_BY);
export type UsageGroupBy = z.infer<typeof UsageGroupBySchema>;

export const DELETION_GROUP_BY = ['origin', 'profile'] as const;
export const DeletionGroupBySchema = z.enum(DELETION_GROUP_BY);
export type DeletionGroupBy = z.infer<typeof DeletionGroupBySchema>;

const DAY_MS = 86_400_000;

/** `from` before `to`, and a span the bucket size allows; both only when both are given (defaults come from the server). */
function checkRange(value: { from?: string; to?: string; bucket?: StatsBucket }, ctx: z.RefinementCtx): void {
  if (value.from === undefined || value.to === undefined) return;
  const from = instantMs(value.from);
  const to = instantMs(value.to);
  if (from >= to) {
    ctx.addIssue({ code: 'custom', path: ['to'], message: '`to` must be after `from`' });
    return;
  }
  const bucket = value.bucket ?? 'day';
  if (to - from > STATS_MAX_RANGE_DAYS[bucket] * DAY_MS) {
    ctx.addIssue({
      code: 'custom',
      path: ['from'],
      message: `a range of ${bucket} buckets may span at most ${STATS_MAX_RANGE_DAYS[bucket]} days`,
    });
  }
}

const rangeFields = {
  from: QueryInstantSchema.optional().describe(
    'start of the range (inclusive; widened to the start of its bucket); default: `to` minus 1 day (hour buckets) or 30 days (day buckets)',
  ),
  to: QueryInstantSchema.optional().describe(
    'end of the range (exclusive; widened to the end of its bucket); default: now',
  ),
  bucket: StatsBucketSchema.default('day').describe(
    'hours, or calendar days, weeks (Monday first) or months in `timeZone`',
  ),
  timeZone: TimeZoneSchema.default('UTC'),
  profile: ProfileNameSchema.optional().describe('one profile (a profile the caller may not read answers as empty)'),
};

export const UsageQuerySchema = z
  .object({ ...rangeFields, groupBy: UsageGroupBySchema.default('source') })
  .superRefine(checkRange);
export type UsageQuery = z.infer<typeof UsageQuerySchema>;

export const DeletionStatsQuerySchema = z
  .object({ ...rangeFields, groupBy: DeletionGroupBySchema.default('origin') })
  .superRefine(checkRange);
export type DeletionStatsQuery = z.infer<typeof DeletionStatsQuerySchema>;

export const StatsSummaryQuerySchema = z
  .object({
    from: rangeFields.from,
    to: rangeFields.to,
    profile: rangeFields.profile,
  })
  // The cards read whole hours, over any range a chart may show (all time included).
  .superRefine((value, ctx) => checkRange({ ...value, bucket: 'month' }, ctx));
export type StatsSummaryQuery = z.infer<typeof StatsSummaryQuerySchema>;

/**
 * What was written in a bucket. `sessions`: session segments started; `conversations`: of those,
 * the ones that begin a conversation of their own (roots, branches, resets — not compression
 * continuations or sub-agent helpers); `messages`: visible messages written by appends and by
 * session creation (copies made by branch or compression are not new messages), by their
 * timestamp; tokens and cost: usage reported with appends, at the time of the append's last
 * message. A deleted session's usage leaves the figures with it.
 */
export const UsageFiguresSchema = z.object({
  conversations: z.number().int(),
  sessions: z.number().int(),
  messages: z.number().int(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  cacheReadTokens: z.number().int(),
  cacheWriteTokens: z.number().int(),
  reasoningTokens: z.number().int(),
  totalTokens: z.number().int().describe('inputTokens + outputTokens (cache and reasoning tokens are reported apart)'),
  costUsd: z.number(),
});
export type UsageFigures = z.infer<typeof UsageFiguresSchema>;

const groupKey = z
  .string()
  .nullable()
  .describe(
    `the source, profile or model; null when no model was recorded; "${STATS_OTHER_GROUP}" for the folded rest`,
  );

export const UsageGroupSchema = UsageFiguresSchema.extend({ key: groupKey });
export type UsageGroup = z.infer<typeof UsageGroupSchema>;

export const UsageBucketSchema = z.object({
  start: IsoDateSchema,
  total: UsageFiguresSchema,
  groups: z.array(UsageGroupSchema).describe('groups with activity in this bucket, in the order of `groups` above'),
});
export type UsageBucket = z.infer<typeof UsageBucketSchema>;

export const UsageResponseSchema = z.object({
  from: IsoDateSchema.describe('the range as used: start of the first bucket'),
  to: IsoDateSchema.describe('end of the last bucket (exclusive)'),
  bucket: StatsBucketSchema,
  timeZone: z.string(),
  groupBy: UsageGroupBySchema,
  profile: z.string().nullable(),
  groups: z
    .array(UsageGroupSchema)
    .describe(
      `every group of the range with its totals, largest first (by messages, then cost); at most ${STATS_GROUP_LIMIT + 1}`,
    ),
  buckets: z.array(UsageBucketSchema).describe('every bucket of the range, oldest first, empty ones included'),
  totals: UsageFiguresSchema,
});
export type UsageResponse = z.infer<typeof UsageResponseSchema>;

/** From the deletion receipts, by the time each deletion committed (kept when receipts are reclaimed). */
export const DeletionFiguresSchema = z.object({
  operations: z.number().int().describe('receipts: one per deletion operation and profile'),
  sessions: z.number().int(),
  messages: z.number().int(),
});
export type DeletionFigures = z.infer<typeof DeletionFiguresSchema>;

export const DeletionGroupSchema = DeletionFiguresSchema.extend({
  key: z.string().describe(`the origin or profile; "${STATS_OTHER_GROUP}" for the folded rest`),
});
export type DeletionGroup = z.infer<typeof DeletionGroupSchema>;

export const DeletionBucketSchema = z.object({
  start: IsoDateSchema,
  total: DeletionFiguresSchema,
  groups: z.array(DeletionGroupSchema),
});
export type DeletionBucket = z.infer<typeof DeletionBucketSchema>;

export const DeletionStatsResponseSchema = z.object({
  from: IsoDateSchema,
  to: IsoDateSchema,
  bucket: StatsBucketSchema,
  timeZone: z.string(),
  groupBy: DeletionGroupBySchema,
  profile: z.string().nullable(),
  groups: z.array(DeletionGroupSchema).describe('largest first (by sessions, then operations)'),
  buckets: z.array(DeletionBucketSchema),
  totals: DeletionFiguresSchema,
});
export type DeletionStatsResponse = z.infer<typeof DeletionStatsResponseSchema>;

/** The overview cards for a period and (optionally) one profile. */
export const StatsSummarySchema = z.object({
  from: IsoDateSchema,
  to: IsoDateSchema,
  profile: z.string().nullable(),
  usage: UsageFiguresSchema,
  deletions: DeletionFiguresSchema,
  activeNow: z.object({
    sessions: z.number().int().describe(`open sessions with activity in the last ${ACTIVE_NOW_WINDOW_MINUTES} minutes`),
    busy: z.number().int().describe('sessions holding a live turn lease'),
    windowMinutes: z.number().int(),
    at: IsoDateSchema,
  }),
});
export type StatsSummary = z.infer<typeof StatsSummarySchema>;

/** Like the summary: whole hours of any range a chart may show. */
export const ReplyLatencyQuerySchema = z
  .object({
    from: rangeFields.from,
    to: rangeFields.to,
    profile: rangeFields.profile,
  })
  .superRefine((value, ctx) => checkRange({ ...value, bucket: 'month' }, ctx));
export type ReplyLatencyQuery = z.infer<typeof ReplyLatencyQuerySchema>;

/** Percentiles of the reply latencies of one group (or all replies) in the period. */
export const ReplyLatencyFiguresSchema = z.object({
  replies: z.number().int().describe('assistant replies with a latency, written in the period'),
  p50Ms: z.number().int().nullable().describe('median latency in milliseconds (null: no replies)'),
  p95Ms: z.number().int().nullable().describe('95th percentile latency in milliseconds (null: no replies)'),
});
export type ReplyLatencyFigures = z.infer<typeof ReplyLatencyFiguresSchema>;

export const ReplyLatencyGroupSchema = ReplyLatencyFiguresSchema.extend({
  key: z
    .string()
    .nullable()
    .describe(`the model or surface; null: no model recorded; "${STATS_OTHER_GROUP}": the groups past the twelfth`),
});
export type ReplyLatencyGroup = z.infer<typeof ReplyLatencyGroupSchema>;

/**
 * How long assistant replies took, per model and per surface, over whole UTC hours of the period
 * (docs/stats.md, "Reply latency"): nearest-rank percentiles read from a histogram, exact when each
 * bucket holds at most two replies or replies of one value, otherwise within its width (about 19 %).
 */
export const ReplyLatencyStatsSchema = z
  .object({
    from: IsoDateSchema,
    to: IsoDateSchema,
    profile: z.string().nullable(),
    overall: ReplyLatencyFiguresSchema,
    byModel: z.array(ReplyLatencyGroupSchema).describe('most replies first'),
    bySource: z.array(ReplyLatencyGroupSchema).describe('most replies first'),
  })
  .meta({
    examples: [
      {
        from: '2026-11-01T00:00:00.000Z',
        to: '2026-12-01T00:00:00.000Z',
        profile: null,
        overall: { replies: 412, p50Ms: 2400, p95Ms: 9100 },
        byModel: [{ key: 'claude-sonnet-4', replies: 412, p50Ms: 2400, p95Ms: 9100 }],
        bySource: [{ key: 'telegram', replies: 412, p50Ms: 2400, p95Ms: 9100 }],
      },
    ],
  });
export type ReplyLatencyStats = z.infer<typeof ReplyLatencyStatsSchema>;

export const StatsExtentQuerySchema = z.object({ profile: rangeFields.profile });
export type StatsExtentQuery = z.infer<typeof StatsExtentQuerySchema>;

/** Where the figures begin and end: what an "all time" range starts from (imported history included). */
export const StatsExtentSchema = z.object({
  profile: z.string().nullable(),
  first: IsoDateSchema.nullable().describe('start of the first UTC day with usage or a deletion; null: none yet'),
  last: IsoDateSchema.nullable().describe('end of the last UTC day with usage or a deletion'),
});
export type StatsExtent = z.infer<typeof StatsExtentSchema>;

/** How far each registered receipt consumer trails the feed (admin). */
export const ReceiptLagSchema = z.object({
  at: IsoDateSchema,
  highWater: z.number().int(),
  floor: z.number().int(),
  consumers: z.array(
    z.object({
      name: z.string(),
      cursor: z.number().int(),
      principal: z.string(),
      updatedAt: IsoDateSchema,
      behind: z.number().int().describe('receipts committed after the acknowledged cursor'),
      oldestPendingAt: IsoDateSchema.nullable().describe('when the oldest receipt it has not acknowledged committed'),
      lagSeconds: z.number().nullable().describe('age of that receipt; null when the consumer is caught up'),
    }),
  ),
});
export type ReceiptLag = z.infer<typeof ReceiptLagSchema>;
