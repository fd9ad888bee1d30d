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
import { request, wireQuery } from './client';

/** `/v1/profiles`: the profiles a principal can see, and (administrators) create, rename, delete. */

/** Deduplicated per request (the layout's switcher, the page and its title may all ask). */
export const listProfiles = cache(
  (): Promise<ProfileSummary[]> => request('GET /v1/profiles', ProfileListSchema, (api) => api.GET('/v1/profiles')),
);

export function createProfile(body: CreateProfileRequest): Promise<ProfileSummary> {
  return request('POST /v1/profiles', ProfileSummarySchema, (api) => api.POST('/v1/profiles', { body }));
}

export function renameProfile(
  name: string,
  body: RenameProfileRequest,
  idempotencyKey?: string,
): Promise<RenameProfileResponse> {
  return request('POST /v1/profiles/{name}/rename', RenameProfileResponseSchema, (api) =>
    api.POST('/v1/profiles/{name}/rename', { params: { path: { name } }, body, idempotencyKey }),
  );
}

export function deleteProfile(
  name: string,
  options: { deleteSessions: boolean; dryRun: boolean },
  idempotencyKey?: string,
): Promise<DeleteProfileResponse> {
  return request('DELETE /v1/profiles/{name}', DeleteProfileResponseSchema, (api) =>
    api.DELETE('/v1/profiles/{name}', {
      params: {
        path: { name },
        query: wireQuery({ deleteSessions: options.deleteSessions, dryRun: options.dryRun }),
      },
      idempotencyKey,
    }),
  );
}
