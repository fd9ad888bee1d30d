import { StartImportQuerySchema } from '@statehouse/contracts';
import type { NextRequest } from 'next/server';
import { ApiUnreachableError, forwardImportUpload } from '@/lib/api';

export const dynamic = 'force-dynamic';

const problem = (status: number, code: string, detail: string) =>
  Response.json(
    { type: 'about:blank', title: 'Import refused', status, code, detail },
    { status, headers: { 'content-type': 'application/problem+json' } },
  );

/**
 * The Import page's upload: the browser sends the file here (same origin, with upload progress),
 * and the file is streamed on to `POST /v1/imports` with the session cookie only this server holds.
 * The API checks the session, the admin role, the size limit and the file; its answer is passed
 * back as it came (202 {id}, or a problem).
 */
export async function POST(request: NextRequest): Promise<Response> {
  const query = StartImportQuerySchema.safeParse(Object.fromEntries(request.nextUrl.searchParams.entries()));
  if (!query.success) {
    return problem(400, 'validation_failed', query.error.issues.map((issue) => issue.message).join('; '));
  }
  if (!request.body) return problem(400, 'validation_failed', 'choose a file to import');
  let upstream: Response;
  try {
    upstream = await forwardImportUpload(request.body, query.data, {
      contentLength: request.headers.get('content-length'),
      signal: request.signal,
    });
  } catch (error) {
    if (error instanceof ApiUnreachableError) return problem(503, 'store_unavailable', error.message);
    throw error;
  }
  return new Response(upstream.body, {
    status: upstream.status,
    headers: { 'content-type': upstream.headers.get('content-type') ?? 'application/json' },
  });
}
