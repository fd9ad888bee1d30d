/** One server-sent event as a test reads it: its name, its id, its parsed data and when it arrived. */
export interface SseEvent {
  /** `message` when the block names none. */
  event: string;
  id: string | null;
  // biome-ignore lint/suspicious/noExplicitAny: JSON of several event shapes, read by the assertions.
  data: any;
  /** performance.now() when the chunk holding it arrived. */
  at: number;
}

/** The events of a server-sent events response (a fetch body) as they arrive. */
export async function* sseEvents(response: Response): AsyncGenerator<SseEvent> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    const at = performance.now();
    buffer += decoder.decode(value, { stream: true });
    let index = buffer.indexOf('\n\n');
    while (index >= 0) {
      const block = buffer.slice(0, index);
      buffer = buffer.slice(index + 2);
      const data = /^data: (.*)$/m.exec(block)?.[1];
      yield {
        event: /^event: (.*)$/m.exec(block)?.[1] ?? 'message',
        id: /^id: (.*)$/m.exec(block)?.[1] ?? null,
        data: data ? JSON.parse(data) : null,
        at,
      };
      index = buffer.indexOf('\n\n');
    }
  }
}
