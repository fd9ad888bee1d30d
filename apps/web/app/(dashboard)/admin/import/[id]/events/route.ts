import type { NextRequest } from 'next/server';
import { ApiUnreachableError, openImportEvents } from '../../../../../../lib/api';

export const dynamic = 'force-dynamic';

const STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  // no-transform: Next's response compression must not buffer the stream.
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

/** An SSE answer that tells the browser why the stream is not available, then closes. */
function unavailable(status: number, detail: string): Response {
  const body = `event: unavailable\ndata: ${JSON.stringify({ status, detail })}\nretry: 30000\n\n`;
  return new Response(body, { status: 200, headers: STREAM_HEADERS });
}

/** One import's progress stream (GET /v1/imports/:id/events), opened with the session cookie and passed on. */
export async function GET(request: NextRequest, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await params;
  let upstream: Response;
  try {
    upstream = await openImportEvents(id, { signal: request.signal });
  } catch (error) {
    if (error instanceof ApiUnreachableError) return unavailable(503, error.message);
    throw error;
  }
  if (!upstream.ok || !upstream.body) {
    const text = await upstream.text().catch(() => '');
    let detail = `HTTP ${upstream.status}`;
    try {
      detail = (JSON.parse(text) as { detail?: string }).detail ?? detail;
    } catch {
      // not a problem document
    }
    return unavailable(upstream.status, detail);
  }
  return new Response(upstream.body, { status: 200, headers: STREAM_HEADERS });
}
