import type { MessageWatchQuery, SessionWatchQuery } from '@statehouse/contracts';
import { openEventStream, wireQuery } from './client';

/** `Last-Event-ID` as an EventSource sends it on reconnect, forwarded only when it is a message id. */
function resumeHeaders(lastEventId: string | null | undefined): Record<string, string> {
  return lastEventId && /^\d{1,15}$/.test(lastEventId) ? { 'last-event-id': lastEventId } : {};
}

/**
 * Opens the API's feed of a session's messages (server-sent events) with the user's cookie, for a
 * route handler to pass through.
 */
export function openMessageWatch(
  sessionId: string,
  params: Partial<MessageWatchQuery>,
  { signal, lastEventId }: { signal: AbortSignal; lastEventId?: string | null },
): Promise<Response> {
  return openEventStream(
    (api, init) =>
      api.open('get', '/v1/sessions/{id}/messages/watch', {
        params: { path: { id: sessionId }, query: wireQuery(params) },
        ...init,
      }),
    { signal, headers: resumeHeaders(lastEventId) },
  );
}

/** Opens the API's feed of sessions getting messages (of one profile, or every readable one). */
export function openSessionWatch(
  params: Partial<SessionWatchQuery>,
  { signal, lastEventId }: { signal: AbortSignal; lastEventId?: string | null },
): Promise<Response> {
  return openEventStream((api, init) => api.open('get', '/v1/sessions/watch', { params: { query: params }, ...init }), {
    signal,
    headers: resumeHeaders(lastEventId),
  });
}
