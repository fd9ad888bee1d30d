import { z } from 'zod';
import { CursorSchema, IsoDateSchema, ProfileNameSchema } from './common.schema.js';

export const ProfileSummarySchema = z.object({
  name: ProfileNameSchema,
  sessionCount: z
    .number()
    .int()
    .describe('every session row of the profile (segments, sub-agents and archived included)'),
  conversationCount: z
    .number()
    .int()
    .describe(
      'what the sessions list shows by default: conversations at their tip, without sub-agents or archived ones',
    ),
  messageCount: z.number().int(),
  routeCount: z.number().int(),
  lastActiveAt: IsoDateSchema.nullable(),
});
export type ProfileSummary = z.infer<typeof ProfileSummarySchema>;
export const ProfileListSchema = z.array(ProfileSummarySchema);

export const CreateProfileRequestSchema = z.object({ name: ProfileNameSchema }).strict();
export type CreateProfileRequest = z.infer<typeof CreateProfileRequestSchema>;

// ---- the profile's key/value store (docs/domain.md §12) ------------------------------------------

export const META_KEY_MAX = 256;
export const META_VALUE_MAX = 65_536;
export const META_ENTRIES_MAX = 10_000;
/** Keys are printable text (no control characters), 1..256 characters. */
export const MetaKeySchema = z
  .string()
  .min(1)
  .max(META_KEY_MAX)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters (newline aside) are what is refused.
  .regex(/^[^\u0000-\u0009\u000B-\u001F\u007F]+$/, 'printable text (a newline is allowed)');

export const MetaEntrySchema = z.object({
  key: z.string(),
  value: z.string(),
  updatedAt: IsoDateSchema,
});
export type MetaEntry = z.infer<typeof MetaEntrySchema>;

export const PutMetaRequestSchema = z
  .object({
    value: z.string().max(META_VALUE_MAX),
    ifValue: z
      .string()
      .nullable()
      .optional()
      .describe(
        'compare-and-set: write only while the stored value is this one (null: only while there is none); else 409 conflict',
      ),
  })
  .strict();
export type PutMetaRequest = z.infer<typeof PutMetaRequestSchema>;

export const DeleteMetaQuerySchema = z.object({
  ifValue: z
    .string()
    .max(META_VALUE_MAX)
    .optional()
    .describe('delete only while the stored value is this one (else 409)'),
});
export type DeleteMetaQuery = z.infer<typeof DeleteMetaQuerySchema>;

export const ListMetaQuerySchema = z.object({
  prefix: z.string().max(META_KEY_MAX).optional().describe('only keys starting with this (exactly)'),
  limit: z.coerce.number().int().min(1).max(1000).default(200),
  cursor: CursorSchema.optional(),
});
export type ListMetaQuery = z.infer<typeof ListMetaQuerySchema>;
export const MetaPageSchema = z.object({ items: z.array(MetaEntrySchema), nextCursor: z.string().nullable() });
export type MetaPage = z.infer<typeof MetaPageSchema>;
