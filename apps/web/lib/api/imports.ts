import {
  type ImportJob,
  type ImportJobPage,
  ImportJobPageSchema,
  ImportJobSchema,
  type StartImportQuery,
} from '@statehouse/contracts';
import { openEventStream, request, send, wireQuery } from './client';

/** `/v1/imports`: importing a Hermes Agent state.db (administrators). */

export function listImports(limit = 10): Promise<ImportJobPage> {
  return request('GET /v1/imports', ImportJobPageSchema, (api) =>
    api.GET('/v1/imports', { params: { query: { limit } } }),
  );
}

export function getImport(id: string): Promise<ImportJob> {
  return request('GET /v1/imports/{id}', ImportJobSchema, (api) =>
    api.GET('/v1/imports/{id}', { params: { path: { id } } }),
  );
}

/** The event stream of one import (SSE), for a route handler to pass on. */
export function openImportEvents(id: string, { signal }: { signal: AbortSignal }): Promise<Response> {
  return openEventStream(
    (api, init) => api.open('get', '/v1/imports/{id}/events', { params: { path: { id } }, ...init }),
    {
      signal,
    },
  );
}

/** Node's fetch must be told that a streamed request body is one-way (RequestInit's types lack it). */
const HALF_DUPLEX = { duplex: 'half' } as object;

/**
 * Passes an uploaded file on to `POST /v1/imports` as it arrives (a stream, never buffered here),
 * with the user's cookie; the API's answer is returned as it came (202 {id}, or a problem). No
 * timeout: a large file takes as long as it takes; `signal` ends it when the browser goes away.
 */
export function forwardImportUpload(
  body: ReadableStream<Uint8Array>,
  query: StartImportQuery,
  { contentLength, signal }: { contentLength: string | null; signal: AbortSignal },
): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/octet-stream' };
  if (contentLength && /^\d{1,15}$/.test(contentLength)) headers['content-length'] = contentLength;
  return send(
    (api) =>
      api.open('post', '/v1/imports', {
        params: { query: wireQuery(query) },
        // The file as it streams in.
        body: body as never,
        bodySerializer: (stream: unknown) => stream,
        ...HALF_DUPLEX,
        headers,
        signal,
      }),
    { timeoutMs: 0 },
  );
}
