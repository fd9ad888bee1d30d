import {
  type CreateLabelRequest,
  type Label,
  type LabelList,
  LabelListSchema,
  LabelSchema,
  type LabelSessionsResponse,
  LabelSessionsResponseSchema,
  type SessionLabelList,
  SessionLabelListSchema,
  type UpdateLabelRequest,
} from '@statehouse/contracts';
import { ifMatch, request, send } from './client';

/** `/v1/profiles/{name}/labels`: a profile's labels and the sessions carrying them (docs/api.md, "Labels"). */

export function listLabels(profile: string): Promise<LabelList> {
  return request('GET /v1/profiles/{name}/labels', LabelListSchema, (api) =>
    api.GET('/v1/profiles/{name}/labels', { params: { path: { name: profile } } }),
  );
}

export function createLabel(profile: string, body: CreateLabelRequest): Promise<Label> {
  return request('POST /v1/profiles/{name}/labels', LabelSchema, (api) =>
    api.POST('/v1/profiles/{name}/labels', { params: { path: { name: profile } }, body }),
  );
}

/** PATCH with `If-Match` from the revision the page rendered: a stale one answers 412. */
export function updateLabel(
  profile: string,
  label: string,
  revision: number,
  body: UpdateLabelRequest,
): Promise<Label> {
  return request('PATCH /v1/profiles/{name}/labels/{label}', LabelSchema, (api) =>
    api.PATCH('/v1/profiles/{name}/labels/{label}', {
      params: { path: { name: profile, label }, header: ifMatch(revision) },
      body,
    }),
  );
}

export async function deleteLabel(profile: string, label: string, revision: number): Promise<void> {
  await send((api) =>
    api.DELETE('/v1/profiles/{name}/labels/{label}', {
      params: { path: { name: profile, label }, header: ifMatch(revision) },
    }),
  );
}

export function labelSessions(
  profile: string,
  label: string,
  change: 'apply' | 'remove',
  sessionIds: string[],
): Promise<LabelSessionsResponse> {
  const body = { sessionIds };
  const params = { path: { name: profile, label } };
  return change === 'apply'
    ? request('POST /v1/profiles/{name}/labels/{label}/apply', LabelSessionsResponseSchema, (api) =>
        api.POST('/v1/profiles/{name}/labels/{label}/apply', { params, body }),
      )
    : request('POST /v1/profiles/{name}/labels/{label}/remove', LabelSessionsResponseSchema, (api) =>
        api.POST('/v1/profiles/{name}/labels/{label}/remove', { params, body }),
      );
}

/** The labels one session carries. */
export function listSessionLabels(id: string): Promise<SessionLabelList> {
  return request('GET /v1/sessions/{id}/labels', SessionLabelListSchema, (api) =>
    api.GET('/v1/sessions/{id}/labels', { params: { path: { id } } }),
  );
}
