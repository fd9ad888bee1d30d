import type { NextRequest } from 'next/server';
import { ApiUnreachableError, openImportEvents } from '@/lib/api';
import { passThroughStream, unavailableStream } from '@/lib/event-stream';

export const dynamic = 'force-dynamic';

/** One import's progress stream (GET /v1/imports/:id/events), opened with the session cookie and passed on. */
export async function GET(request: NextRequest, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await params;
  try {
    return passThroughStream(await openImportEvents(id, { signal: request.signal }));
  } catch (error) {
    if (error instanceof ApiUnreachableError) return unavailableStream(503, error.message);
    throw error;
  }
}
