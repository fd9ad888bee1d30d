import { type PutRetentionPolicyRequest, type RetentionPolicy, RetentionPolicySchema } from '@statehouse/contracts';
import { arrayOf, request } from './client';

/** `/v1/retention/policies`: per-profile retention (administrators). */

export function listRetentionPolicies(): Promise<RetentionPolicy[]> {
  return request('/v1/retention/policies', arrayOf(RetentionPolicySchema));
}

export function putRetentionPolicy(profile: string, body: PutRetentionPolicyRequest): Promise<RetentionPolicy> {
  return request(`/v1/retention/policies/${encodeURIComponent(profile)}`, RetentionPolicySchema, {
    method: 'PUT',
    body,
  });
}
