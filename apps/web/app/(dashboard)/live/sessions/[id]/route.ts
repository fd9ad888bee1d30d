import { IdSchema, MessageWatchQuerySchema } from '@statehouse/contracts';
import type { NextRequest } from 'next/server';
import { ApiUnreachableError, openMessageWatch } from '@/lib/api';
import { passThroughStream, unavailableStream } from '@/lib/event-stream';
import { decodeParam } from '@/lib/params';

export const dynamic = 'force-dynamic';

/**
 * A session's message feed (GET /v1/sessions/{id}/messages/watch) for the browser, opened with the
 * user's cookie on this server and passed through unchanged (`Last-Event-ID` forwarded).
 */
export async function GET(request: NextRequest, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const id = IdSchema.safeParse(decodeParam((await params).id));
  const query = MessageWatchQuerySchema.safeParse(Object.fromEntries(request.nextUrl.searchParams.entries()));
  if (!id.success) return unavailableStream(400, 'not a session id');
  if (!query.success) return unavailableStream(400, query.error.issues.map((issue) => issue.message).join('; '));
  try {
    const upstream = await openMessageWatch(id.data, query.data, {
      signal: request.signal,
      lastEventId: request.headers.get('last-event-id'),
    });
    return passThroughStream(upstream);
  } catch (error) {
    if (error instanceof ApiUnreachableError) return unavailableStream(503, error.message);
    throw error;
  }
}
