import { SessionWatchQuerySchema } from '@statehouse/contracts';
import type { NextRequest } from 'next/server';
import { ApiUnreachableError, openSessionWatch } from '@/lib/api';
import { passThroughStream, unavailableStream } from '@/lib/event-stream';

export const dynamic = 'force-dynamic';

/**
 * The sessions feed (GET /v1/sessions/watch) for the browser: the API needs the session cookie,
 * which only the dashboard's server holds, so this handler opens the stream with it and passes the
 * events through unchanged; `Last-Event-ID` is forwarded, so a reconnect resumes where it was.
 */
export async function GET(request: NextRequest): Promise<Response> {
  const query = SessionWatchQuerySchema.safeParse(Object.fromEntries(request.nextUrl.searchParams.entries()));
  if (!query.success) return unavailableStream(400, query.error.issues.map((issue) => issue.message).join('; '));
  try {
    const upstream = await openSessionWatch(query.data, {
      signal: request.signal,
      lastEventId: request.headers.get('last-event-id'),
    });
    return passThroughStream(upstream);
  } catch (error) {
    if (error instanceof ApiUnreachableError) return unavailableStream(503, error.message);
    throw error;
  }
}
