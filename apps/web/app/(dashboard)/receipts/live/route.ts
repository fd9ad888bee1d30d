import { ReceiptWatchQuerySchema } from '@statehouse/contracts';
import type { NextRequest } from 'next/server';
import { ApiUnreachableError, openReceiptWatch } from '@/lib/api';
import { passThroughStream, unavailableStream } from '@/lib/event-stream';

export const dynamic = 'force-dynamic';

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
    return unavailableStream(400, query.error.issues.map((issue) => issue.message).join('; '));
  }
  let upstream: Response;
  try {
    upstream = await openReceiptWatch(query.data, {
      signal: request.signal,
      lastEventId: request.headers.get('last-event-id'),
    });
  } catch (error) {
    if (error instanceof ApiUnreachableError) return unavailableStream(503, error.message);
    throw error;
  }
  return passThroughStream(upstream);
}
