import { type PutRetentionPolicyRequest, type RetentionPolicy, RetentionPolicySchema } from '@statehouse/contracts';
import { arrayOf, request } from './client';

/** `/v1/retention/policies`: per-profile retention (administrators). */

export function listRetentionPolicies(): Promise<RetentionPolicy[]> {
  return request('GET /v1/retention/policies', arrayOf(RetentionPolicySchema), (api) =>
    api.GET('/v1/retention/policies'),
  );
}

export function putRetentionPolicy(profile: string, body: PutRetentionPolicyRequest): Promise<RetentionPolicy> {
  return request('PUT /v1/retention/policies/{profile}', RetentionPolicySchema, (api) =>
    api.PUT('/v1/retention/policies/{profile}', { params: { path: { profile } }, body }),
  );
}
