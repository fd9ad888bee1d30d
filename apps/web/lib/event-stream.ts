/** Route handlers that pass an API event stream (SSE) on to the browser. */

export const STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  // no-transform: Next's response compression must not buffer the stream.
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

/** An SSE answer that tells the browser why the stream is not available, then closes. */
export function unavailableStream(status: number, detail: string): Response {
  const body = `event: unavailable\ndata: ${JSON.stringify({ status, detail })}\nretry: 30000\n\n`;
  return new Response(body, { status: 200, headers: STREAM_HEADERS });
}

/** The API's stream passed through unchanged, or its refusal as an `unavailable` event. */
export async function passThroughStream(upstream: Response): Promise<Response> {
  if (upstream.ok && upstream.body) return new Response(upstream.body, { status: 200, headers: STREAM_HEADERS });
  const text = await upstream.text().catch(() => '');
  let detail = `HTTP ${upstream.status}`;
  try {
    detail = (JSON.parse(text) as { detail?: string }).detail ?? detail;
  } catch {
    // not a problem document
  }
  return unavailableStream(upstream.status, detail);
}
