import { z } from 'zod';
import { IsoDateSchema, ProfileNameSchema } from './common.schema.js';

export const ROLES = ['admin', 'member'] as const;
export const RoleSchema = z.enum(ROLES);
export type Role = z.infer<typeof RoleSchema>;

/** A profile set: explicit names, or `*` for every profile (admins usually). */
export const ProfileSetSchema = z.union([z.literal('*'), z.array(ProfileNameSchema).max(256)]);
export type ProfileSet = z.infer<typeof ProfileSetSchema>;

export const PrincipalSchema = z.object({
  kind: z.enum(['token', 'user', 'system']),
  id: z.string(),
  name: z.string(),
  role: RoleSchema,
  profiles: ProfileSetSchema,
});
export type Principal = z.infer<typeof PrincipalSchema>;

export const LoginRequestSchema = z
  .object({ username: z.string().min(1).max(128), password: z.string().min(1).max(1024) })
  .strict()
  .meta({ examples: [{ username: 'admin', password: 'correct horse battery staple' }] });
export type LoginRequest = z.infer<typeof LoginRequestSchema>;

export const CreateTokenRequestSchema = z
  .object({ name: z.string().min(1).max(128), role: RoleSchema, profiles: ProfileSetSchema })
  .strict();
export type CreateTokenRequest = z.infer<typeof CreateTokenRequestSchema>;

export const ApiTokenSchema = z.object({
  id: z.string(),
  name: z.string(),
  role: RoleSchema,
  profiles: ProfileSetSchema,
  createdAt: IsoDateSchema,
  lastUsedAt: IsoDateSchema.nullable(),
  revokedAt: IsoDateSchema.nullable(),
});
export type ApiToken = z.infer<typeof ApiTokenSchema>;
export const CreatedTokenSchema = z.object({
  id: z.string(),
  token: z.string().describe('shown once; only its hash is stored'),
});
export type CreatedToken = z.infer<typeof CreatedTokenSchema>;

export const CreateUserRequestSchema = z
  .object({
    username: z
      .string()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z0-9._@-]+$/),
    password: z.string().min(8).max(1024),
    role: RoleSchema,
    profiles: ProfileSetSchema,
  })
  .strict();
export type CreateUserRequest = z.infer<typeof CreateUserRequestSchema>;

export const UserSchema = z.object({
  id: z.string(),
  username: z.string(),
  role: RoleSchema,
  profiles: ProfileSetSchema,
  createdAt: IsoDateSchema,
  disabled: z.boolean().describe('a disabled user cannot sign in; disabling ends their dashboard sessions'),
  disabledAt: IsoDateSchema.nullable(),
  lastLoginAt: IsoDateSchema.nullable(),
  activeSessions: z.number().int().describe('dashboard sessions signed in now'),
});
export type User = z.infer<typeof UserSchema>;

/** Admin changes to a user; the last active admin can be neither disabled nor demoted (409). */
export const UpdateUserRequestSchema = z
  .object({
    role: RoleSchema.optional(),
    profiles: ProfileSetSchema.optional(),
    disabled: z.boolean().optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'nothing to update' });
export type UpdateUserRequest = z.infer<typeof UpdateUserRequestSchema>;

/** One signed-in dashboard session of the caller (never its secret). */
export const DashboardSessionSchema = z.object({
  id: z.string().describe('public id (not the cookie secret)'),
  createdAt: IsoDateSchema.describe('when it signed in'),
  lastSeenAt: IsoDateSchema.nullable().describe('last request (updated at most once a minute)'),
  expiresAt: IsoDateSchema,
  userAgent: z.string().nullable(),
  address: z.string().nullable().describe('client address seen at sign-in'),
  current: z.boolean().describe('the session making this request'),
});
export type DashboardSession = z.infer<typeof DashboardSessionSchema>;

export const ChangePasswordRequestSchema = z
  .object({ currentPassword: z.string().min(1).max(1024), newPassword: z.string().min(8).max(1024) })
  .strict();
export type ChangePasswordRequest = z.infer<typeof ChangePasswordRequestSchema>;

/** What signing out every other dashboard session of the caller did. */
export const EndOtherSessionsResponseSchema = z.object({
  ended: z.number().int().describe('dashboard sessions signed out (the one making the request stays signed in)'),
});
export type EndOtherSessionsResponse = z.infer<typeof EndOtherSessionsResponseSchema>;

export const SESSION_COOKIE_NAME = 'statehouse_session';
