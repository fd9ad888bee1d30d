import { z } from 'zod';
import { IdSchema, IsoDateSchema, ProfileNameSchema } from './common.schema.js';
import { LineageKindSchema } from './lineage.schema.js';

/** Authored by the server for each deletion path (docs/domain.md §5.1) — never by a client. */
export const DELETION_ORIGINS = [
  'user_api',
  'user_dashboard',
  'empty_discard',
  'empty_sweep',
  'retention',
  'ghost_prune',
  'never_active_prune',
  'profile_delete',
  'profile_repair',
  'import_replace',
] as const;
export const DeletionOriginSchema = z.enum(DELETION_ORIGINS);
export type DeletionOrigin = z.infer<typeof DeletionOriginSchema>;

/** Only `explicit_user` authorizes external cleanup (deleting a user's files elsewhere). */
export const DELETION_INTENTS = ['explicit_user', 'maintenance'] as const;
export const DeletionIntentSchema = z.enum(DELETION_INTENTS);
export type DeletionIntent = z.infer<typeof DeletionIntentSchema>;

export const DELETION_REASONS = [
  'user',
  'empty',
  'empty_sweep',
  'prune',
  'ghost_prune',
  'profile_delete',
  'profile_repair',
  'import_replace',
] as const;
export const DeletionReasonSchema = z.enum(DELETION_REASONS);
export type DeletionReason = z.infer<typeof DeletionReasonSchema>;

export const IDENTITY_ROLES = ['selected', 'delegate_cascade', 'chain_member'] as const;

/** Exactly these fields per removed session: routing identity and lineage, no content. */
export const ReceiptIdentitySchema = z.object({
  id: z.string(),
  profile: z.string(),
  source: z.string(),
  createdSource: z.string(),
  sessionKey: z.string().nullable(),
  chatId: z.string().nullable(),
  chatType: z.string().nullable(),
  threadId: z.string().nullable(),
  parentSessionId: z.string().nullable(),
  lineageKind: LineageKindSchema.nullable(),
  role: z.enum(IDENTITY_ROLES),
});
export type ReceiptIdentity = z.infer<typeof ReceiptIdentitySchema>;

export const ReceiptCountsSchema = z.object({
  sessions: z.number().int(),
  messages: z.number().int(),
  routes: z.number().int(),
  deliveries: z
    .number()
    .int()
    .optional()
    .describe('pending delivery obligations of the removed sessions, marked abandoned (receipts since gateways)'),
  delegations: z
    .number()
    .int()
    .optional()
    .describe(
      'async delegations not yet delivered whose origin (now abandoned) or child (now failed) was removed (receipts since delegations)',
    ),
});
export type ReceiptCounts = z.infer<typeof ReceiptCountsSchema>;

export const DeletionReceiptSchema = z.object({
  sequence: z.number().int(),
  operationId: z.string(),
  origin: DeletionOriginSchema,
  intent: DeletionIntentSchema,
  reason: DeletionReasonSchema,
  profile: z.string(),
  actor: z.object({ kind: z.string(), id: z.string() }),
  createdAt: IsoDateSchema,
  counts: ReceiptCountsSchema,
  identities: z.array(ReceiptIdentitySchema),
  prevHash: z.string(),
  hash: z.string().describe('sha256(prevHash + canonical JSON of the receipt without its hashes)'),
});
export type DeletionReceipt = z.infer<typeof DeletionReceiptSchema>;

export const ReceiptRefSchema = z.object({ sequence: z.number().int(), operationId: z.string() });
export type ReceiptRef = z.infer<typeof ReceiptRefSchema>;

/**
 * The store epoch (docs/domain.md §5.3.6): names the timeline receipt sequences belong to. A restore
 * of a backup starts a new one, since it issues again sequences consumers may have seen.
 */
export const StoreEpochSchema = z.string().min(1).max(64);

export const RECEIPT_ORDERS = ['oldest', 'newest'] as const;

export const ReceiptListQuerySchema = z.object({
  after: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  order: z
    .enum(RECEIPT_ORDERS)
    .optional()
    .describe(
      'oldest (default): replay in sequence order after `after`; newest: the latest first, below `before` (a reading view, not a replay)',
    ),
  before: z.coerce
    .number()
    .int()
    .min(1)
    .optional()
    .describe(
      "with order=newest: receipts below this sequence (the previous page's `nextCursor`); default: from the latest",
    ),
  intent: DeletionIntentSchema.optional(),
  origin: DeletionOriginSchema.optional(),
  profile: ProfileNameSchema.optional(),
  epoch: StoreEpochSchema.optional().describe(
    'the store epoch the cursor was read in (from a page or a bookmark): another epoch answers 410 epoch_changed',
  ),
});
export type ReceiptListQuery = z.infer<typeof ReceiptListQuerySchema>;

export const ReceiptPageSchema = z.object({
  items: z.array(DeletionReceiptSchema),
  nextCursor: z
    .string()
    .nullable()
    .describe('the next page (a sequence): its `after` (oldest first) or its `before` (newest first); null at the end'),
  highWater: z.number().int().describe('the highest sequence written so far (for a member: within its own profiles)'),
  floor: z
    .number()
    .int()
    .describe('receipts at or below this sequence were reclaimed (for a member: of its own profiles)'),
  epoch: StoreEpochSchema.describe(
    'the store epoch: sequences are a timeline of this epoch; a restore starts another (keep it with the cursor, send it back as `epoch`)',
  ),
});
export type ReceiptPage = z.infer<typeof ReceiptPageSchema>;

export const ReceiptWatchQuerySchema = z.object({
  after: z.coerce.number().int().min(0).default(0),
  bookmarkSeconds: z.coerce.number().int().min(1).max(15).default(15).describe('idle bookmark interval'),
  intent: DeletionIntentSchema.optional(),
  origin: DeletionOriginSchema.optional(),
  profile: ProfileNameSchema.optional(),
  epoch: StoreEpochSchema.optional().describe(
    'the store epoch the cursor was read in (from a page or a bookmark): another epoch answers 410 epoch_changed',
  ),
});
export type ReceiptWatchQuery = z.infer<typeof ReceiptWatchQuerySchema>;

/** `bookmark` event of the receipt watch: the stream is idle; resume after `highWater`. */
export const ReceiptBookmarkEventSchema = z.object({
  highWater: z.number().int().describe('the highest sequence the stream has covered (its event id)'),
});
/** `expired` event of the receipt watch: the cursor fell below the reclaimed floor; the stream ends. */
export const ReceiptExpiredEventSchema = z.object({
  floor: z.number().int().describe('receipts at or below this sequence were reclaimed: resync, then resume'),
  code: z.literal('cursor_expired'),
});

/**
 * `Last-Event-ID` as an EventSource sends it on reconnect: a sequence the stream sent (a
 * non-negative safe integer). Empty means none; anything else is refused, never guessed at.
 */
export const LastEventIdSchema = z
  .string()
  .max(16)
  .regex(/^\d*$/, 'must be a receipt sequence')
  .transform((value) => (value === '' ? undefined : Number(value)))
  .refine((value) => value === undefined || Number.isSafeInteger(value), 'must be a safe integer');

export const ReclaimRequestSchema = z
  .object({ throughSequence: z.number().int().min(0), mode: z.enum(['safe', 'force']).default('safe') })
  .strict();
export type ReclaimRequest = z.infer<typeof ReclaimRequestSchema>;
export const ReclaimResponseSchema = z.object({
  reclaimed: z.number().int(),
  floor: z.number().int(),
  limitedBy: z.string().nullable().describe('the consumer whose acknowledgement held safe reclamation back'),
});
export type ReclaimResponse = z.infer<typeof ReclaimResponseSchema>;

export const ConsumerNameSchema = z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/);
export const ConsumerAckRequestSchema = z
  .object({
    cursor: z.number().int().min(0),
    epoch: StoreEpochSchema.optional().describe(
      'the epoch the cursor was read in: another epoch answers 410 epoch_changed (the consumer must resync)',
    ),
  })
  .strict();
export type ConsumerAckRequest = z.infer<typeof ConsumerAckRequestSchema>;
export const ReceiptConsumerSchema = z.object({
  name: z.string(),
  cursor: z.number().int(),
  epoch: z
    .string()
    .nullable()
    .describe(
      'the store epoch the cursor was acknowledged in (another than the current: acknowledged before a restore)',
    ),
  principal: z.string().describe('the principal that acknowledged last (`kind:id`)'),
  updatedAt: IsoDateSchema,
  createdBy: z.string().describe('the principal that registered the consumer (`kind:id`)'),
  createdAt: IsoDateSchema,
});
export type ReceiptConsumer = z.infer<typeof ReceiptConsumerSchema>;

export const VerifyResponseSchema = z.object({
  ok: z.boolean(),
  checked: z.number().int(),
  firstBadSequence: z.number().int().optional(),
});
export type VerifyResponse = z.infer<typeof VerifyResponseSchema>;

// ---- deleting ---------------------------------------------------------------------------------

export const DeleteSessionQuerySchema = z.object({
  includeCompressionChain: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((value) => value === 'true' || value === '1'),
  ifEmpty: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((value) => value === 'true' || value === '1'),
});
export type DeleteSessionQuery = z.infer<typeof DeleteSessionQuerySchema>;

export const DeleteSessionResponseSchema = z.object({
  deletedIds: z.array(z.string()),
  receipt: ReceiptRefSchema.nullable(),
});
export type DeleteSessionResponse = z.infer<typeof DeleteSessionResponseSchema>;

export const BULK_DELETE_MAX = 500;
export const BulkDeleteRequestSchema = z
  .object({
    items: z
      .array(z.object({ id: IdSchema, revision: z.number().int(), generation: z.number().int() }).strict())
      .min(1)
      .max(BULK_DELETE_MAX),
    includeCompressionChain: z.boolean().default(false),
  })
  .strict();
export type BulkDeleteRequest = z.infer<typeof BulkDeleteRequestSchema>;

export const SKIP_REASONS = ['not_found', 'busy', 'revision_conflict', 'stale_generation'] as const;
export const BulkDeleteResponseSchema = z.object({
  deletedIds: z.array(z.string()),
  skippedIds: z.array(z.string()),
  skipped: z.array(z.object({ id: z.string(), reason: z.enum(SKIP_REASONS) })),
  receipt: ReceiptRefSchema.nullable().describe('the receipt (the first one when the selection spans profiles)'),
  receipts: z.array(ReceiptRefSchema).describe('one receipt per profile touched'),
});
export type BulkDeleteResponse = z.infer<typeof BulkDeleteResponseSchema>;

export const DeletePreviewRequestSchema = z
  .object({ ids: z.array(IdSchema).min(1).max(BULK_DELETE_MAX), includeCompressionChain: z.boolean().default(false) })
  .strict();
export type DeletePreviewRequest = z.infer<typeof DeletePreviewRequestSchema>;

export const DeletePreviewSchema = z.object({
  sessions: z.array(
    z.object({
      id: z.string(),
      role: z.enum(IDENTITY_ROLES),
      profile: z.string(),
      title: z.string().nullable(),
      preview: z.string().nullable(),
      lineageKind: LineageKindSchema.nullable(),
      parentSessionId: z.string().nullable(),
      messageCount: z.number().int(),
      busy: z.boolean(),
      revision: z
        .number()
        .int()
        .describe('present it back (bulk-delete items, If-Match) so nothing changed is deleted unseen'),
      generation: z.number().int(),
    }),
  ),
  orphaned: z
    .array(z.object({ id: z.string(), lineageKind: LineageKindSchema.nullable() }))
    .describe('children that stay, as roots'),
  missingIds: z.array(z.string()),
  counts: ReceiptCountsSchema.describe(
    'exactly what the receipt of this deletion would count now: every message row (hidden and rewound ones included), routes, delivery obligations it would abandon',
  ),
});
export type DeletePreview = z.infer<typeof DeletePreviewSchema>;

// ---- maintenance and retention ----------------------------------------------------------------

export const RetentionPruneRequestSchema = z
  .object({
    olderThanDays: z.number().int().min(0, 'a retention window cannot be negative').max(36_500),
    profile: ProfileNameSchema.optional(),
    source: z.string().max(64).optional(),
    dryRun: z.boolean().default(false),
  })
  .strict();
export type RetentionPruneRequest = z.infer<typeof RetentionPruneRequestSchema>;

export const DryRunRequestSchema = z.object({ dryRun: z.boolean().default(false) }).strict();
export type DryRunRequest = z.infer<typeof DryRunRequestSchema>;

/** A maintenance pass over every profile, or over one. */
export const MaintenanceRequestSchema = z
  .object({
    dryRun: z.boolean().default(false),
    profile: ProfileNameSchema.optional().describe('only this profile’s sessions (default: every profile)'),
  })
  .strict();
export type MaintenanceRequest = z.infer<typeof MaintenanceRequestSchema>;

export const SearchOptimizeRequestSchema = z
  .object({
    vacuum: z.boolean().default(false).describe('SQLite: also return free pages to the file system'),
  })
  .strict();
export type SearchOptimizeRequest = z.infer<typeof SearchOptimizeRequestSchema>;
export const SearchOptimizeResultSchema = z.object({
  indexes: z.number().int().describe('search indexes optimized (0 while a rebuild runs)'),
  mergeSteps: z.number().int(),
  pagesFreed: z.number().int(),
});
export type SearchOptimizeResult = z.infer<typeof SearchOptimizeResultSchema>;

export const NeverActivePruneRequestSchema = z
  .object({ olderThanDays: z.number().int().min(0).max(36_500), dryRun: z.boolean().default(false) })
  .strict();
export type NeverActivePruneRequest = z.infer<typeof NeverActivePruneRequestSchema>;

export const MaintenanceResultSchema = z.object({
  dryRun: z.boolean(),
  candidates: z.array(z.string()).describe('what would be (or was) removed, selected roots and cascades'),
  deletedIds: z.array(z.string()),
  receipt: ReceiptRefSchema.nullable(),
  receipts: z.array(ReceiptRefSchema),
});
export type MaintenanceResult = z.infer<typeof MaintenanceResultSchema>;

export const RetentionPolicySchema = z.object({ profile: z.string(), retentionDays: z.number().int().nullable() });
export type RetentionPolicy = z.infer<typeof RetentionPolicySchema>;
export const PutRetentionPolicyRequestSchema = z
  .object({ retentionDays: z.number().int().min(0, 'a retention window cannot be negative').max(36_500).nullable() })
  .strict();
export type PutRetentionPolicyRequest = z.infer<typeof PutRetentionPolicyRequestSchema>;

export const ProfileParamSchema = ProfileNameSchema;
