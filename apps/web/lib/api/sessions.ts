import {
  type BulkDeleteRequest,
  type BulkDeleteResponse,
  BulkDeleteResponseSchema,
  type DeletePreview,
  type DeletePreviewRequest,
  DeletePreviewSchema,
  type DeleteSessionResponse,
  DeleteSessionResponseSchema,
  type EndSessionRequest,
  type ListSessionsQuery,
  type Session,
  type SessionFacets,
  type SessionFacetsQuery,
  SessionFacetsSchema,
  type SessionListResponse,
  SessionListResponseSchema,
  SessionSchema,
  type UpdateSessionRequest,
} from '@statehouse/contracts';
import { preconditions, request, sessionPath } from './client';

/** `/v1/sessions`: the list, one session, its changes (If-Match), its lifecycle and deleting it. */

export type SessionListParams = Partial<ListSessionsQuery>;

export function listSessions(params: SessionListParams): Promise<SessionListResponse> {
  return request('/v1/sessions', SessionListResponseSchema, { query: { ...params } });
}

/** Known sources and models (most used first) for the list's choice filters. */
export function getSessionFacets(query: SessionFacetsQuery): Promise<SessionFacets> {
  return request('/v1/sessions/facets', SessionFacetsSchema, { query: { ...query } });
}

export function getSession(id: string): Promise<Session> {
  return request(sessionPath(id), SessionSchema);
}

/** PATCH with `If-Match` from the revision the caller last saw: a stale one answers 412. */
export function updateSession(id: string, revision: number, body: UpdateSessionRequest): Promise<Session> {
  return request(sessionPath(id), SessionSchema, {
    method: 'PATCH',
    body,
    headers: { 'if-match': `"${revision}"` },
  });
}

export function endSession(id: string, revision: number, body: EndSessionRequest): Promise<Session> {
  return request(`${sessionPath(id)}/end`, SessionSchema, { method: 'POST', body, headers: preconditions(revision) });
}

export function reopenSession(id: string, revision: number): Promise<Session> {
  return request(`${sessionPath(id)}/reopen`, SessionSchema, {
    method: 'POST',
    body: {},
    headers: preconditions(revision),
  });
}

/** What a delete would remove (selected, delegate cascade, chain members) and what it would orphan. */
export function previewDeletion(body: DeletePreviewRequest): Promise<DeletePreview> {
  return request('/v1/sessions/delete-preview', DeletePreviewSchema, { method: 'POST', body });
}

export interface DeleteSessionOptions {
  revision: number;
  generation: number;
  includeCompressionChain: boolean;
  idempotencyKey?: string;
}

export function deleteSession(id: string, options: DeleteSessionOptions): Promise<DeleteSessionResponse> {
  return request(sessionPath(id), DeleteSessionResponseSchema, {
    method: 'DELETE',
    query: { includeCompressionChain: options.includeCompressionChain },
    headers: preconditions(options.revision, options.generation),
    idempotencyKey: options.idempotencyKey,
  });
}

export function bulkDeleteSessions(body: BulkDeleteRequest, idempotencyKey?: string): Promise<BulkDeleteResponse> {
  return request('/v1/sessions/bulk-delete', BulkDeleteResponseSchema, { method: 'POST', body, idempotencyKey });
}
