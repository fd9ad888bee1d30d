import {
  type ImportJob,
  type ImportJobPage,
  ImportJobPageSchema,
  ImportJobSchema,
  type StartImportQuery,
} from '@statehouse/contracts';
import { apiBaseUrl } from '@/lib/config';
import { forwardedHeaders } from '@/lib/forwarding';
import {
  ApiUnreachableError,
  buildQuery,
  describeFailure,
  openEventStream,
  request,
  sessionCookieHeader,
} from './client';

/** `/v1/imports`: importing a Hermes Agent state.db (administrators). */

export function listImports(limit = 10): Promise<ImportJobPage> {
  return request('/v1/imports', ImportJobPageSchema, { query: { limit } });
}

const importPath = (id: string) => `/v1/imports/${encodeURIComponent(id)}`;

export function getImport(id: string): Promise<ImportJob> {
  return request(importPath(id), ImportJobSchema);
}

/** The event stream of one import (SSE), for a route handler to pass on. */
export function openImportEvents(id: string, { signal }: { signal: AbortSignal }): Promise<Response> {
  return openEventStream(`${importPath(id)}/events`, { signal });
}

/**
 * Passes an uploaded file on to `POST /v1/imports` as it arrives (a stream, never buffered here),
 * with the user's cookie; the API's answer is returned as it came (202 {id}, or a problem). No
 * timeout: a large file takes as long as it takes; `signal` ends it when the browser goes away.
 */
export async function forwardImportUpload(
  body: ReadableStream<Uint8Array>,
  query: StartImportQuery,
  { contentLength, signal }: { contentLength: string | null; signal: AbortSignal },
): Promise<Response> {
  const headers: Record<string, string> = {
    // The browser's address and origin: the API accepts a cookie-authenticated post only from it.
    ...(await forwardedHeaders('POST')),
    accept: 'application/json',
    'content-type': 'application/octet-stream',
  };
  if (contentLength && /^\d{1,15}$/.test(contentLength)) headers['content-length'] = contentLength;
  const cookie = await sessionCookieHeader();
  if (cookie) headers.cookie = cookie;
  try {
    return await fetch(`${apiBaseUrl()}/v1/imports${buildQuery({ ...query })}`, {
      method: 'POST',
      headers,
      body,
      // A streamed request body: Node's fetch must be told it is one-way.
      duplex: 'half',
      cache: 'no-store',
      redirect: 'manual',
      signal,
    } as RequestInit & { duplex: 'half' });
  } catch (error) {
    throw new ApiUnreachableError(describeFailure(error));
  }
}
