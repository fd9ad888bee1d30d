import { z } from 'zod';
import { IsoDateSchema, ProfileNameSchema } from './common.schema.js';

export const ProfileSummarySchema = z.object({
  name: ProfileNameSchema,
  sessionCount: z.number().int(),
  messageCount: z.number().int(),
  routeCount: z.number().int(),
  lastActiveAt: IsoDateSchema.nullable(),
});
export type ProfileSummary = z.infer<typeof ProfileSummarySchema>;
export const ProfileListSchema = z.array(ProfileSummarySchema);

export const CreateProfileRequestSchema = z.object({ name: ProfileNameSchema }).strict();
export type CreateProfileRequest = z.infer<typeof CreateProfileRequestSchema>;
