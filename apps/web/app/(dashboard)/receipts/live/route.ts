import { ReceiptWatchQuerySchema } from '@statehouse/contracts';
import type { NextRequest } from 'next/server';
import { ApiUnreachableError, openReceiptWatch } from '@/lib/api';

export const dynamic = 'force-dynamic';

const STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  // no-transform: Next's response compression must not buffer the stream.
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

/** An SSE answer that tells the browser why the stream is not available, then closes. */
function problemEvent(status: number, detail: string): Response {
  const body = `event: unavailable\ndata: ${JSON.stringify({ status, detail })}\nretry: 30000\n\n`;
  return new Response(body, { status: 200, headers: STREAM_HEADERS });
}

/**
 * The receipt watch stream (GET /v1/deletion-receipts/watch) for the browser. The API needs the
 * session cookie, which only the dashboard's server holds, so this handler opens the stream with it
 * and passes the events through unchanged. `Last-Event-ID` (an EventSource reconnecting) is
 * forwarded, so a reconnect resumes after the last event seen.
 */
export async function GET(request: NextRequest): Promise<Response> {
  const search = Object.fromEntries(request.nextUrl.searchParams.entries());
  const query = ReceiptWatchQuerySchema.safeParse(search);
  if (!query.success) {
    return problemEvent(400, query.error.issues.map((issue) => issue.message).join('; '));
  }
  let upstream: Response;
  try {
    upstream = await openReceiptWatch(query.data, {
      signal: request.signal,
      lastEventId: request.headers.get('last-event-id'),
    });
  } catch (error) {
    if (error instanceof ApiUnreachableError) return problemEvent(503, error.message);
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
    return problemEvent(upstream.status, detail);
  }
  return new Response(upstream.body, { status: 200, headers: STREAM_HEADERS });
}
