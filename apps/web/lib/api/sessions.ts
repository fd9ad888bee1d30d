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
  type ExportFormat,
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
import { fenced, ifMatch, request, send, wireQuery } from './client';

/** `/v1/sessions`: the list, one session, its changes (If-Match), its lifecycle and deleting it. */

/** The dashboard filters by one surface; the list forms (`sources`, `excludeSources`) are for runtimes. */
export type SessionListParams = Partial<Omit<ListSessionsQuery, 'sources' | 'excludeSources'>>;

export function listSessions({ label, ...params }: SessionListParams): Promise<SessionListResponse> {
  // Label names travel comma-separated, as the API reads them.
  const query = { ...params, label: label?.join(',') };
  return request('GET /v1/sessions', SessionListResponseSchema, (api) =>
    api.GET('/v1/sessions', { params: { query: wireQuery(query) } }),
  );
}

/** Known sources and models (most used first) for the list's choice filters. */
export function getSessionFacets(query: SessionFacetsQuery): Promise<SessionFacets> {
  return request('GET /v1/sessions/facets', SessionFacetsSchema, (api) =>
    api.GET('/v1/sessions/facets', { params: { query } }),
  );
}

export function getSession(id: string): Promise<Session> {
  return request('GET /v1/sessions/{id}', SessionSchema, (api) =>
    api.GET('/v1/sessions/{id}', { params: { path: { id } } }),
  );
}

/** PATCH with `If-Match` from the revision the caller last saw: a stale one answers 412. */
export function updateSession(id: string, revision: number, body: UpdateSessionRequest): Promise<Session> {
  return request('PATCH /v1/sessions/{id}', SessionSchema, (api) =>
    api.PATCH('/v1/sessions/{id}', { params: { path: { id }, header: ifMatch(revision) }, body }),
  );
}

export function endSession(id: string, revision: number, body: EndSessionRequest): Promise<Session> {
  return request('POST /v1/sessions/{id}/end', SessionSchema, (api) =>
    api.POST('/v1/sessions/{id}/end', { params: { path: { id }, header: ifMatch(revision) }, body }),
  );
}

export function reopenSession(id: string, revision: number): Promise<Session> {
  return request('POST /v1/sessions/{id}/reopen', SessionSchema, (api) =>
    api.POST('/v1/sessions/{id}/reopen', { params: { path: { id }, header: ifMatch(revision) }, body: {} }),
  );
}

/** What a delete would remove (selected, delegate cascade, chain members) and what it would orphan. */
export function previewDeletion(body: DeletePreviewRequest): Promise<DeletePreview> {
  return request('POST /v1/sessions/delete-preview', DeletePreviewSchema, (api) =>
    api.POST('/v1/sessions/delete-preview', { body }),
  );
}

export interface DeleteSessionOptions {
  revision: number;
  generation: number;
  includeCompressionChain: boolean;
  idempotencyKey?: string;
}

export function deleteSession(id: string, options: DeleteSessionOptions): Promise<DeleteSessionResponse> {
  return request('DELETE /v1/sessions/{id}', DeleteSessionResponseSchema, (api) =>
    api.DELETE('/v1/sessions/{id}', {
      params: {
        path: { id },
        query: wireQuery({ includeCompressionChain: options.includeCompressionChain }),
        header: fenced(options.revision, options.generation),
      },
      idempotencyKey: options.idempotencyKey,
    }),
  );
}

export function bulkDeleteSessions(body: BulkDeleteRequest, idempotencyKey?: string): Promise<BulkDeleteResponse> {
  return request('POST /v1/sessions/bulk-delete', BulkDeleteResponseSchema, (api) =>
    api.POST('/v1/sessions/bulk-delete', { body, idempotencyKey }),
  );
}

/**
 * An export as the API streams it (`GET /v1/sessions/export`, `GET /v1/sessions/{id}/export`), for
 * a route handler to pass on: resolved at the headers, whatever the status; `signal` ends it when
 * the browser goes away. Only the headers are waited for within the usual time.
 */
export function openSessionListExport(
  { label, ...params }: SessionListParams,
  format: ExportFormat,
  signal: AbortSignal,
): Promise<Response> {
  return send((api) =>
    api.open('get', '/v1/sessions/export', {
      params: { query: { ...wireQuery({ ...params, label: label?.join(',') }), format } },
      signal,
      headers: { accept: '*/*' },
    }),
  );
}

export function openSessionExport(id: string, format: ExportFormat, signal: AbortSignal): Promise<Response> {
  return send((api) =>
    api.open('get', '/v1/sessions/{id}/export', {
      params: { path: { id }, query: { format } },
      signal,
      headers: { accept: '*/*' },
    }),
  );
}
