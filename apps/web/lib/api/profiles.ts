import {
  type CreateProfileRequest,
  type DeleteProfileResponse,
  DeleteProfileResponseSchema,
  ProfileListSchema,
  type ProfileSummary,
  ProfileSummarySchema,
  type RenameProfileRequest,
  type RenameProfileResponse,
  RenameProfileResponseSchema,
} from '@statehouse/contracts';
import { cache } from 'react';
import { request } from './client';

/** `/v1/profiles`: the profiles a principal can see, and (administrators) create, rename, delete. */

const profilePath = (name: string) => `/v1/profiles/${encodeURIComponent(name)}`;

/** Deduplicated per request (the layout's switcher, the page and its title may all ask). */
export const listProfiles = cache((): Promise<ProfileSummary[]> => request('/v1/profiles', ProfileListSchema));

export function createProfile(body: CreateProfileRequest): Promise<ProfileSummary> {
  return request('/v1/profiles', ProfileSummarySchema, { method: 'POST', body });
}

export function renameProfile(
  name: string,
  body: RenameProfileRequest,
  idempotencyKey?: string,
): Promise<RenameProfileResponse> {
  return request(`${profilePath(name)}/rename`, RenameProfileResponseSchema, {
    method: 'POST',
    body,
    idempotencyKey,
  });
}

export function deleteProfile(
  name: string,
  options: { deleteSessions: boolean; dryRun: boolean },
  idempotencyKey?: string,
): Promise<DeleteProfileResponse> {
  return request(profilePath(name), DeleteProfileResponseSchema, {
    method: 'DELETE',
    query: { deleteSessions: options.deleteSessions, dryRun: options.dryRun },
    idempotencyKey,
  });
}
